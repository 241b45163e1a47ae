"""A real browser (headless Chromium via Playwright) against a real uvicorn server.

Logs in by link, reads an escalated case with its debate and highlighted
evidence, votes with mouse and keyboard; three people reach a decision that
the export contains; a hostile document runs nothing and shows as text.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from qrelkit.annotate import create_app, sync_tasks
from qrelkit.annotate.export import export_annotations
from qrelkit.store import Store

from .helpers import ServerThread, add_login, build_workspace

CHROMIUM = os.environ.get("QRELKIT_TEST_CHROMIUM", "/usr/bin/chromium")  # CI runs these once without it
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", "--disable-sync"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"browser tests need Chromium at {CHROMIUM} (apt install chromium)"),
]


@pytest.fixture
def live(tmp_path):
    ws = build_workspace(tmp_path / "ws")
    with Store.open(ws) as s:
        sync_tasks(s, votes_needed=3, attention_share=0.0)
    server = ServerThread(create_app(ws)).start()
    try:
        yield ws, server.url
    finally:
        server.stop()


@pytest.fixture
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="browser tests need the playwright package")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b
        finally:
            b.close()


class Person:
    """One browser context (its own cookies) with a watch on dialogs and console errors."""

    def __init__(self, browser, url: str, token: str):
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.page = self.context.new_page()
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(f"{url}/login?token={token}")
        if self.page.locator("#sign-in").count():  # the link page needs a click (a preview bot does not click)
            self.page.click("#sign-in")

    def case_ids(self) -> str:
        return self.page.locator(".ids").inner_text()

    def close(self):
        self.context.close()


def test_three_people_judge_an_escalation_in_the_browser(live, browser, tmp_path):
    ws, url = live
    with Store.open(ws) as s:
        tokens = {n: add_login(s, n, admin=(n == "boss")) for n in ("ann", "bob", "cat", "boss")}

    ann = Person(browser, url, tokens["ann"])
    page = ann.page
    assert page.url == f"{url}/"
    # the Secure, HttpOnly cookie was accepted on http://127.0.0.1
    (cookie,) = [c for c in ann.context.cookies() if c["name"] == "qrelkit_session"]
    assert cookie["secure"] and cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    assert page.evaluate("document.cookie") == ""  # not readable by scripts
    # an escalated case with its debate and highlighted evidence
    assert "q1 · doc d1" in ann.case_ids()
    assert page.locator(".badge.esc").is_visible()
    assert page.locator("#history").is_visible()
    assert page.locator("#history .round").count() == 2
    assert page.locator("#history .agent").count() == 4
    assert "The passage states the cause directly." in page.locator("#history").inner_text()
    pro = page.locator("#doctext mark.pro")
    assert pro.count() == 1 and pro.inner_text() == "gravitational pull of the Moon"
    assert pro.evaluate("e => getComputedStyle(e).backgroundColor") != "rgba(0, 0, 0, 0)"
    assert page.locator("#doctext mark.con").count() == 60  # "sailing schedules", every paragraph
    assert page.locator("#history .notfound").count() == 1
    # a long document scrolls inside its box; the vote buttons stay on screen
    assert page.locator("#doctext").evaluate("e => e.scrollHeight > e.clientHeight + 50")
    assert page.locator("#grade-2").is_visible() and page.locator("#grade-2").is_enabled()
    assert "Judged 0" in page.locator("#progress").inner_text()
    page.screenshot(path=str(tmp_path / "case.png"), full_page=False)

    # vote with the mouse
    with page.expect_navigation():
        page.locator("#grade-2").click()
    assert "q2 · doc d2" in ann.case_ids()
    assert "Judged 1" in page.locator("#progress").inner_text()

    # the hostile document: literal text, nothing runs
    text = page.locator("#doctext").inner_text()
    for s in ("<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "</textarea>", "& an ampersand"):
        assert s in text
    assert page.locator("#doctext img, #doctext script, #doctext textarea").count() == 0
    assert page.locator("#doctext mark.pro").inner_text() == "<script>alert(1)</script>"
    assert page.locator("script").count() == 1  # only /static/annotate.js
    assert page.locator("textarea").count() == 1  # the comment box, intact
    assert "A <b>hostile</b> title" in page.locator(".doc .label").inner_text()
    page.screenshot(path=str(tmp_path / "hostile.png"), full_page=True)

    # vote with the keyboard (answer task: r = relevant)
    with page.expect_navigation():
        page.keyboard.press("r")
    assert "q1 · doc d3" in ann.case_ids()

    bob = Person(browser, url, tokens["bob"])
    assert "q1 · doc d1" in bob.case_ids()
    # typing in the comment box does not vote; Escape leaves it and keys work again
    bob.page.locator("#comment").click()
    bob.page.keyboard.type("bob's note 3 2 r s")
    assert "q1 · doc d1" in bob.case_ids()
    bob.page.keyboard.press("Escape")
    with bob.page.expect_navigation():
        bob.page.keyboard.press("2")
    assert "q2 · doc d2" in bob.case_ids()
    with bob.page.expect_navigation():
        bob.page.get_by_role("button", name="Relevant", exact=False).first.click()

    cat = Person(browser, url, tokens["cat"])
    assert "q1 · doc d1" in cat.case_ids()
    with cat.page.expect_navigation():
        cat.page.locator("#grade-3").click()
    with cat.page.expect_navigation():
        cat.page.keyboard.press("n")
    # skip with the key: the case goes to the back, the next one shows
    assert "q1 · doc d3" in cat.case_ids()
    with cat.page.expect_navigation():
        cat.page.keyboard.press("s")
    assert "q1 · doc d4" in cat.case_ids() and "Skipped" in cat.page.locator("#notice").inner_text()

    # the admin sees the decisions
    boss = Person(browser, url, tokens["boss"])
    boss.page.goto(f"{url}/admin")
    rows = boss.page.locator("#decided tbody tr").all_inner_texts()
    assert [r.split("\t")[:4] for r in rows] == [["q1", "d1", "escalation", "2"], ["q2", "d2", "escalation", "1"]]
    assert "2 of 6 cases decided" in boss.page.locator("#overall").inner_text()
    boss.page.screenshot(path=str(tmp_path / "admin.png"), full_page=True)

    people = (ann, bob, cat, boss)
    assert [p.dialogs for p in people] == [[]] * 4, "a dialog fired: a document's script ran"
    assert [p.errors for p in people] == [[]] * 4, "console errors (CSP violations?)"
    for p in people:
        p.close()

    with Store.open(ws) as s:
        r = export_annotations(s, tmp_path / "export")
        prov = json.loads(s.query("SELECT provenance FROM judgments WHERE qid='q1' AND docid='d1' AND method='people'")[0][0])
    assert r.decided == 2
    assert (tmp_path / "export" / "decided.qrels").read_text() == "q1 0 d1 2\nq2 0 d2 1\n"
    assert [v["annotator"] for v in prov["votes"]] == ["ann", "bob", "cat"]
    assert prov["votes"][1]["comment"] == "bob's note 3 2 r s"
    assert all(v["seconds"] > 0 and v["history_shown"] for v in prov["votes"])
    keep = os.environ.get("QRELKIT_SCREENSHOTS")
    if keep:  # for a human look at the page
        for name in ("case.png", "hostile.png", "admin.png"):
            shutil.copy(tmp_path / name, Path(keep) / name)


def test_browser_refuses_a_replayed_link_and_a_cross_site_post(live, browser, tmp_path):
    ws, url = live
    with Store.open(ws) as s:
        token = add_login(s, "ann")
    first = Person(browser, url, token)
    assert first.page.locator("#vote-form").is_visible()
    second = Person(browser, url, token)
    assert "not valid" in second.page.locator("#message").inner_text()
    assert [c for c in second.context.cookies() if c["name"] == "qrelkit_session"] == []
    # a page on another origin posting a vote with the victim's cookie: refused
    evil = first.context.new_page()
    evil.route("http://evil.test/", lambda route: route.fulfill(
        status=200, content_type="text/html",
        body=f'<form id="f" method="post" action="{url}/vote"><input name="qid" value="q1">'
             f'<input name="docid" value="d1"><input name="grade" value="3"></form>'))
    evil.goto("http://evil.test/")
    with evil.expect_navigation():
        evil.evaluate("document.getElementById('f').submit()")
    assert evil.locator("body").inner_text().strip() != ""
    with Store.open(ws) as s:
        assert s.query("SELECT COUNT(*) FROM annot_votes")[0][0] == 0
    first.close()
    second.close()
