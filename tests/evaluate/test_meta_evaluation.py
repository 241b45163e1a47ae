"""Meta-evaluation figures (top-k tau, tau_AP with ties, Pearson, Bland-Altman, --on-missing) against
independent computations: scipy / numpy, and examples worked by hand."""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import kendalltau
from typer.testing import CliRunner

from qrelkit.cli import app, main
from qrelkit.data import write_qrels, write_run
from qrelkit.errors import UsageError
from qrelkit.evaluate.correlation import (
    align,
    bland_altman,
    kendall_tau_top,
    meta_evaluation,
    pearson_r,
    tau_ap,
    tau_ap_ties,
)

from .helpers import make_run, random_collection

RNG = np.random.default_rng(7)
A = RNG.random(15)
B = A + RNG.normal(0, 0.1, 15)


def test_top_k_tau_is_scipys_tau_on_the_references_k_best():
    top = np.argsort(-A)[:10]
    assert kendall_tau_top(A, B, 10) == pytest.approx(kendalltau(A[top], B[top]).statistic)


def test_top_k_tau_of_fewer_systems_than_k_is_tau():
    assert kendall_tau_top(A[:5], B[:5], 10) == pytest.approx(kendalltau(A[:5], B[:5]).statistic)


def test_top_k_tau_ignores_disagreement_below_the_top_k():
    a = np.sort(A)[::-1]
    b = np.concatenate([a[:10], a[10:][::-1]])  # reversed below the best ten
    assert (kendall_tau_top(a, b, 10), kendalltau(a, b).statistic < 1) == (pytest.approx(1.0), True)


def test_tau_ap_with_ties_of_a_hand_worked_example():
    # Y ties systems 0 and 1: tau*(X|Y) = 2/1 * (2/2) - 1 = 1; tau*(Y|X) = 2/2 * (0/1 + 2/2) - 1 = 0
    assert tau_ap_ties([3, 2, 1], [2, 2, 1]) == pytest.approx(0.5)


def test_tau_ap_with_ties_without_ties_is_the_mean_of_tau_ap_both_ways():
    assert tau_ap_ties(A, B) == pytest.approx((tau_ap(A, B) + tau_ap(B, A)) / 2)


def test_tau_ap_with_ties_is_symmetric():
    b = np.round(B, 1)  # ties
    assert tau_ap_ties(A, b) == pytest.approx(tau_ap_ties(b, A))


def test_tau_ap_with_ties_of_identical_rankings_is_one():
    assert tau_ap_ties([3, 2, 2, 1], [3, 2, 2, 1]) == pytest.approx(1.0)


def test_pearson_is_numpys_correlation_coefficient():
    assert pearson_r(A, B) == pytest.approx(np.corrcoef(A, B)[0, 1])


def test_bland_altman_bias_of_a_hand_worked_example():
    # differences b - a: 0.1, 0.3, 0.2 -> mean 0.2, sd 0.1
    assert bland_altman([0.5, 0.4, 0.3], [0.6, 0.7, 0.5]).bias == pytest.approx(0.2)


def test_bland_altman_limits_of_a_hand_worked_example():
    ba = bland_altman([0.5, 0.4, 0.3], [0.6, 0.7, 0.5])
    assert (ba.low, ba.high) == (pytest.approx(0.2 - 0.196), pytest.approx(0.2 + 0.196))


def test_meta_evaluation_keys_are_snake_case():
    assert set(meta_evaluation(A, B)) == {"kendall_tau_top10", "tau_ap_ties", "pearson_r", "bland_altman_bias",
                                          "bland_altman_sd", "bland_altman_loa"}


@pytest.mark.parametrize("policy,systems", [("drop", ("r1", "r3")), ("worst", ("r1", "r2", "r3"))])
def test_on_missing_keeps_the_systems_its_policy_says(policy, systems):
    assert align(["r1", "r2", "r3"], ["r2"], [], policy).systems == systems


def test_on_missing_error_names_the_missing_run():
    with pytest.raises(UsageError, match="absent from a: r2"):
        align(["r1", "r2", "r3"], ["r2"], [], "error")


# ---- the CLI: two qrels versions, one run that ranks only topics of the first -----------------------
runner = CliRunner()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("meta")
    runs, qrels = random_collection(seed=5, n_runs=5, n_topics=6)
    for r in runs:
        write_run(d / "runs" / f"{r.name}.run", r)
    only_q0 = make_run("only_q0", {"q0": [(f"d{i}", 10 - i) for i in range(10)]})
    write_run(d / "runs" / "only_q0.run", only_q0)
    write_qrels(d / "a.qrels", qrels)
    write_qrels(d / "b.qrels", {p: min(3, g + 1) for p, g in qrels.items() if p[0] != "q0"})  # more lenient, no q0
    return d


def evaluate(d, *extra: str):
    return runner.invoke(app, ["evaluate", "--runs", str(d / "runs"), "--qrels", str(d / "a.qrels"), "--qrels",
                               str(d / "b.qrels"), "--bootstrap", "0", "--json", *extra])


def test_evaluate_json_has_the_meta_evaluation_keys(files):
    (cmp,) = json.loads(evaluate(files).stdout)["comparisons"]
    assert {"kendall_tau_top10", "tau_ap_ties", "pearson_r", "bland_altman_bias", "bland_altman_loa"} <= set(cmp)


def test_evaluate_json_keeps_its_existing_keys(files):
    (cmp,) = json.loads(evaluate(files).stdout)["comparisons"]
    assert {"kendall_tau", "tau_ap", "spearman_rho", "rbo", "ci", "systems", "significance"} <= set(cmp)


def test_evaluate_bland_altman_bias_is_the_mean_score_difference(files):
    out = json.loads(evaluate(files).stdout)
    (cmp,) = out["comparisons"]
    deltas = [s["score_b"] - s["score_a"] for s in cmp["systems"]]
    assert cmp["bland_altman_bias"] == pytest.approx(np.mean(deltas))


def test_evaluate_pearson_is_scipys_on_the_leaderboards(files):
    from scipy.stats import pearsonr

    (cmp,) = json.loads(evaluate(files).stdout)["comparisons"]
    a, b = [s["score_a"] for s in cmp["systems"]], [s["score_b"] for s in cmp["systems"]]
    assert cmp["pearson_r"] == pytest.approx(pearsonr(a, b).statistic)


def test_evaluate_on_missing_worst_keeps_the_run_by_default(files):
    (cmp,) = json.loads(evaluate(files).stdout)["comparisons"]
    assert (cmp["on_missing"], cmp["missing_worst"], len(cmp["systems"])) == ("worst", ["only_q0"], 6)


def test_evaluate_on_missing_drop_leaves_the_run_out(files):
    (cmp,) = json.loads(evaluate(files, "--on-missing", "drop").stdout)["comparisons"]
    assert ("only_q0" in {s["system"] for s in cmp["systems"]}, cmp["missing_dropped"]) == (False, ["only_q0"])


def test_evaluate_on_missing_error_is_a_user_error_naming_the_run(files, capsys):
    with pytest.raises(SystemExit) as e:
        main(["evaluate", "--runs", str(files / "runs"), "--qrels", str(files / "a.qrels"), "--qrels",
              str(files / "b.qrels"), "--bootstrap", "0", "--on-missing", "error"])
    err = capsys.readouterr().err
    assert (e.value.code, "absent from b: only_q0" in err, "Traceback" in err) == (2, True, False)


def test_stability_json_has_the_meta_evaluation_keys_per_aggregation(files):
    res = runner.invoke(app, ["stability", "--runs", str(files / "runs"), "--primary", str(files / "a.qrels"),
                              "--assessors", str(files / "b.qrels"), "--samples", "20", "--json"])
    out = json.loads(res.stdout)
    agg = next(iter(out["aggregations"].values()))
    assert ({"tau_ap_ties", "pearson_r", "bland_altman_bias"} <= set(agg), out["on_missing"]) == (True, "worst")


def test_stability_on_missing_drop_leaves_a_run_without_primary_topics_out(tmp_path):
    runs, qrels = random_collection(seed=3, n_runs=4, n_topics=4)
    for r in runs:
        write_run(tmp_path / "runs" / f"{r.name}.run", r)
    write_run(tmp_path / "runs" / "elsewhere.run", make_run("elsewhere", {"q99": [("d1", 1.0)]}))
    write_qrels(tmp_path / "p.qrels", qrels)
    write_qrels(tmp_path / "x.qrels", {p: g for p, g in list(qrels.items())[::2]})
    res = runner.invoke(app, ["stability", "--runs", str(tmp_path / "runs"), "--primary", str(tmp_path / "p.qrels"),
                              "--assessors", str(tmp_path / "x.qrels"), "--samples", "20", "--on-missing", "drop",
                              "--json"])
    out = json.loads(res.stdout)
    assert (out["systems"], out["missing_dropped"]) == (len(runs), ["elsewhere"])
