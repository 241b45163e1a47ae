"""The relevance threshold: auto-binary, auto-graded, given; and binary measures
on a real collection equal ir_measures with the same relevance level."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from qrelkit.cli import app
from qrelkit.data import load_qrels, write_qrels
from qrelkit.errors import InputError, UsageError
from qrelkit.relevance import parse_threshold, resolve_threshold

from .helpers import dl19

runner = CliRunner()
BINARY = {("q", "a"): 1, ("q", "b"): 0}
GRADED = {("q", "a"): 3, ("q", "b"): 1}


@pytest.mark.parametrize("spec, qrels, value, source", [
    ("auto", BINARY, 1, "auto-binary"),
    ("auto", GRADED, 2, "auto-graded"),
    (None, BINARY, 1, "auto-binary"),
    ("auto", {}, 2, "auto-graded"),
    ("1", GRADED, 1, "given"),
    (3, GRADED, 3, "given"),
    ("1", BINARY, 1, "given"),
])
def test_resolve(spec, qrels, value, source):
    t = resolve_threshold(spec, qrels, "x.qrels")
    assert (t.value, t.source) == (value, source)


def test_to_dict_and_title():
    t = resolve_threshold("auto", BINARY)
    assert t.to_dict() == {"threshold": 1, "threshold_source": "auto-binary"}
    assert t.describe() == "relevant = grade >= 1 (auto-binary)"


def test_given_above_the_largest_grade_names_file_and_grade():
    with pytest.raises(InputError) as e:
        resolve_threshold("2", BINARY, "binary.qrels")
    assert e.value.path == "binary.qrels"
    assert "largest grade in this file (1)" in e.value.problem


@pytest.mark.parametrize("bad", ["0", "-1", "two", "1.5"])
def test_bad_values(bad):
    with pytest.raises(UsageError):
        parse_threshold(bad)


# ---------------------------------------------------------- real collection
@pytest.fixture(scope="module")
def dl19_binary(tmp_path_factory):
    d = dl19()
    nist = load_qrels(d / "qrels.txt").pairs
    out = tmp_path_factory.mktemp("thr")
    write_qrels(out / "binary.qrels", {p: int(g >= 2) for p, g in nist.items()})
    runs = [d / "runs" / "official" / "ICT-BERT2.run.gz", d / "runs" / "official" / "ICT-CKNRM_B.run.gz"]
    return d, out / "binary.qrels", runs


def _ir_measures(qrels_path, runs, measures):
    import ir_measures

    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    out = {}
    for r in runs:
        agg = ir_measures.calc_aggregate(measures, qrels, list(ir_measures.read_trec_run(str(r))))
        out[r.name.split(".")[0]] = {str(m): v for m, v in agg.items()}
    return out


def _evaluate(qrels, runs, *extra):
    run_args = [a for r in runs for a in ("--runs", str(r))]
    res = runner.invoke(app, ["evaluate", *run_args, "--qrels", str(qrels),
                              "--measures", "P@10,AP@1000", "--bootstrap", "0", "--json", *extra])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_binary_collection_equals_ir_measures_rel_1(dl19_binary):
    import ir_measures

    _, binary, runs = dl19_binary
    ours = _evaluate(binary, runs)
    theirs = _ir_measures(binary, runs, [ir_measures.P @ 10, ir_measures.AP @ 1000])
    assert (ours["threshold"], ours["threshold_source"]) == (1, "auto-binary")
    for name, scores in theirs.items():
        assert ours["versions"]["binary"]["systems"][name]["P@10"] == pytest.approx(scores["P@10"], abs=1e-9)
        assert ours["versions"]["binary"]["systems"][name]["AP@1000"] == pytest.approx(scores["AP@1000"], abs=1e-9)


def test_graded_collection_equals_ir_measures_rel_2(dl19_binary):
    import ir_measures

    d, _, runs = dl19_binary
    ours = _evaluate(d / "qrels.txt", runs)
    theirs = _ir_measures(d / "qrels.txt", runs, [ir_measures.P(rel=2) @ 10, ir_measures.AP(rel=2) @ 1000])
    assert (ours["threshold"], ours["threshold_source"]) == (2, "auto-graded")
    for name, scores in theirs.items():
        assert ours["versions"]["qrels"]["systems"][name]["P@10"] == pytest.approx(scores["P(rel=2)@10"], abs=1e-9)
        assert ours["versions"]["qrels"]["systems"][name]["AP@1000"] == pytest.approx(
            scores["AP(rel=2)@1000"], abs=1e-9)


def test_given_threshold_above_largest_grade_is_exit_2(dl19_binary):
    _, binary, runs = dl19_binary
    p = subprocess.run([sys.executable, "-m", "qrelkit", "evaluate", "--runs", str(runs[0]), "--qrels", str(binary),
                        "--threshold", "2"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 2
    assert f"{binary}: --threshold 2 is above the largest grade in this file (1)" in p.stderr
    assert "Traceback" not in p.stderr
