"""A vote's escalation in a real browser (headless Chromium via Playwright, a real uvicorn server):
the person sees each member's verdict and reasoning, and why the vote split."""
from __future__ import annotations

import pytest

from qrelkit.annotate import create_app
from qrelkit.store import Store

from .helpers import ServerThread, add_login
from .test_browser import CHROMIUM, Person, browser, pytestmark  # noqa: F401  (browser: the fixture)
from .test_vote_escalation import SAID, vote_workspace


@pytest.fixture
def live(tmp_path):
    ws = vote_workspace(tmp_path / "ws")
    with Store.open(ws) as s:
        token = add_login(s, "ann")
    server = ServerThread(create_app(ws)).start()
    try:
        yield server.url, token
    finally:
        server.stop()


def test_a_person_sees_why_the_vote_split(live, browser, tmp_path):  # noqa: F811
    url, token = live
    ann = Person(browser, url, token)
    page = ann.page
    history = page.locator("#history")
    assert history.is_visible()
    assert history.locator(".label").first.text_content().strip().startswith("AI vote")
    assert page.locator("#history h3").text_content() == "The vote (all rule: 3 of 3 must agree)"
    assert page.locator("#history .member").all_inner_texts() == list(SAID)
    assert page.locator("#history .verdict b").all_inner_texts() == ["relevant (grade 2)", "relevant (grade 3)",
                                                                     "not relevant (grade 0)"]
    assert page.locator("#history .reasoning").all_inner_texts() == [r for _, r in SAID.values()]
    assert [page.locator("#history .agent").nth(i).get_attribute("class") for i in range(3)] == [
        "agent pro", "agent pro", "agent con"]
    assert page.locator("#why").inner_text().startswith("The 3 AI judges split (2 said relevant, 1 said not relevant")
    assert page.locator("#grade-3").is_visible()
    page.screenshot(path=str(tmp_path / "vote.png"), full_page=False)
    assert ann.errors == []
    ann.close()
