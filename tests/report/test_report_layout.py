"""The report's tables fit their cards in real Chromium (issue 24, point 6): a report made by
`qrelkit report` from a workspace with long method and model ids has no horizontal scroll at
1280 px, the agreement, cost and escalation tables end inside their cards, the escalation reason
does not wrap a word a line, and a long id carries its full text on hover."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from browser import ARGS, CHROMIUM, needs_chromium

from qrelkit.store import Store
from qrelkit.types import Judgment

from .helpers import build_workspace, random_collection

pytestmark = [pytest.mark.browser, needs_chromium]
LONG_METHOD = ("prefilter(by=likelihood,calib=200,doc_tokens=400,keep=0.95)+debate(adjudicator=human,"
               "doc_tokens=1024,first=relevant,prompt=v2,rounds=2)")
LONG_MODEL = "openai:meta-llama/Llama-3.3-70B-Instruct-Turbo-served-by-a-long-deployment-name"
REASON = ("the agents still disagree after 2 rounds: relevant agent says grade 2, not-relevant agent "
          "says grade 0")


def add_long_ids(ws: Path) -> None:
    """Sixty judgments under a long method and model id, a quarter of them escalated with a reason."""
    _, full = random_collection(seed=0)
    js = []
    for i, ((q, d), g) in enumerate(sorted(full.items())[:60]):
        status = ("consensus", "escalate", "auto", "error")[i % 4]
        grade = None if status in ("escalate", "error") else g
        reason = REASON if status == "escalate" else "call failed: HTTP 500 from http://gpu-17.internal:8000/v1"
        prov = {"reason": reason, "status": status} if grade is None else {}
        js.append(Judgment(q, d, LONG_METHOD, LONG_MODEL, None if grade is None else int(grade >= 2), grade, status,
                           round=1 + i % 2, calls=3, prompt_tokens=1200, completion_tokens=90, cost_usd=0.0042,
                           provenance=json.dumps(prov)))
    with Store.open(ws) as s:
        s.put_judgments(js)


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("report")
    ws = build_workspace(tmp / "ws")
    add_long_ids(ws)
    out = tmp / "report.html"
    r = subprocess.run([sys.executable, "-m", "qrelkit", "report", "-w", str(ws), "--out", str(out)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="browser tests need the playwright package")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b
        finally:
            b.close()


def open_at(browser, report: Path, width: int):
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(report.as_uri())
    return page


@pytest.mark.parametrize("width", [1280, 1400])
def test_the_report_has_no_horizontal_scroll(browser, report, tmp_path, width):
    page = open_at(browser, report, width)
    page.screenshot(path=str(tmp_path / f"report-{width}.png"), full_page=True)
    keep = os.environ.get("QRELKIT_SCREENSHOTS")
    if keep:
        shutil.copy(tmp_path / f"report-{width}.png", Path(keep) / f"report-{width}.png")
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


# How far a table's right edge lies past its card's inner edge (<= 0: inside)
PAST_CARD = """id => {
  const t = document.getElementById(id), s = t.closest('section');
  const inner = s.getBoundingClientRect().right - parseFloat(getComputedStyle(s).paddingRight);
  return t.getBoundingClientRect().right - inner;
}"""


@pytest.mark.parametrize("table", ["agreement-table", "costs-table", "escalations-table"])
def test_a_table_ends_inside_its_card(browser, report, table):
    page = open_at(browser, report, 1280)
    assert page.evaluate(PAST_CARD, table) <= 0.5


# Lines of text in the escalation table's first cell with the long reason
REASON_LINES = """reason => {
  const cell = Array.from(document.querySelectorAll('#escalations-table td.reason'))
    .find(td => td.textContent.trim() === reason);
  const range = document.createRange();
  range.selectNodeContents(cell);
  return new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top))).size;
}"""


def test_the_escalation_reason_does_not_wrap_a_word_a_line(browser, report):
    page = open_at(browser, report, 1280)
    assert page.evaluate(REASON_LINES, REASON) <= 3  # 17 words


@pytest.mark.parametrize("table", ["agreement-table", "costs-table", "escalations-table"])
def test_a_long_method_id_shows_in_full_on_hover(browser, report, table):
    page = open_at(browser, report, 1280)
    titles = page.locator(f"#{table} span.id").evaluate_all("es => es.map(e => e.title)")
    assert any(LONG_METHOD in t for t in titles)


def test_a_long_model_id_shows_in_full_on_hover(browser, report):
    page = open_at(browser, report, 1280)
    titles = page.locator("#costs-table span.id").evaluate_all("es => es.map(e => e.title)")
    assert LONG_MODEL in titles


def test_a_long_method_id_wraps_inside_its_column(browser, report):
    page = open_at(browser, report, 1280)
    widths = page.locator("#escalations-table td.idcol").evaluate_all(
        "es => es.map(e => e.getBoundingClientRect().width)")
    assert max(widths) < 420  # ~26em of 0.85em text: the id wraps instead of widening the table
