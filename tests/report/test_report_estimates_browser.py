"""The report's estimates section in real Chromium: the forest plots load, the tables fit their card."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu"]
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"browser tests need Chromium at {CHROMIUM} (apt install chromium)"),
]


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    from test_cli_estimate import sampled_workspace

    sync_api = pytest.importorskip("playwright.sync_api", reason="browser tests need the playwright package")
    tmp = tmp_path_factory.mktemp("estimates")
    ws = sampled_workspace(tmp)
    out = tmp / "report.html"
    r = subprocess.run([sys.executable, "-m", "qrelkit", "report", "-w", str(ws), "--out", str(out)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            pg = browser.new_page(viewport={"width": 1280, "height": 900})
            pg.goto(out.as_uri() + "#estimates")
            pg.locator("#estimates").screenshot(path=str(tmp / "estimates.png"))
            keep = os.environ.get("QRELKIT_SCREENSHOTS")
            if keep:
                shutil.copy(tmp / "estimates.png", Path(keep) / "report-estimates.png")
            yield pg
        finally:
            browser.close()


def test_the_nav_links_to_the_estimates_section(page):
    assert page.locator('nav a[href="#estimates"]').count() == 1
    assert page.locator("#estimates h2").inner_text() == "Estimates"


def test_each_measure_has_a_forest_plot_that_loads(page):
    widths = page.eval_on_selector_all('#estimates img', "imgs => imgs.map(i => i.naturalWidth)")
    assert len(widths) == 2
    assert all(w > 300 for w in widths)


@pytest.mark.parametrize("table", ["estimates-table", "estimates-tied", "estimates-calibration"])
def test_an_estimates_table_ends_inside_its_card(page, table):
    past = page.evaluate("""id => {
      const t = document.getElementById(id), s = t.closest('section');
      return t.getBoundingClientRect().right - (s.getBoundingClientRect().right - parseFloat(getComputedStyle(s).paddingRight));
    }""", table)
    assert past <= 0


def test_the_table_lists_every_run_on_both_measures(page):
    assert page.locator("#estimates-table tr").count() == 1 + 6 * 2


def test_the_page_does_not_scroll_sideways(page):
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


def test_the_section_says_whether_the_judge_favours_a_run(page):
    heading = page.locator("#estimates h3", has_text="Runs the judge favours")
    assert heading.count() == 1
    assert "shares the judge's preferences" in page.locator("#estimates").inner_text()
