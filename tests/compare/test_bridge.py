"""The bridge preset's figures against examples worked by hand.

Three systems over two topics (binary qrels, so relevant = grade >= 1). Original labels:
q1 d1=1, d2=0; q2 e1=0. Hole filling adds q1 d3=1, d4=0; q2 e2=1, e3=1.

    run  q1 top   q2 top    Hole@10 (holes/10 per topic, mean)    Hit@10 before -> after
    a    d1 d2    e1        (0 + 0) / 2      = 0                  (1 + 0)/2 = 0.5 -> 0.5
    b    d3 d4    e2        (0.1 + 0.1) / 2  = 0.1                (0 + 0)/2 = 0   -> 1
    c    d1 d3    e2 e3     (0.1 + 0.2) / 2  = 0.15               (1 + 0)/2 = 0.5 -> 1

Generation correctness (a q1 1, a q2 0, b q1 1, b q2 1, c q1 1, c q2 0) against Hit@10 per
(system, query): before, a agrees twice, b never, c twice: 4/6; after, all but c q2: 5/6.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from qrelkit.data import read_runs

ORIGINAL = {("q1", "d1"): 1, ("q1", "d2"): 0, ("q2", "e1"): 0}
NEW = {("q1", "d3"): 1, ("q1", "d4"): 0, ("q2", "e2"): 1, ("q2", "e3"): 1}
RANKINGS = {"a": {"q1": ["d1", "d2"], "q2": ["e1"]}, "b": {"q1": ["d3", "d4"], "q2": ["e2"]},
            "c": {"q1": ["d1", "d3"], "q2": ["e2", "e3"]}}
CORRECT = {("a", "q1"): 1, ("a", "q2"): 0, ("b", "q1"): 1, ("b", "q2"): 1, ("c", "q1"): 1, ("c", "q2"): 0}


def write_runs(folder: Path, rankings: dict = RANKINGS) -> list[str]:
    folder.mkdir(exist_ok=True)
    for s, by_q in rankings.items():
        (folder / f"{s}.run").write_text("".join(f"{q} Q0 {d} {i} {10 - i} {s}\n"
                                                 for q, ds in by_q.items() for i, d in enumerate(ds, 1)))
    return [str(folder / f"{s}.run") for s in rankings]


def write_qrels(path: Path, labels: dict) -> str:
    path.write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), g in sorted(labels.items())))
    return str(path)


@pytest.fixture
def measured(tmp_path):
    from qrelkit.compare.bridge import measure
    from qrelkit.evaluate.ragalign import GenerationLabel
    from qrelkit.evaluate.ragalign_multi import Generator

    gen = Generator("g", "test", tuple(GenerationLabel(s, q, c) for (s, q), c in CORRECT.items()))
    return measure(read_runs(write_runs(tmp_path / "runs")), ORIGINAL, NEW, 1, [gen])


@pytest.mark.parametrize(("system", "figure", "value"), [
    ("a", "hole_at_10", 0.0), ("b", "hole_at_10", 0.1), ("c", "hole_at_10", 0.15), ("*", "hole_at_10", 0.25 / 3),
    ("a", "hit_at_10_before", 0.5), ("b", "hit_at_10_before", 0.0), ("c", "hit_at_10_before", 0.5),
    ("a", "hit_at_10_after", 0.5), ("b", "hit_at_10_after", 1.0), ("c", "hit_at_10_after", 1.0),
    ("b", "hit_at_10_gain", 1.0), ("c", "hit_at_10_gain", 0.5),
    ("*", "ragalign_before", 4 / 6), ("*", "ragalign_after", 5 / 6),
    ("b", "ragalign_before", 0.0), ("b", "ragalign_after", 1.0), ("c", "ragalign_after", 0.5),
])
def test_a_figure_of_the_hand_worked_collection_is_what_the_paper_defines(measured, system, figure, value):
    assert measured["systems"][system][figure] == pytest.approx(value)


def test_a_new_label_never_overrules_an_original_one(tmp_path):
    from qrelkit.compare.bridge import measure

    runs = read_runs(write_runs(tmp_path / "runs"))
    out = measure(runs, ORIGINAL, {**NEW, ("q2", "e1"): 1}, 1)
    assert out["systems"]["a"]["hit_at_10_after"] == 0.5  # e1 stays non-relevant, as the original says


# Figure 3 by hand: two systems with the same top lists, so every order gives the same curve.
# x = y: q1 [d2, d3], q2 [e2]; original q1 d1=1 (retrieved by neither), d2=0, q2 e1=1; new d3=1
# (the one detected hole) and e2=0 (a new label, not relevant: not a hole). The first system to
# join pools the hole: growth rate 1/1, then 0. Its joining lifts both systems' Hit@10 from
# (0 + 0)/2 to (1 + 0)/2: marginal contribution 0.5, then 0.
TWINS = {s: {"q1": ["d2", "d3"], "q2": ["e2"]} for s in ("x", "y")}


@pytest.mark.parametrize(("curve", "values"), [("growth_rate", [1.0, 0.0]),
                                                ("marginal_contribution", [0.5, 0.0]),
                                                ("found_fraction", [1.0, 1.0])])
def test_growth_and_marginal_contribution_follow_the_hand_worked_pool(tmp_path, curve, values):
    from qrelkit.compare.bridge import measure

    runs = read_runs(write_runs(tmp_path / "runs", TWINS))
    out = measure(runs, {("q1", "d1"): 1, ("q1", "d2"): 0, ("q2", "e1"): 1}, {("q1", "d3"): 1, ("q2", "e2"): 0}, 1)
    assert out["growth"]["growth"][curve] == pytest.approx(values)


def test_the_last_growth_step_fills_the_figure_3_row(tmp_path):
    from qrelkit.compare.bridge import measure

    runs = read_runs(write_runs(tmp_path / "runs", TWINS))
    out = measure(runs, {("q1", "d1"): 1, ("q1", "d2"): 0, ("q2", "e1"): 1}, {("q1", "d3"): 1}, 1)
    assert (out["systems"]["*"]["growth_rate_last"], out["systems"]["*"]["marginal_contribution_last"]) == (0.0, 0.0)


def qrelkit(*args: object) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.run([sys.executable, "-m", "qrelkit", *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=300)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> list[str]:
    tmp = tmp_path_factory.mktemp("files")
    gen = tmp / "correct.tsv"
    gen.write_text("".join(f"{s}\t{q}\t{c}\n" for (s, q), c in CORRECT.items()))
    return ["--runs", *write_runs(tmp / "runs"), "--reference", write_qrels(tmp / "orig.txt", ORIGINAL),
            "--new-qrels", write_qrels(tmp / "new.txt", NEW), "--generation", str(gen)]


@pytest.fixture(scope="module")
def preset_rows(files) -> dict:
    r = qrelkit("compare", "--preset", "bridge", *files, "--json")
    assert r.returncode == 0, r.stderr
    return {(x["table"], x["row"], x["figure"]): (x["published"], x["measured"])
            for x in json.loads(r.stdout)["preset"]["rows"]}


@pytest.mark.parametrize(("key", "published", "measured"), [
    (("Table 6", "average over the seven subsets", "ragalign_before"), 0.70, 4 / 6),
    (("Table 6", "average over the seven subsets", "ragalign_after"), 0.84, 5 / 6),
    (("Table 4", "average over the 25 systems", "hole_at_10"), 0.171, 0.25 / 3),
])
def test_the_preset_prints_the_published_column_beside_the_measured_one(preset_rows, key, published, measured):
    assert preset_rows[key] == (published, pytest.approx(measured))


def test_a_figure_3_row_has_a_measured_cell_and_no_published_one(preset_rows):
    key = ("Figure 3(a)", "growth rate when the last retriever joins (plotted: near zero; no value printed)",
           "growth_rate_last")
    assert preset_rows[key] == (None, 0.0)


def test_the_preset_table_has_a_published_and_a_measured_column(files):
    r = qrelkit("compare", "--preset", "bridge", *files)
    assert r.returncode == 0, r.stderr
    assert "| table | row | figure | published | measured | spec | source |" in r.stderr


def test_bridge_without_a_workspace_or_files_is_one_line_and_exit_2(tmp_path):
    r = qrelkit("compare", "--preset", "bridge", "--runs", *write_runs(tmp_path / "runs"))
    assert (r.returncode, r.stderr.count("\n"), "Traceback" in r.stderr) == (2, 1, False)


# A filled workspace: `fill` judges the holes with the scripted zero-shot judge (everything
# relevant: d3, d4, e2, e3), and the preset generates and grades the answers itself. The scripted
# generator answers with the first line of the first passage; an answer is correct when it says
# "right". First passages: a q1 d1, a q2 e1, b q1 d3, b q2 e2, c q1 d1, c q2 e2, so only a q2 is
# wrong. Hit@10 before: a 1 0, b 0 0, c 1 0 -> agrees on a q1, a q2, c q1: 3/6; after: 1 0, 1 1,
# 1 1 -> 6/6. Hole@10 with all four holes relevant: a 0, b (0.2 + 0.1)/2, c (0.1 + 0.2)/2.
DOCS = {"d1": "right alpha", "d2": "wrong one", "d3": "right beta", "d4": "wrong two", "e1": "wrong three",
        "e2": "right gamma", "e3": "wrong four"}


@pytest.fixture(scope="module")
def rag_server(tmp_path_factory):
    from fakeserver import serve

    log = tmp_path_factory.mktemp("srv") / "requests.log"
    log.write_text("")
    with serve("rag.fake_rag_server", log) as url:
        yield f"openai:fake@{url}", log


@pytest.fixture(scope="module")
def filled_ws(tmp_path_factory, rag_server) -> Path:
    model, _ = rag_server
    tmp = tmp_path_factory.mktemp("ws")
    (tmp / "topics.jsonl").write_text(json.dumps({"qid": "q1", "text": "first", "answers": ["alpha"]}) + "\n"
                                      + json.dumps({"qid": "q2", "text": "second", "answers": ["gamma"]}) + "\n")
    (tmp / "docs.jsonl").write_text("".join(json.dumps({"docid": d, "text": t}) + "\n" for d, t in DOCS.items()))
    ws = tmp / "ws"
    write_runs(tmp / "runs")
    r = qrelkit("fill", "-w", ws, "--topics", tmp / "topics.jsonl", "--docs", tmp / "docs.jsonl",
                "--qrels", write_qrels(tmp / "orig.txt", ORIGINAL), "--runs", tmp / "runs",
                "--model", model, "--method", "zero-shot", "--no-report", "--json")
    assert r.returncode == 0, r.stderr
    return ws


@pytest.fixture(scope="module")
def on_workspace(filled_ws, rag_server) -> dict:
    r = qrelkit("compare", "-w", filled_ws, "--preset", "bridge", "--model", rag_server[0], "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize(("figure", "value"), [("ragalign_before", 3 / 6), ("ragalign_after", 1.0),
                                                ("hole_at_10", (0 + 0.15 + 0.15) / 3)])
def test_the_preset_on_a_filled_workspace_measures_from_answers_it_generates(on_workspace, figure, value):
    assert on_workspace["bridge"]["*"][figure] == pytest.approx(value)


def test_a_second_bridge_call_on_the_workspace_asks_the_model_nothing(filled_ws, on_workspace, rag_server):
    model, log = rag_server
    before = len(log.read_text().splitlines())
    r = qrelkit("compare", "-w", filled_ws, "--preset", "bridge", "--model", model, "--json")
    assert (r.returncode, len(log.read_text().splitlines())) == (0, before)
