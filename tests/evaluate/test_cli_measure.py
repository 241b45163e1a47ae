"""The measuring commands end to end on small hand-made files (fast)."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from qrelkit.cli import app, main
from qrelkit.data import write_qrels, write_run
from qrelkit.evaluate.systems import evaluate_runs

from .helpers import random_collection

runner = CliRunner()


def invoke(*args: str) -> dict:
    res = runner.invoke(app, [str(a) for a in args])
    if res.exit_code != 0:
        raise AssertionError(f"exit {res.exit_code}: {res.output}\n{res.exception!r}")
    return json.loads(res.stdout)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("measure")
    runs, qrels = random_collection(seed=21, n_runs=5, n_topics=5)
    for r in runs:
        write_run(d / "runs" / f"{r.name}.run", r)
    write_qrels(d / "a.qrels", qrels)
    other = {p: max(0, g - 1) if int(p[1][1:]) % 3 == 0 else g for p, g in qrels.items()}
    write_qrels(d / "b.qrels", other)
    assessor = {p: min(3, g + 1) for p, g in list(qrels.items())[::2]}
    write_qrels(d / "x.qrels", assessor)
    write_qrels(d / "y.qrels", {p: g for p, g in list(qrels.items())[::3]})
    (d / "gen.tsv").write_text("".join(f"{r.name}\tq{i}\t{(i + j) % 2}\n" for j, r in enumerate(runs) for i in range(5)))
    return d, runs, qrels, other


def test_evaluate_json(files):
    d, runs, qrels, other = files
    out = invoke("evaluate", "--runs", d / "runs", "--qrels", d / "a.qrels", "--qrels", d / "b.qrels",
                 "--bootstrap", "100", "--json")
    assert list(out["versions"]) == ["a", "b"]
    assert out["measures"] == ["nDCG@10", "P@10", "RR@10", "R@100", "AP@1000", "Success@10", "Judged@10"]
    direct = evaluate_runs(runs, other, ["nDCG@10"])
    for name, scores in out["versions"]["b"]["systems"].items():
        assert scores["nDCG@10"] == pytest.approx(direct.mean_of(name, "nDCG@10"))
    (cmp,) = out["comparisons"]
    assert (cmp["a"], cmp["b"]) == ("a", "b")
    for k in ("kendall_tau", "tau_ap", "spearman_rho", "rbo"):
        assert -1 <= cmp[k] <= 1 and len(cmp["ci"][k]) == 2
    assert {"matthews_corrcoef", "reversed"} <= set(cmp["significance"])
    assert len(cmp["systems"]) == len(runs)


def test_evaluate_measures_threshold_judged_only(files, tmp_path):
    d, runs, qrels, _ = files
    out = invoke("evaluate", "--runs", d / "runs", "--qrels", d / "a.qrels", "--measures", "P@5,nDCG@5",
                 "--threshold", "1", "--judged-only", "--json")
    assert out["measures"] == ["P@5", "nDCG@5"] and out["judged_only"] and out["threshold"] == 1
    direct = evaluate_runs(runs, qrels, ["P@5"], threshold=1, judged_only=True)
    assert out["versions"]["a"]["systems"]["sys2"]["P@5"] == pytest.approx(direct.mean_of("sys2", "P@5"))
    meta = tmp_path / "meta.json"
    meta.write_text(json.dumps({"sys1": {"model": "Qwen2.5-7B"}, "sys2": {"model": "monoT5"}}))
    out = invoke("evaluate", "--runs", d / "runs", "--qrels", d / "a.qrels", "--measures", "P@5",
                 "--run-meta", meta, "--judge-model", "qwen3:8b", "--json")
    assert [c["run"] for c in out["circularity"]] == ["sys1"]


def test_agree_json(files):
    d, *_ = files
    out = invoke("agree", "--reference", d / "a.qrels", "--labels", d / "b.qrels", "--json")
    for k in ("balanced_accuracy", "cohen_kappa", "cohen_kappa_graded", "cohen_kappa_linear",
              "krippendorff_alpha", "per_topic_f1", "confusion_matrix"):
        assert k in out
    assert out["results"][0]["name"] == "b"
    multi = invoke("agree", "--reference", d / "a.qrels", "--labels", d / "x.qrels", "--labels", d / "y.qrels",
                   "--json")
    assert len(multi["results"]) == 2 and "fleiss_kappa" in multi["assessors"]
    assert multi["assessors"]["pairwise"][0]["overlap"] is not None


def test_agree_assessor_column(tmp_path):
    f = tmp_path / "multi.qrels"
    f.write_text("q1 A d1 2\nq1 B d1 3\nq1 A d2 0\nq1 B d2 0\nq1 A d3 1\nq1 B d3 2\n")
    out = invoke("agree", "--labels", f, "--assessor-column", "--json")
    assert out["assessors"]["assessors"] == ["A", "B"]
    assert out["assessors"]["fleiss_pairs"] == 3


def test_stability_json(files):
    d, *_ = files
    out = invoke("stability", "--runs", d / "runs", "--primary", d / "a.qrels", "--assessors", d / "x.qrels",
                 "--assessors", d / "y.qrels", "--samples", "500", "--seed", "3", "--json")
    assert out["samples"] == 500 and out["systems"] == 5
    for k in ("kendall_tau", "tau_ap", "spearman_rho", "rbo"):
        assert set(out[k]) >= {"mean", "std", "p025", "p975"}
    assert set(out["aggregations"]) == {"max", "min", "mean"}
    assert set(out["rankers"]) == {"x", "y", "aggregated max", "aggregated min", "aggregated mean"}
    assert "nDCG@10" in out["rankers"]["x"]


def test_leave_out_json(files, tmp_path):
    d, runs, *_ = files
    groups = tmp_path / "groups.tsv"
    groups.write_text("".join(f"{r.name}\t{'G' if i < 2 else 'H'}\n" for i, r in enumerate(runs)))
    out = invoke("simulate", "leave-out", "--runs", d / "runs", "--qrels", d / "a.qrels", "--groups", groups,
                 "--depth", "5", "--json")
    assert [g["group"] for g in out["groups"]] == ["G", "H"]
    assert out["depth"] == 5 and out["measures"] == ["nDCG@10", "P@10", "AP@1000"]


def test_ragalign_json(files):
    d, *_ = files
    out = invoke("ragalign", "--runs", d / "runs", "--qrels", d / "a.qrels", "--qrels", d / "b.qrels",
                 "--generation", d / "gen.tsv", "--k", "5", "--json")
    assert list(out["versions"]) == ["a", "b"]
    assert 0 <= out["versions"]["a"]["ragalign"] <= 1
    assert "nDCG@5" in out["versions"]["a"]["pointbiserial"]


def test_tables_go_to_stderr(files):
    d, *_ = files
    res = runner.invoke(app, ["evaluate", "--runs", str(d / "runs"), "--qrels", str(d / "a.qrels"),
                              "--measures", "P@5"])
    assert res.exit_code == 0 and res.stdout == ""
    assert "P@5" in res.stderr


@pytest.mark.parametrize("args, message", [
    (["agree", "--reference", "{d}/a.qrels"], "--labels"),
    (["evaluate", "--runs", "{d}/runs"], "--qrels"),
    (["evaluate", "--runs", "{d}/nope", "--qrels", "{d}/a.qrels"], "no such file"),
    (["evaluate", "--runs", "{d}/runs", "--qrels", "{d}/a.qrels", "--measures", "Bogus@3"], "unknown measure"),
    (["ragalign", "--runs", "{d}/runs", "--qrels", "{d}/a.qrels", "--generation", "{d}/a.qrels"], "a.qrels:1"),
    (["simulate", "leave-out", "--runs", "{d}/runs", "--qrels", "{d}/gen.tsv"], "gen.tsv:1"),
    (["holes", "--runs", "{d}/runs", "--qrels", "{d}/a.qrels", "--saturation"], "counts newly identified holes"),
    (["evaluate", "--runs", "{d}/runs", "--qrels", "{d}/a.qrels", "--threshold", "zero"], "'auto' or an integer"),
])
def test_user_errors_exit_2(files, capsys, args, message):
    d, *_ = files
    with pytest.raises(SystemExit) as e:
        main([a.format(d=d) for a in args])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_variadic_runs(files, capsys):
    d, runs, *_ = files
    paths = [str(d / "runs" / f"{r.name}.run") for r in runs[:3]]
    try:
        main(["evaluate", "--runs", *paths, "--qrels", str(d / "a.qrels"), "--measures", "P@5", "--json"])
    except SystemExit as e:
        assert e.code in (0, None)
    out = json.loads(capsys.readouterr().out)
    assert out["runs"] == 3


COMMANDS = {
    "evaluate": lambda d, q: ["evaluate", "--runs", d / "runs", "--qrels", q, "--bootstrap", "0"],
    "agree": lambda d, q: ["agree", "--reference", q, "--labels", d / "b.qrels"],
    "stability": lambda d, q: ["stability", "--runs", d / "runs", "--primary", q, "--assessors", d / "x.qrels",
                               "--samples", "20", "--shuffles", "1"],
    "simulate": lambda d, q: ["simulate", "leave-out", "--runs", d / "runs", "--qrels", q],
    "ragalign": lambda d, q: ["ragalign", "--runs", d / "runs", "--qrels", q, "--generation", d / "gen.tsv"],
    "holes": lambda d, q: ["holes", "--runs", d / "runs", "--qrels", q],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("qrels, given, value, source", [
    ("a.qrels", None, 2, "auto-graded"), ("bin.qrels", None, 1, "auto-binary"), ("a.qrels", "1", 1, "given")])
def test_every_command_states_its_threshold(files, command, qrels, given, value, source):
    d, _, graded, _ = files
    if not (d / "bin.qrels").exists():
        write_qrels(d / "bin.qrels", {p: int(g >= 2) for p, g in graded.items()})
    args = COMMANDS[command](d, d / qrels) + (["--threshold", given] if given else []) + ["--json"]
    out = invoke(*args)
    assert (out["threshold"], out["threshold_source"]) == (value, source)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_refuses_a_threshold_above_the_largest_grade(files, capsys, command):
    d, _, graded, _ = files
    if not (d / "bin.qrels").exists():
        write_qrels(d / "bin.qrels", {p: int(g >= 2) for p, g in graded.items()})
    with pytest.raises(SystemExit) as e:
        main([str(a) for a in COMMANDS[command](d, d / "bin.qrels") + ["--threshold", "3"]])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert f"{d / 'bin.qrels'}: --threshold 3 is above the largest grade in this file (1)" in " ".join(err.split())
