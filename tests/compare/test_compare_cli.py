"""`qrelkit compare` as a real subprocess against the scripted HTTP model server.

The server's debate agents agree on every document of these workspaces ("agree3" /
"agree0" texts), so a debate decides each case in round one with one call per agent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from browser import ARGS, CHROMIUM, needs_chromium
from fakeserver import serve

from qrelkit.store import Store
from qrelkit.types import Doc, Qrel, Topic


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    log = tmp_path_factory.mktemp("srv") / "requests.log"
    log.write_text("")
    with serve("compare.fake_judges", log) as url:
        yield f"openai:fake@{url}", log


def make_ws(path: Path, n: int = 120) -> Path:
    """``n`` labelled pairs over 4 topics: relevant (grade 3) texts say agree3, the others agree0;
    every sixth (non-relevant) text is "tricky": zero-shot calls it relevant."""
    with Store.create(path) as s:
        s.upsert_topics([Topic(f"q{i}", f"query {i}") for i in range(4)])
        s.upsert_docs([Doc(f"d{i}", f"passage {'agree3' if i % 2 else 'agree0'} number {i}{' tricky' if i % 6 == 0 else ''}")
                       for i in range(n)])
        s.upsert_qrels([Qrel(f"q{i % 4}", f"d{i}", 3 if i % 2 else 0) for i in range(n)])
    return path


def qrelkit(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.run([sys.executable, "-m", "qrelkit", *args], capture_output=True, text=True, env=env,
                          timeout=300)


def requests(log: Path) -> int:
    return len(log.read_text().split())


def compare(ws: Path, model: str, *args: str) -> dict:
    r = qrelkit("compare", "-w", str(ws), "--model", model, "--concurrency", "4", "--json", *args)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize(("method", "calls"), [("zero-shot", 50), ("debate(rounds=2)", 100)])
def test_a_method_makes_exactly_its_calls_on_a_50_pair_sample(server, tmp_path, method, calls):
    model, log = server
    ws = make_ws(tmp_path / "ws")
    before = requests(log)
    compare(ws, model, "--methods", method, "--sample", "50")
    assert requests(log) - before == calls


def test_a_second_call_with_another_method_judges_the_stored_sample_and_calls_nothing_for_the_first(server, tmp_path):
    model, log = server
    ws = make_ws(tmp_path / "ws")
    first = compare(ws, model, "--methods", "zero-shot", "--sample", "50", "--seed", "3")
    before = requests(log)
    second = compare(ws, model, "--methods", "zero-shot", "debate(rounds=2)")
    assert requests(log) - before == 100  # the debate's two agents on 50 pairs; zero-shot from the store
    assert second["draw"] == first["draw"]


def test_the_first_method_costs_no_new_call_when_judged_again(server, tmp_path):
    model, _ = server
    ws = make_ws(tmp_path / "ws")
    compare(ws, model, "--methods", "zero-shot", "--sample", "50")
    again = compare(ws, model, "--methods", "zero-shot")
    assert again["methods"][0]["new_calls"] == 0


def test_every_method_of_a_comparison_judges_the_same_pairs(server, tmp_path):
    model, _ = server
    ws = make_ws(tmp_path / "ws")
    compare(ws, model, "--methods", "zero-shot", "--sample", "50")
    compare(ws, model, "--methods", "debate(rounds=2)")
    with Store.open(ws) as s:
        pairs = {(q, d) for q, d, _ in s.comparison_sample("default").pairs}
        judged = {m: {(j.qid, j.docid) for j in s.judgments() if j.method == m} for m in s.judge_methods()}
    assert all(v == pairs for v in judged.values())


def test_a_different_draw_under_the_same_name_is_refused(server, tmp_path):
    model, _ = server
    ws = make_ws(tmp_path / "ws")
    compare(ws, model, "--methods", "zero-shot", "--sample", "50")
    r = qrelkit("compare", "-w", str(ws), "--model", model, "--methods", "zero-shot", "--sample", "60")
    assert r.returncode == 2 and "was drawn as" in r.stderr


def test_the_cost_table_counts_calls_and_tokens_per_case(server, tmp_path):
    model, _ = server
    ws = make_ws(tmp_path / "ws")
    out = compare(ws, model, "--methods", "debate(rounds=2)", "--sample", "50")
    m = out["methods"][0]
    assert (m["calls_per_case"], m["tokens_per_case"]) == (2.0, 240.0)  # 2 calls x (100 + 20) tokens


def test_the_interval_contains_the_point_estimate(server, tmp_path):
    model, _ = server
    ws = make_ws(tmp_path / "ws")
    m = compare(ws, model, "--methods", "zero-shot", "--sample", "50")["methods"][0]
    assert m["balanced_accuracy_low"] < m["balanced_accuracy"] < m["balanced_accuracy_high"]


def test_the_interval_is_the_same_for_the_same_seed(server, tmp_path):
    model, _ = server
    ws = make_ws(tmp_path / "ws")
    a = compare(ws, model, "--methods", "zero-shot", "--sample", "50", "--seed", "5")["methods"][0]
    b = compare(ws, model, "--methods", "zero-shot")["methods"][0]  # the stored sample's seed
    assert (a["balanced_accuracy_low"], a["balanced_accuracy_high"]) == (b["balanced_accuracy_low"],
                                                                          b["balanced_accuracy_high"])


def test_a_preset_prints_the_published_and_the_measured_column(server, tmp_path):
    model, _ = server
    ws = make_ws(tmp_path / "ws")
    r = qrelkit("compare", "-w", str(ws), "--model", model, "--preset", "dream-rounds", "--sample", "20",
                "--concurrency", "4")
    assert r.returncode == 0, r.stderr
    assert "published" in r.stderr and "measured" in r.stderr and "| 0.933 |" in r.stderr


def test_a_preset_fills_the_measured_cell_of_a_row_it_judged(server, tmp_path):
    model, _ = server
    ws = make_ws(tmp_path / "ws")
    out = compare(ws, model, "--preset", "dream-rounds", "--sample", "20")
    row = next(r for r in out["preset"]["rows"]
               if r["row"] == "DREAM R=2, people" and r["figure"] == "balanced_accuracy_overall")
    assert (row["published"], row["measured"]) == (0.951, 1.0)


def test_a_confidence_method_gets_a_curve_at_the_four_budgets(server, tmp_path):
    model, _ = server
    ws = make_ws(tmp_path / "ws")
    out = compare(ws, model, "--methods", "learned(signals=lexical,budget=12.5%)", "--sample", "50")
    points = out["budget_curves"][0]["points"]
    assert [(p["budget"], p["escalation_ratio"]) for p in points] == [
        ("3.5%", 0.02), ("12.5%", 0.12), ("25%", 0.24), ("50%", 0.5)]  # floor(budget x 50 pairs)


def test_the_curve_names_the_agreement_method_it_must_match(server, tmp_path):
    model, _ = server
    ws = make_ws(tmp_path / "ws")
    out = compare(ws, model, "--methods", "debate(rounds=2)", "learned(signals=lexical,budget=50%)", "--sample", "50")
    curve = out["budget_curves"][0]
    assert (curve["target"], curve["target_balanced_accuracy"]) == ("debate(rounds=2)", 1.0)


@pytest.mark.browser
@needs_chromium
def test_the_html_page_shows_both_figures_in_chromium(server, tmp_path):
    from playwright.sync_api import sync_playwright

    model, _ = server
    ws = make_ws(tmp_path / "ws")
    page_path = tmp_path / "out" / "compare.html"
    compare(ws, model, "--methods", "zero-shot", "learned(signals=lexical,budget=25%)", "--sample", "50",
            "--html", str(page_path))
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page()
            page.goto(page_path.as_uri())
            widths = page.eval_on_selector_all("img", "els => els.map(e => e.naturalWidth)")
        finally:
            browser.close()
    assert len(widths) == 2 and all(w > 100 for w in widths)


def test_the_html_page_is_written_without_leaving_a_temporary_file(server, tmp_path):
    model, _ = server
    ws = make_ws(tmp_path / "ws")
    out_dir = tmp_path / "out"
    compare(ws, model, "--methods", "zero-shot", "--sample", "20", "--html", str(out_dir / "c.html"))
    assert [p.name for p in out_dir.iterdir()] == ["c.html"]


def test_the_persistence_preset_fills_every_round(server, tmp_path):
    model, _ = server
    ws = make_ws(tmp_path / "ws")
    out = compare(ws, model, "--preset", "dream-persistence", "--sample", "10")
    measured = {r["row"]: r["measured"] for r in out["preset"]["rows"] if r["figure"] == "persistence"}
    assert measured == {"R2": 1.0, "R3": 1.0, "R4": 1.0, "R5": 1.0}  # scripted agents never change their minds


def test_rows_of_a_mixed_debate_are_left_unmeasured_without_a_second_model():
    from qrelkit.compare.presets import preset

    assert not any("models=" in m for m in preset("dream-ablations").methods())


@pytest.mark.parametrize("name", ["dream-table1", "dream-rounds", "dream-ablations", "dream-persistence", "rcl",
                                  "shelf-life", "bridge"])
def test_every_preset_row_names_its_table_and_the_paper_file_it_was_checked_against(name):
    from qrelkit.compare.presets import preset

    assert all(r.table and r.source[:3] in ("000", "001", "002", "003") for r in preset(name).rows)


def test_the_bridge_preset_fills_a_systems_row_with_its_hole_at_10():
    from qrelkit.data import load_qrels, read_runs
    from qrelkit.evaluate.holes import hole_at_k

    demo = Path(__file__).resolve().parents[2] / "src" / "qrelkit" / "demo"
    runs = sorted(str(p) for p in demo.glob("*.run"))
    r = qrelkit("compare", "--preset", "bridge", "--runs", *runs, "--reference", str(demo / "qrels.txt"),
                "--new-qrels", str(demo / "qrels.full.txt"), "--json")
    assert r.returncode == 0, r.stderr
    row = next(x for x in json.loads(r.stdout)["preset"]["rows"] if x["row"] == "Splade" and x["figure"] == "hole_at_10")
    expected = hole_at_k(read_runs(runs), load_qrels(str(demo / "qrels.txt")), load_qrels(str(demo / "qrels.full.txt")))
    assert (row["published"], row["measured"]) == (0.19, expected["splade"])


def test_budgets_after_one_flag_are_the_curves_points(server, tmp_path):
    model, _ = server
    ws = make_ws(tmp_path / "ws")
    out = compare(ws, model, "--methods", "learned(signals=lexical,budget=10%)", "--sample", "50",
                  "--budgets", "10%", "20%")
    assert [p["budget"] for p in out["budget_curves"][0]["points"]] == ["10%", "20%"]
