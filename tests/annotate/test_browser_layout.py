"""The judging page in real Chromium (issue 24, point 7): the decision bar never covers the debate,
each turn says where the agent started and what it says now, the page says why the case came and
how many votes it needs, and a quote that is the prompt's placeholder is not shown as a quote."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from qrelkit.annotate import create_app, sync_tasks
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Topic

from .helpers import TIDES, ServerThread, add_login, escalation
from .test_browser import ARGS, CHROMIUM

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"browser tests need Chromium at {CHROMIUM} (apt install chromium)"),
]
PLACEHOLDER = "<verbatim quote from the document>"  # task_graded.v1.txt's agent_format
LONG = " ".join(["The document talks about tides, the Moon and harbours, and I read it against the query."] * 6)


def turn(stance: str, label: int, grade: int, quotes: list[str]) -> dict:
    return {"stance": stance, "label": label, "grade": grade, "reasoning": LONG,
            "evidence": [{"quote": q, "found": q in TIDES} for q in quotes]}


def long_debate() -> str:
    """Three rounds; the relevant agent gives in to 'not relevant (grade 1)' in round 2; the other
    agent's first quote is the prompt's placeholder, copied by a weak model."""
    rounds = [
        [turn("relevant", 1, 2, ["gravitational pull of the Moon"]), turn("not_relevant", 0, 0, [PLACEHOLDER])],
        [turn("relevant", 0, 1, []), turn("not_relevant", 0, 1, ["sailing schedules"])],
        [turn("relevant", 1, 2, []), turn("not_relevant", 0, 1, [])],
    ]
    return json.dumps({"history": [{"round": i, "agents": a} for i, a in enumerate(rounds, 1)], "rounds": 3,
                       "status": "escalate"})


@pytest.fixture
def page(tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api", reason="browser tests need the playwright package")
    ws = tmp_path / "ws"
    with Store.create(ws) as s:
        s.upsert_topics([Topic("q1", "what causes ocean tides", (), "Relevant documents name the cause of tides.")])
        s.upsert_docs([Doc("d1", TIDES, "Tides")])
        s.upsert_cases([Case("q1", "d1", "llm", 3, ("runA",), False)])
        s.put_judgments([escalation("q1", "d1", long_debate(), method="debate(rounds=3)")])
        sync_tasks(s, votes_needed=3, attention_share=0.0)
        token = add_login(s, "ann")
    server = ServerThread(create_app(ws)).start()
    try:
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                context = browser.new_context(viewport={"width": 1280, "height": 720})
                pg = context.new_page()
                pg.goto(f"{server.url}/login?token={token}")
                if pg.locator("#sign-in").count():
                    pg.click("#sign-in")
                yield pg
            finally:
                browser.close()
    finally:
        server.stop()


# The debate panel's visible box (its box cut by every scrolling ancestor and the window) and the
# decision bar's box, after scrolling the case area to `outer` and the debate to `inner` (0..1).
BOXES = """([outer, inner]) => {
  const scroller = document.getElementById('case-scroll'), hist = document.getElementById('history');
  scroller.scrollTop = outer * (scroller.scrollHeight - scroller.clientHeight);
  hist.scrollTop = inner * (hist.scrollHeight - hist.clientHeight);
  let r = hist.getBoundingClientRect();
  let box = {top: r.top, bottom: r.bottom, left: r.left, right: r.right};
  for (let e = hist.parentElement; e; e = e.parentElement) {
    const s = getComputedStyle(e);
    if (e === document.body || /(auto|scroll|hidden)/.test(s.overflowY)) {
      const c = e.getBoundingClientRect();
      box = {top: Math.max(box.top, c.top), bottom: Math.min(box.bottom, c.bottom),
             left: Math.max(box.left, c.left), right: Math.min(box.right, c.right)};
    }
  }
  box.bottom = Math.min(box.bottom, window.innerHeight);
  const b = document.getElementById('vote-form').getBoundingClientRect();
  return {panel: box, bar: {top: b.top, bottom: b.bottom, left: b.left, right: b.right}};
}"""
STEPS = [i / 4 for i in range(5)]
VIEWPORTS = [(1280, 720), (1280, 1000), (1024, 640), (820, 900)]  # 820: the stacked (one-column) layout


def overlap(a: dict, b: dict) -> float:
    """The area two boxes share (0 when either is empty)."""
    w = min(a["right"], b["right"]) - max(a["left"], b["left"])
    h = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    return max(0.0, w) * max(0.0, h)


def scroll_through(page) -> list[dict]:
    return [page.evaluate(BOXES, [o, i]) for o in STEPS for i in STEPS]


@pytest.mark.parametrize("width, height", VIEWPORTS)
def test_the_decision_bar_never_covers_the_debate(page, tmp_path, width, height):
    page.set_viewport_size({"width": width, "height": height})
    shared = [overlap(b["panel"], b["bar"]) for b in scroll_through(page)]
    page.screenshot(path=str(tmp_path / f"case-{width}x{height}.png"))
    keep = os.environ.get("QRELKIT_SCREENSHOTS")
    if keep:
        shutil.copy(tmp_path / f"case-{width}x{height}.png", Path(keep) / f"case-{width}x{height}.png")
    assert max(shared) == 0.0


@pytest.mark.parametrize("width, height", VIEWPORTS)
def test_the_debate_is_seen_while_scrolling(page, width, height):
    page.set_viewport_size({"width": width, "height": height})
    seen = [b["panel"]["bottom"] - b["panel"]["top"] for b in scroll_through(page)]
    assert max(seen) > 150  # the no-overlap test is not passed by a panel that is never on screen


@pytest.mark.parametrize("width, height", VIEWPORTS)
def test_the_decision_bar_stays_in_the_window(page, width, height):
    page.set_viewport_size({"width": width, "height": height})
    bars = [b["bar"] for b in scroll_through(page)]
    assert max(b["bottom"] for b in bars) <= height


def test_a_turn_says_where_the_agent_started_and_what_it_says_now(page):
    heads = page.locator("#history .round").nth(1).locator(".agent-head").all_inner_texts()
    assert heads[0].strip() == "started: relevant · now says: not relevant (grade 1)"


def test_the_opponent_turn_reads_the_same_way(page):
    heads = page.locator("#history .round").nth(0).locator(".agent-head").all_inner_texts()
    assert heads[1].strip() == "started: not relevant · now says: not relevant (grade 0)"


def test_the_page_says_why_the_case_came(page):
    assert "The two AI assessors still disagreed after round 3" in page.locator("#why").inner_text()


def test_the_page_says_how_many_votes_the_case_needs(page):
    assert "1 of 3 votes" in page.locator("#votes").inner_text()


def test_a_placeholder_quote_is_not_shown_as_a_quote(page):
    assert PLACEHOLDER not in page.locator("#history").inner_text()


def test_a_turn_whose_only_quote_is_the_placeholder_lists_no_evidence(page):
    first_round = page.locator("#history .round").nth(0)
    assert first_round.locator(".agent").nth(1).locator(".evidence").count() == 0


def test_real_quotes_are_still_shown(page):
    assert "“gravitational pull of the Moon”" in page.locator("#history").inner_text()
