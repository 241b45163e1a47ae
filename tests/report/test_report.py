"""The HTML report and its JSON twin: explicit inputs, empty inputs, a workspace,
and a real rendering in headless Chromium."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qrelkit.cli import app
from qrelkit.evaluate.agreement import compare_labels
from qrelkit.evaluate.compare import compare_versions
from qrelkit.evaluate.holes import hole_rates
from qrelkit.evaluate.saturation import pool_growth
from qrelkit.evaluate.systems import evaluate_runs, evaluate_versions
from qrelkit.merge import merge
from qrelkit.report import ReportInputs, write_report
from qrelkit.store import Store

from .helpers import build_workspace, random_collection

SECTIONS = ["System scores", "Holes", "Pool saturation", "Agreement", "Escalations", "Cost and calls", "Narratives",
            "Provenance", "Plan and version"]


def assert_self_contained(html: str) -> None:
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html), "external resource in the report"
    assert "<link" not in html and "@import" not in html and "<script" not in html


def explicit_inputs(evil_name: str = "sys0") -> ReportInputs:
    runs, qrels = random_collection(seed=4)
    runs[0] = type(runs[0])(name=evil_name, path=runs[0].path, by_topic=runs[0].by_topic, tags=runs[0].tags)
    after = {p: min(3, g + 1) if i % 5 == 0 else g for i, (p, g) in enumerate(sorted(qrels.items()))}
    before_s, after_s = evaluate_versions(runs, [("before", qrels), ("after", after)], ["nDCG@10", "P@10"])
    return ReportInputs(
        title="explicit",
        versions=(before_s, after_s),
        comparison=compare_versions(before_s, after_s, measure="nDCG@10", bootstrap=50),
        holes=hole_rates(runs, qrels, after, 10),
        saturation=pool_growth(runs, qrels, after, orders=3),
        agreements=(compare_labels(qrels, after, name="after vs before"),),
        agreement_reference="before",
        narratives=(("q1", "A <b>bold</b> claim & more"),),
        provenance=(("labels from original", len(qrels)),),
    )


def test_explicit_inputs(tmp_path):
    files = write_report(explicit_inputs(evil_name="<script>alert('x')</script>"), tmp_path / "r.html")
    html = files.html.read_text()
    assert files.json == tmp_path / "report.json"
    for name in SECTIONS:
        assert f"<h2>{name}</h2>" in html
    assert html.count("data:image/png;base64,") >= 4  # scores, holes, saturation, confusion
    assert "&lt;script&gt;alert(" in html and "<script>alert" not in html  # autoescaped
    assert "A &lt;b&gt;bold&lt;/b&gt; claim &amp; more" in html
    assert_self_contained(html)
    data = json.loads(files.json.read_text())
    assert data["scores"]["available"] and len(data["scores"]["systems"]) == 6
    assert data["scores"]["comparison"]["kendall_tau"] is not None
    assert not data["escalations"]["available"] and not data["costs"]["available"]
    assert files.sections["escalations"] == data["escalations"]["reason"]


def test_one_version_of_the_labels_is_shown_as_one(tmp_path):
    # a workspace without original qrels has only its merged labels: no "merged (before) and
    # merged (after)", no zero deltas, one series in the chart
    runs, qrels = random_collection(seed=4)
    (only,) = evaluate_versions(runs, [("merged", qrels)], ["nDCG@10"])
    files = write_report(ReportInputs(title="one", versions=(only,)), tmp_path / "one.html")
    html = files.html.read_text()
    scores = html[html.index('<section id="scores">'):html.index('<section id="holes">')]
    assert "(before)" not in scores and "rank before" not in scores and "Δ" not in scores
    assert "under <b>merged</b>, the only labels here" in scores
    assert scores.count("data:image/png;base64,") == 1 and 'alt="scores per system"' in scores
    assert scores.count("<tr>") == 1 + 6  # the header and the six systems
    data = json.loads(files.json.read_text())["scores"]
    assert data["one_version"] is True and data["before"] == data["after"] == "merged"
    two = json.loads(write_report(explicit_inputs(), tmp_path / "two.html").json.read_text())["scores"]
    assert two["one_version"] is False


def test_one_run_has_no_growth_curve(tmp_path):
    # a pool of one run: the growth "curve" is one step (it used to draw one bar from 0.6 to 1.4)
    runs, qrels = random_collection(seed=4)
    after = {p: min(3, g + 1) if i % 5 == 0 else g for i, (p, g) in enumerate(sorted(qrels.items()))}
    one = write_report(ReportInputs(saturation=pool_growth(runs[:1], qrels, after, orders=3)), tmp_path / "a.html")
    two = write_report(ReportInputs(saturation=pool_growth(runs[:2], qrels, after, orders=3)), tmp_path / "b.html")
    section = [h[h.index('<section id="saturation">'):h.index('<section id="agreement">')]
               for h in (one.html.read_text(), two.html.read_text())]
    assert "no growth curve to draw" in section[0] and 'alt="pool growth"' not in section[0]
    assert 'alt="pool growth"' in section[1] and "no growth curve" not in section[1]
    assert '<table id="marginal-table">' in section[0]  # the run's own contribution is still listed


def test_holes_that_move_no_hit_are_explained(tmp_path):
    # every run's first document is a known relevant one, so a hole lower in a top 10 cannot change
    # Hit@10: the panel says why its bars are all zero (the demo showed a silent row of zeros), and
    # nDCG@10 on the same labels moves and needs no such note
    runs, _ = random_collection(seed=4)
    original = {(q, r.by_topic[q][0].docid): 3 for r in runs for q in r.by_topic}
    after = dict(original)
    after.update({(q, r.by_topic[q][4].docid): 2 for r in runs for q in r.by_topic if (q, r.by_topic[q][4].docid)
                  not in original})
    html = {}
    for measure in ("Hit@10", "nDCG@10"):
        growth = pool_growth(runs, original, after, orders=3, measure=measure)
        assert growth.holes > 0
        files = write_report(ReportInputs(saturation=growth), tmp_path / f"{measure}.html")
        html[measure] = files.html.read_text()
        data = json.loads(files.json.read_text())["saturation"]
        assert data["unmoved"] is (measure == "Hit@10")
        assert any(data["growth"]["marginal_contribution"]) is (measure != "Hit@10")
    assert 'id="saturation-unmoved"' in html["Hit@10"] and "already had a known relevant document" in html["Hit@10"]
    assert 'id="saturation-unmoved"' not in html["nDCG@10"]


def test_empty_inputs_say_so(tmp_path):
    files = write_report(ReportInputs(), tmp_path / "empty.html")
    html = files.html.read_text()
    for name in SECTIONS:
        assert f"<h2>{name}</h2>" in html
    assert html.count("No data:") == len(SECTIONS)
    data = json.loads(files.json.read_text())
    assert all(not v["available"] for v in data.values() if isinstance(v, dict) and "available" in v)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return build_workspace(tmp_path_factory.mktemp("ws"))


def test_saturation_measure_through_the_cli(workspace, tmp_path):
    out = tmp_path / "sat" / "report.html"
    res = CliRunner().invoke(app, ["report", "-w", str(workspace), "--out", str(out), "--orders", "2",
                                   "--saturation-measure", "nDCG@10", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(Path(json.loads(res.stdout)["json"]).read_text())["saturation"]["measure"] == "nDCG@10"
    bad = subprocess.run([sys.executable, "-m", "qrelkit", "report", "-w", str(workspace), "--out",
                          str(tmp_path / "bad.html"), "--saturation-measure", "MAP"], capture_output=True, text=True)
    assert bad.returncode == 2 and "not 'MAP'" in bad.stderr and "Traceback" not in bad.stderr
    assert not (tmp_path / "bad.html").exists()  # refused before any work


def test_workspace_report_through_the_cli(workspace, tmp_path):
    out = tmp_path / "out" / "report.html"
    res = CliRunner().invoke(app, ["report", "-w", str(workspace), "--out", str(out), "--orders", "3", "--json"])
    assert res.exit_code == 0, res.output
    payload = json.loads(res.stdout)
    assert payload["html"] == str(out) and Path(payload["json"]).exists()
    assert (payload["threshold"], payload["threshold_source"]) == (2, "auto-graded")
    assert all(v == "ok" for v in payload["sections"].values()), payload["sections"]
    data = json.loads(Path(payload["json"]).read_text())
    html = out.read_text()
    assert_self_contained(html)
    # independent: scores under the original and the merged qrels
    with Store.open(workspace) as store:
        original = store.qrels()
        merged = {(m.qid, m.docid): m.grade for m in merge(store).labels}
        runs_paths = store.runs()
        judgments = store.judgments()
    from qrelkit.data import read_run

    runs = [read_run(p) for _, p, _ in runs_paths]
    before = evaluate_runs(runs, original, ["nDCG@10"])
    after = evaluate_runs(runs, merged, ["nDCG@10"])
    rows = {r["system"]: r for r in data["scores"]["systems"]}
    for r in runs:
        assert rows[r.name]["before"] == pytest.approx(before.mean_of(r.name, "nDCG@10"))
        assert rows[r.name]["after"] == pytest.approx(after.mean_of(r.name, "nDCG@10"))
    esc = [j for j in judgments if j.status in ("escalate", "error", "adjudicated")]
    assert data["escalations"]["total"] == len(esc)
    assert data["escalations"]["by_outcome"]["people"] == sum(
        1 for j in judgments if j.source == "human")
    costs = data["costs"]
    judged_calls = sum(j.calls for j in judgments)
    assert costs["total"]["calls"] == judged_calls + 1 and costs["total"]["judgments"] == len(judgments)
    assert [(n["model"], n["judgments"], n["calls"], n["prompt_tokens"]) for n in costs["narratives"]] == [
        ("openai:teacher", 1, 1, 900)]
    assert costs["narrative_share"]["calls"] == pytest.approx(1 / (judged_calls + 1))
    assert costs["narrative_share"]["cost_usd"] == pytest.approx(
        0.004 / (sum(j.cost_usd for j in judgments) + 0.004))
    assert "narrative generation (1 topic)" in html and "% of the calls" in html
    assert data["circularity"] and data["circularity"][0]["run"] == "sys1"
    agreement = data["agreement"]["results"][0]
    assert agreement["escalation_ratio"] == pytest.approx(len(esc) / sum(1 for j in judgments if j.source != "human"))
    assert "&lt;script&gt;" in html  # the narrative is escaped
    assert data["plan"]["job"]["kind"] == "fill"
    assert data["plan"]["settings"]["depth"] == 7
    assert data["qrelkit_version"] and 'id="plan-table"' in html


def test_workspace_report_holes_threshold_and_saturation(workspace, tmp_path):
    out = tmp_path / "report.html"
    res = CliRunner().invoke(app, ["report", "-w", str(workspace), "--out", str(out), "--orders", "2", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(Path(json.loads(res.stdout)["json"]).read_text())
    with Store.open(workspace) as store:
        original = store.qrels()
        merged = {(m.qid, m.docid): m.grade for m in merge(store).labels}
        runs_paths = store.runs()
    from qrelkit.data import read_run

    runs = [read_run(p) for _, p, _ in runs_paths]
    # independent Hole@10: newly relevant (not in the original, grade >= 2 after) in the top 10, / 10
    expect = []
    for r in runs:
        per_topic = [sum(1 for e in r.by_topic[q][:10] if (q, e.docid) not in original and merged.get((q, e.docid), 0) >= 2)
                     / 10 for q in sorted({q for q, _ in original}) if r.by_topic.get(q)]
        expect.append(sum(per_topic) / len(per_topic))
    assert sum(expect) > 0
    assert data["holes"]["mean_hole_rate"] == pytest.approx(sum(expect) / len(expect))
    assert (data["threshold"], data["threshold_source"]) == (2, "auto-graded")
    assert data["saturation"]["measure"] == "Hit@10"
    assert "Growth rate(t)" in out.read_text()


def test_holes_with_a_workspace_uses_its_merged_labels(workspace, tmp_path):
    res = CliRunner().invoke(app, ["holes", "-w", str(workspace), "--saturation", "--orders", "2", "--json"])
    assert res.exit_code == 0, res.output
    holes = json.loads(res.stdout)
    rep = CliRunner().invoke(app, ["report", "-w", str(workspace), "--out", str(tmp_path / "r.html"), "--json"])
    data = json.loads(Path(json.loads(rep.stdout)["json"]).read_text())
    for row in data["holes"]["runs"]:
        assert holes["runs"][row["run"]]["Hole@10"] == pytest.approx(row["hole_rate"])
    assert "note" not in holes
    assert holes["saturation"]["holes"] == data["saturation"]["holes"]


def test_agree_with_a_workspace(workspace):
    res = CliRunner().invoke(app, ["agree", "-w", str(workspace), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["reference"].endswith("(original qrels)")
    with Store.open(workspace) as store:
        judgments = [j for j in store.judgments() if j.method != "people"]
        original = store.qrels()
    debate = next(r for r in out["results"] if r["method"] == "debate(rounds=2)")
    escalated = sum(1 for j in judgments if j.status in ("escalate", "error", "adjudicated"))
    assert debate["escalation_ratio"] == pytest.approx(escalated / len(judgments))
    auto = [j for j in judgments if j.status in ("consensus", "auto") and (j.qid, j.docid) in original]
    correct = sum(1 for j in auto if j.label == int(original[(j.qid, j.docid)] >= 2))
    assert debate["auto_pairs"] == len(auto)
    assert debate["auto_accuracy"] == pytest.approx(correct / len(auto))
    assert set(debate["by_status"]) >= {"consensus", "adjudicated"}
    assert set(debate["by_round"]) >= {"1", "2"}


def test_empty_workspace(tmp_path):
    ws = tmp_path / "empty"
    Store.create(ws).close()
    res = CliRunner().invoke(app, ["report", "-w", str(ws), "--out", str(tmp_path / "r.html"), "--json"])
    assert res.exit_code == 0, res.output
    sections = json.loads(res.stdout)["sections"]
    assert all(v != "ok" for v in sections.values())
    assert "No data:" in (tmp_path / "r.html").read_text()


CHROMIUM = os.environ.get("QRELKIT_TEST_CHROMIUM", "/usr/bin/chromium")  # CI runs these once without it


@pytest.mark.browser
def test_rendered_in_headless_chromium(workspace, tmp_path):
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    out = tmp_path / "report.html"
    res = CliRunner().invoke(app, ["report", "-w", str(workspace), "--out", str(out), "--orders", "3"])
    assert res.exit_code == 0, res.output
    shot = tmp_path / "report.png"
    requests: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--no-first-run"])
        try:
            page = browser.new_page(viewport={"width": 1300, "height": 900})
            page.on("request", lambda r: requests.append(r.url))
            page.goto(out.as_uri())
            page.wait_for_load_state("load")
            headings = page.locator("h2").all_inner_texts()
            assert headings == SECTIONS
            n_systems = len(json.loads((tmp_path / "report.json").read_text())["scores"]["systems"])
            assert page.locator("#scores-table tr").count() == n_systems + 1
            assert page.locator("#agreement-table tr").count() >= 2
            assert page.locator("#escalations-table tr").count() > 1
            sizes = page.eval_on_selector_all("img", "els => els.map(e => [e.complete, e.naturalWidth])")
            assert len(sizes) >= 4 and all(done and width > 100 for done, width in sizes)
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    assert shot.stat().st_size > 50_000
    assert all(u.startswith(("file:", "data:")) for u in requests), requests
