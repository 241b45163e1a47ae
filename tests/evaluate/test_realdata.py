"""The measuring commands on TREC DL 2019 (skipped without ../shared/data).

Every figure is checked against an independent computation in the test:
pytrec_eval for scores, scikit-learn for kappa, plain set arithmetic for the
leave-out pairs."""
from __future__ import annotations

import gzip
import json

import numpy as np
import pytest
import pytrec_eval
from sklearn.metrics import cohen_kappa_score
from typer.testing import CliRunner

from qrelkit.cli import app

from .helpers import dl19

pytestmark = pytest.mark.realdata
runner = CliRunner()
LLM = ("farzi_dl19_4prompts_flant5-large", "farzi_dl19_4prompts_llama3-8b", "farzi_dl19_4prompts_llama3.3-70b",
       "farzi_dl19_baseline_llama3-8b")


def invoke(*args) -> dict:
    res = runner.invoke(app, [str(a) for a in args])
    if res.exit_code != 0:
        raise AssertionError(f"exit {res.exit_code}: {res.output}\n{res.exception!r}")
    return json.loads(res.stdout)


def read_qrels(path) -> dict:
    out = {}
    for line in open(path):
        q, _, d, g = line.split()
        out.setdefault(q, {})[d] = int(g)
    return out


def read_run(path) -> dict:
    out = {}
    with gzip.open(path, "rt") as fh:
        for line in fh:
            q, _, d, _, s, _ = line.split()
            out.setdefault(q, {})[d] = float(s)
    return out


@pytest.fixture(scope="module")
def evaluated():
    d = dl19()
    args = ["evaluate", "--runs", d / "runs" / "official", "--runs", d / "runs" / "post-hoc", "--qrels", d / "qrels.txt"]
    for name in LLM:
        args += ["--qrels", d / "llm-qrels" / f"{name}.qrel"]
    return d, invoke(*args, "--bootstrap", "200", "--json")


def test_evaluate_61_runs_against_pytrec_eval(evaluated):
    d, out = evaluated
    assert out["runs"] == 61
    assert list(out["versions"]) == ["qrels", *LLM]
    nist = read_qrels(d / "qrels.txt")
    ev = pytrec_eval.RelevanceEvaluator(nist, {"ndcg_cut.10", "P.10", "recall.100", "map_cut.1000"},
                                        relevance_level=2)
    # run name (the file's tag) -> file
    for run, file in (("colbert", "colbert"), ("castorini/monot5-3b-msmarco", "mono-t5-3b"),
                      ("bm25base_p", "bm25base_p"), ("ICT-BERT2", "ICT-BERT2")):
        path = next(p for p in (d / "runs").glob("*/*.run.gz") if p.name == f"{file}.run.gz")
        res = ev.evaluate(read_run(path))
        got = out["versions"]["qrels"]["systems"][run]
        for key, pte in (("nDCG@10", "ndcg_cut_10"), ("P@10", "P_10"), ("R@100", "recall_100"),
                         ("AP@1000", "map_cut_1000")):
            assert got[key] == pytest.approx(np.mean([v[pte] for v in res.values()]), abs=1e-9), (run, key)
    # the 37 official runs were pooled to depth 10: (almost) fully judged -- one
    # UNH_exDL_bm25 passage differs, as NIST pooled by the file's rank, not trec_eval's order
    official = {p.name[:-7] for p in (d / "runs" / "official").glob("*.run.gz")}
    for run in official:
        assert out["versions"]["qrels"]["systems"][run]["Judged@10"] >= 0.99, run
    assert out["versions"]["qrels"]["systems"]["colbert_rankgpt4o"]["Judged@10"] < 0.99  # post-hoc runs have holes


def test_llm_qrels_versions_compared(evaluated):
    _, out = evaluated
    assert len(out["comparisons"]) == 4
    for c in out["comparisons"]:
        assert c["a"] == "qrels"
        assert 0.3 < c["kendall_tau"] <= 1.0
        lo, hi = c["ci"]["kendall_tau"]
        assert lo <= c["kendall_tau"] <= hi + 0.05
        assert len(c["systems"]) == 61
    # LLM labels are more lenient: scores go up on average
    strongest = next(c for c in out["comparisons"] if c["b"] == "farzi_dl19_4prompts_llama3.3-70b")
    assert np.mean([s["delta"] for s in strongest["systems"]]) > 0


@pytest.mark.parametrize("llm", LLM)
def test_agree_llm_vs_nist(llm):
    d = dl19()
    out = invoke("agree", "--reference", d / "qrels.txt", "--labels", d / "llm-qrels" / f"{llm}.qrel", "--json")
    nist = {(q, doc): g for q, docs in read_qrels(d / "qrels.txt").items() for doc, g in docs.items()}
    lab = {(q, doc): g for q, docs in read_qrels(d / "llm-qrels" / f"{llm}.qrel").items() for doc, g in docs.items()}
    pairs = sorted(nist)
    r = np.array([nist[p] for p in pairs])
    g = np.array([lab[p] for p in pairs])
    assert out["pairs"] == 9260
    assert out["cohen_kappa"] == pytest.approx(cohen_kappa_score(r >= 2, g >= 2))
    assert out["cohen_kappa_graded"] == pytest.approx(cohen_kappa_score(r, g))
    assert 0.05 < out["cohen_kappa"] < 0.7  # published LLM-vs-NIST kappas on DL 2019 sit around 0.2-0.5
    assert 0.5 < out["balanced_accuracy"] < 0.9
    assert sum(map(sum, out["confusion_matrix"]["matrix"])) == 9260


def test_stability_on_rejudgments():
    d = dl19()
    out = invoke("stability", "--runs", d / "runs" / "official", "--runs", d / "runs" / "post-hoc",
                 "--primary", d / "qrels.txt", "--assessors", d / "rejudgments" / "main", "--samples", "10000",
                 "--seed", "0", "--json")
    assert out["samples"] == 10000 and out["systems"] == 61 and out["topics"] == 43
    assert len(out["assessors"]) == 8 and out["topics_without_assessor"] == 0
    tau = out["kendall_tau"]
    assert 0.7 < tau["mean"] < 0.99 and tau["p025"] <= tau["median"] <= tau["p975"]
    assert 0 < out["rbo"]["mean"] <= 1
    assert all(0 < s["probability"] <= 1 for s in out["swap_probability"])
    for r in out["rankers"].values():
        assert 0 < r["nDCG@10"]["mean"] <= 1


def test_leave_out_official_runs():
    d = dl19()
    out = invoke("simulate", "leave-out", "--runs", d / "runs" / "official", "--qrels", d / "qrels.txt",
                 "--depth", "10", "--json")
    assert out["systems"] == 37
    groups = {g["group"]: g for g in out["groups"]}
    assert "ICT" in groups and "bm" in groups
    # independent count of the pairs only ICT's runs pooled at depth 10
    nist = read_qrels(d / "qrels.txt")
    top = {}
    for path in (d / "runs" / "official").glob("*.run.gz"):
        run = read_run(path)
        pairs = set()
        for q, docs in run.items():
            ranked = sorted(docs.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)[:10]
            pairs |= {(q, doc) for doc, _ in ranked}
        top[path.name[:-7]] = pairs
    ict = set().union(*(p for n, p in top.items() if n.startswith("ICT")))
    rest = set().union(*(p for n, p in top.items() if not n.startswith("ICT")))
    assert groups["ICT"]["dropped"] == sum(1 for q, doc in ict - rest if doc in nist.get(q, {}))
    for g in out["groups"]:
        for r in g["runs"]:
            assert r["P@10"]["delta"] <= 1e-12  # losing labels can only lower P@10
    assert out["summary"]["mean_delta"] < 0
