"""The report's boxes above the sections fit the page in real Chromium (issue 45, point 10): the
circularity warning ran past its right edge on a long model id, and the job's state box (partial,
waiting) says what is left with its counts."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from browser import ARGS, CHROMIUM, needs_chromium

from qrelkit.evaluate.circularity import CircularityWarning, DenseSignalWarning
from qrelkit.report.report import ReportInputs, write_report

pytestmark = [pytest.mark.browser, needs_chromium]
MODEL = "openai:meta-llama/Llama-3.3-70B-Instruct-Turbo-served-by-a-long-deployment-name@http://gpu-17.internal:8765/v1"
LEARNED = ("learned(batch=50,budget=0,calib=200,doc_tokens=400,feedback_z=40,per_topic=query,seed=0,"
           "signals=pmi+ql+dense+lexical+pool+feedback)")
STATE = {"state": "partial", "left": {"limit": 22, "errors": 2}, "people": {},
         "todo": "22 holes not judged yet (--limit 4): run `qrelkit fill -w /a/rather/long/workspace/path/ws-2026 "
                 "--limit N` with a larger N; 2 calls failed: run `qrelkit fill -w /a/rather/long/workspace/path/"
                 "ws-2026` again to retry them", "at": 0.0}


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("boxes") / "report.html"
    warnings = (CircularityWarning("llama-reranker-" + "x" * 60, MODEL, MODEL, "llama"),
                DenseSignalWarning("dense", "", LEARNED))  # the demo's: a method id with no space to break at
    write_report(ReportInputs(circularity=warnings, state=STATE), out)
    return out


# How far an element's right edge lies past main's inner edge (<= 0: inside)
PAST_MAIN = """sel => {
  const e = document.querySelector(sel), m = document.querySelector('main');
  const inner = m.getBoundingClientRect().right - parseFloat(getComputedStyle(m).paddingRight);
  return Math.max(e.getBoundingClientRect().right, e.getBoundingClientRect().left + e.scrollWidth) - inner;
}"""


@pytest.mark.parametrize("width", [800, 1280])
@pytest.mark.parametrize("box", ["div.warn:nth-of-type(1)", "div.warn:nth-of-type(2)", "#job-state"])
def test_a_box_above_the_sections_ends_inside_the_page(report, tmp_path, width, box):
    sync_api = pytest.importorskip("playwright.sync_api", reason="browser tests need the playwright package")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": 700})
            page.goto(report.as_uri())
            page.screenshot(path=str(tmp_path / f"boxes-{width}.png"))
            keep = os.environ.get("QRELKIT_SCREENSHOTS")
            if keep:
                shutil.copy(tmp_path / f"boxes-{width}.png", Path(keep) / f"boxes-{width}.png")
            past = page.evaluate(PAST_MAIN, box)
        finally:
            browser.close()
    assert past <= 0.5


def test_the_state_box_names_the_state_and_counts_what_is_left(report):
    text = " ".join(report.read_text().split())
    assert "Job state: partial</b> — holes left: 22 not judged yet (--limit, or interrupted), 2 failed calls" in text
