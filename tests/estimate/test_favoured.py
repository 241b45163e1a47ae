"""Judge-favoured runs through `qrelkit estimate` on TREC DL 2019 (../shared/data): copies of official runs
re-ranked by the Llama-3.3-70B labels (the judge's grade first, the run's order within a grade, as
benchmarks/estimates.py builds them) are flagged, the official runs (nearly) never; the JSON entry, the
terminal table and the check's arithmetic."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from qrelkit.estimate.estimators import EstimateRow, Interval
from qrelkit.estimate.favoured import favoured_runs

LLM = "farzi_dl19_4prompts_llama3.3-70b"
COPIED = ("TUA1-1", "TUW19-p1-f", "TUW19-p3-re")


def qk(*args) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "qrelkit", *map(str, args)], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    return p


def write_copies(root: Path, out: Path) -> list[Path]:
    """Each copied run's top 100 re-ranked by the judge's grade, as a TREC run tagged ``NAME+judge``."""
    from qrelkit.data.qrels import load_qrels
    from qrelkit.data.runs import read_runs
    from qrelkit.estimate import rankings

    labels = dict(load_qrels(root / "llm-qrels" / f"{LLM}.qrel").pairs)
    runs = rankings(read_runs(root / "runs" / "official", max_depth=100))
    paths = []
    for name in COPIED:
        lines = []
        for q, docids in sorted(runs[name].items()):
            ranked = sorted(docids, key=lambda d: -labels.get((q, d), -1))
            lines += [f"{q} Q0 {d} {i} {len(ranked) - i} {name}+judge\n" for i, d in enumerate(ranked, 1)]
        paths.append(out / f"{name}+judge.run")
        paths[-1].write_text("".join(lines))
    return paths


@pytest.fixture(scope="module")
def dl2019(tmp_path_factory):
    from shared_data import shared_data_path

    root = shared_data_path("trec-dl-2019")
    tmp = tmp_path_factory.mktemp("favoured")
    runs = [root / "runs" / "official", *write_copies(root, tmp)]
    llm = root / "llm-qrels" / f"{LLM}.qrel"
    sample = tmp / "sample.tsv"
    qk("sample", "--runs", *runs, "--labels", llm, "--size", "926", "--seed", "1", "--out", sample)
    args = ["estimate", "--runs", *runs, "--labels", llm, "--people", root / "qrels.txt", "--sample", sample,
            "--measures", "P@10,nDCG@10"]
    return json.loads(qk(*args, "--json").stdout), qk(*args).stderr


@pytest.mark.realdata
@pytest.mark.parametrize("measure", ["P@10", "nDCG@10"])
def test_every_run_reranked_by_the_judge_is_flagged(dl2019, measure):
    out, _ = dl2019
    flagged = {f["run"] for f in out["favoured"] if f["measure"] == measure}
    assert {f"{n}+judge" for n in COPIED} <= flagged


@pytest.mark.realdata
@pytest.mark.parametrize("measure", ["P@10", "nDCG@10"])
def test_at_most_two_official_runs_are_flagged(dl2019, measure):
    out, _ = dl2019
    assert len([f for f in out["favoured"] if f["measure"] == measure and not f["run"].endswith("+judge")]) <= 2


@pytest.mark.realdata
def test_a_favoured_entry_has_the_gap_and_the_favour_with_their_intervals(dl2019):
    out, _ = dl2019
    rows = {(r["run"], r["measure"]): r for r in out["runs"]}
    for f in out["favoured"]:
        r = rows[f["run"], f["measure"]]
        assert f["gap"] == pytest.approx(r["labels_only"] - r["estimate"])
        assert (f["low"], f["high"]) == pytest.approx((r["labels_only"] - r["high"], r["labels_only"] - r["low"]))
        assert f["favour_low"] <= f["favour"] <= f["favour_high"]
        assert f["favour_low"] > f["expected"]
        assert f["p_value"] <= out["alpha"]
        assert f["flagged"] is True


@pytest.mark.realdata
def test_the_terminal_table_marks_the_flagged_runs_and_says_what_it_means(dl2019):
    _, err = dl2019
    assert "TUA1-1+judge ⚑" in err
    assert "⚑ judge-favoured runs" in err
    assert "  TUA1-1+judge (nDCG@10): labels-only minus estimate" in err
    assert "share the judge's preferences" in err


def row(run: str, estimate: float, labels_only: float, half: float = 0.02) -> EstimateRow:
    return EstimateRow(run, "P@10", estimate, estimate - half, estimate + half, labels_only,
                       Interval(estimate, estimate - 2 * half, estimate + 2 * half), 1.0)


def test_the_run_whose_non_relevant_pairs_the_judge_accepts_is_flagged_not_the_weak_one():
    """A weak run gains most in raw terms (0.3); the copy gains less but takes nearly all its room."""
    rows = [row("a", 0.5, 0.7), row("b", 0.6, 0.78), row("c", 0.55, 0.75), row("weak", 0.2, 0.5),
            row("d", 0.65, 0.82), row("copy", 0.6, 0.97)]
    flagged = {f.run for f in favoured_runs(rows) if f.flagged}
    assert flagged == {"copy"}


def test_a_wide_interval_keeps_a_run_from_being_flagged():
    rows = [row("a", 0.5, 0.7), row("b", 0.6, 0.78), row("c", 0.55, 0.75), row("copy", 0.6, 0.97, half=0.3)]
    assert not any(f.flagged for f in favoured_runs(rows))


def test_a_weak_run_above_a_steep_line_but_below_most_runs_favour_is_not_flagged():
    """Favour is not linear in quality: a straight line through the middle runs can pass below the weakest."""
    strong = [row(f"r{i}", e, e + (1.4 * e - 0.1) * (1 - e)) for i, e in enumerate(np.linspace(0.45, 0.7, 8))]
    found = {f.run: f for f in favoured_runs([*strong, row("weak", 0.1, 0.1 + 0.2 * 0.9)])}
    assert found["weak"].favour - found["weak"].expected > 0.1
    assert not found["weak"].flagged


def test_fill_and_builds_closing_line_names_the_favoured_runs():
    from qrelkit.job.run import _estimates_note

    out = {"available": True, "alpha": 0.05, "runs": [{"run": "a"}, {"run": "copy"}], "sample": {"labelled": 9},
           "favoured": [{"run": "copy", "measure": "P@10"}, {"run": "copy", "measure": "nDCG@10"}]}
    assert _estimates_note(Path("ws"), out).endswith("; the judge favours copy (see the report's Estimates)")
    assert "favours" not in _estimates_note(Path("ws"), {**out, "favoured": []})
