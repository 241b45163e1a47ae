"""Ranking stability across assessors, on a small collection with a known answer."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import kendalltau

from qrelkit.errors import InputError, UsageError
from qrelkit.evaluate.correlation import ranking, rbo, tau_ap
from qrelkit.evaluate.stability import (
    aggregate_grades,
    assessor_qrels,
    assessors_as_rankers,
    read_combination,
    stability,
)
from qrelkit.evaluate.systems import evaluate_runs

from .helpers import make_run, random_collection


def collection(seed=0):
    runs, primary = random_collection(seed=seed, n_topics=5, n_runs=6, n_docs=30)
    rng = np.random.default_rng(seed)
    topics = sorted({q for q, _ in primary})
    # two assessors per topic (a/b judge q0-q2, c/d judge q3-q4), each re-judging half the pairs
    who = {t: ("a", "b") if i < 3 else ("c", "d") for i, t in enumerate(topics)}
    labels = {n: {} for n in "abcd"}
    for (q, d), g in primary.items():
        if rng.random() < 0.5:
            for n in who[q]:
                labels[n][(q, d)] = int(np.clip(g + rng.integers(-1, 2), 0, 3))
    return runs, primary, sorted(labels.items()), who


def test_sampled_combinations_against_direct_evaluation():
    runs, primary, assessors, who = collection()
    res = stability(runs, primary, assessors, samples=200, seed=1)
    assert res.topics == 5 and res.combinations == 2**5
    assert dict(res.assessors) == {"a": 3, "b": 3, "c": 2, "d": 2}
    assert len(res.kendall_tau) == 200
    assert np.all((res.kendall_tau >= -1) & (res.kendall_tau <= 1))
    # any fixed combination, evaluated directly, is among the possible outcomes:
    # check the natural combination "first assessor everywhere"
    natural = {q: pair[0] for q, pair in who.items()}
    res2 = stability(runs, primary, assessors, samples=10, seed=1, natural=natural)
    combined = {p: g for p, g in primary.items()}
    for q, name in natural.items():
        combined.update({p: g for p, g in dict(assessors)[name].items() if p[0] == q})
    direct = evaluate_runs(runs, combined, ["nDCG@10"]).means("nDCG@10")
    base = evaluate_runs(runs, primary, ["nDCG@10"]).means("nDCG@10")
    assert res2.natural.kendall_tau == pytest.approx(kendalltau(base, direct).statistic)
    names = [r.name for r in runs]
    assert res2.natural.tau_ap == pytest.approx(tau_ap(base, direct))
    assert res2.natural.rbo == pytest.approx(rbo(ranking(base, names), ranking(direct, names), 0.9))


def test_sampling_is_exact_bookkeeping():
    """Sampled means equal a direct evaluation of the sampled combination."""
    runs, primary, assessors, who = collection(2)
    # one sample, one candidate per topic: force it by giving each topic a single assessor
    single = [(n, lab) for n, lab in assessors if n in ("a", "c")]
    res = stability(runs, primary, single, samples=3, seed=0)
    combined = dict(primary)
    for _, lab in single:
        combined.update(lab)
    direct = evaluate_runs(runs, combined, ["nDCG@10"]).means("nDCG@10")
    base = evaluate_runs(runs, primary, ["nDCG@10"]).means("nDCG@10")
    assert res.combinations == 1
    assert np.allclose(res.kendall_tau, kendalltau(base, direct).statistic)
    # swap probabilities are then 0 or 1, and match the direct comparison
    for s in res.swaps:
        i, j = runs.index(next(r for r in runs if r.name == s.a)), runs.index(next(r for r in runs if r.name == s.b))
        assert base[i] > base[j]
        assert s.probability == (1.0 if direct[i] < direct[j] else 0.0)


def test_include_primary_adds_a_candidate():
    runs, primary, assessors, _ = collection()
    res = stability(runs, primary, assessors, samples=300, seed=2, include_primary=True)
    assert res.combinations == 3**5
    # about a third of the topics keep the primary's labels: rankings closer to the primary's
    plain = stability(runs, primary, assessors, samples=300, seed=2)
    assert res.kendall_tau.mean() >= plain.kendall_tau.mean() - 0.05


def test_assessor_qrels_fall_back_to_primary():
    primary = {("q1", "a"): 1, ("q1", "b"): 0, ("q2", "a"): 3}
    lab = {("q1", "a"): 3, ("q1", "new"): 2}
    assert assessor_qrels(primary, lab, ["q1"]) == {("q1", "a"): 3, ("q1", "b"): 0, ("q1", "new"): 2}


def test_aggregate_grades():
    a = {("q", "x"): 0, ("q", "y"): 1, ("q", "z"): 3}
    b = {("q", "x"): 1, ("q", "y"): 2}
    assert aggregate_grades([a, b], "max") == {("q", "x"): 1, ("q", "y"): 2, ("q", "z"): 3}
    assert aggregate_grades([a, b], "min") == {("q", "x"): 0, ("q", "y"): 1, ("q", "z"): 3}
    assert aggregate_grades([a, b], "mean") == {("q", "x"): 1, ("q", "y"): 2, ("q", "z"): 3}  # half up
    with pytest.raises(UsageError):
        aggregate_grades([a], "median")


def test_assessors_as_rankers_without_ties():
    primary = {("q", "a"): 3, ("q", "b"): 0, ("q", "c"): 2, ("q", "d"): 1}
    assessor = {("q", "a"): 1, ("q", "b"): 3, ("q", "c"): 2, ("q", "d"): 0}  # ranks b, c, a, d
    (r,) = assessors_as_rankers([("x", assessor)], primary, ["P@1", "RR@10"], shuffles=3)
    scores = {s.measure: s.mean for s in r.scores}
    assert scores["P@1"] == 0.0  # b is not relevant
    assert scores["RR@10"] == pytest.approx(0.5)  # c (grade 2) at rank 2
    ranked = make_run("x", {"q": [("b", 4), ("c", 3), ("a", 2), ("d", 1)]})
    assert scores["RR@10"] == pytest.approx(evaluate_runs([ranked], primary, ["RR@10"]).mean_of("x", "RR@10"))


def test_assessors_as_rankers_ties_are_averaged():
    primary = {("q", "a"): 2, ("q", "b"): 0}
    assessor = {("q", "a"): 1, ("q", "b"): 1}  # a tie: half the shuffles put a first
    (r,) = assessors_as_rankers([("x", assessor)], primary, ["P@1"], shuffles=400, seed=0)
    assert r.scores[0].mean == pytest.approx(0.5, abs=0.08)


def test_read_combination(tmp_path):
    f = tmp_path / "c.tsv"
    f.write_text("q1\ta\nq2\tb\n")
    assert read_combination(str(f), ["a", "b"]) == {"q1": "a", "q2": "b"}
    f.write_text("q1\ta\nq2\tzz\n")
    with pytest.raises(InputError, match=r"c.tsv:2"):
        read_combination(str(f), ["a", "b"])


def test_bad_inputs():
    runs, primary, assessors, _ = collection()
    with pytest.raises(UsageError):
        stability(runs, primary, [], samples=10)
    with pytest.raises(UsageError):
        stability(runs[:1], primary, assessors, samples=10)
    with pytest.raises(UsageError):
        stability(runs, primary, assessors, samples=10, natural={"q0": "c"})


@pytest.mark.parametrize("how, order", [
    ("max", ["a", "b", "c", "d"]),  # max grades 3, 2, 1, 0
    ("min", ["b", "c", "a", "d"]),  # min grades 0 (a), 2 (b), 1 (c), 0 (d) -> b, c, then a/d tie broken at random
    ("mean", ["b", "a", "c", "d"]),  # means 1.5, 2, 1, 0
])
def test_aggregated_rankers_rank_by_the_combined_grades(how, order):
    import ir_measures

    from qrelkit.evaluate.rankers import aggregated_rankers

    primary = {("q", "a"): 3, ("q", "b"): 2, ("q", "c"): 0, ("q", "d"): 1}
    x = {("q", "a"): 3, ("q", "b"): 2, ("q", "c"): 1, ("q", "d"): 0}
    y = {("q", "a"): 0, ("q", "b"): 2, ("q", "c"): 1, ("q", "d"): 0}
    rankers = {r.assessor: r for r in aggregated_rankers([("x", x), ("y", y)], primary, ["nDCG@10"], shuffles=200)}
    got = rankers[f"aggregated {how}"].scores[0].mean
    qrels = [ir_measures.Qrel("q", d, g) for (_, d), g in primary.items()]

    def ndcg(docs):
        run = [ir_measures.ScoredDoc("q", d, float(10 - i)) for i, d in enumerate(docs)]
        return ir_measures.calc_aggregate([ir_measures.nDCG @ 10], qrels, run)[ir_measures.nDCG @ 10]

    if how == "min":  # a and d tie: the two orders, equally likely
        expect = (ndcg(["b", "c", "a", "d"]) + ndcg(["b", "c", "d", "a"])) / 2
        assert got == pytest.approx(expect, abs=0.03)
    else:
        assert got == pytest.approx(ndcg(order), abs=1e-12)


def test_system_differences_match_scipy_and_bonferroni():
    from scipy.stats import ttest_rel, wilcoxon

    from qrelkit.evaluate.significance import system_differences

    rng = np.random.default_rng(3)
    a = rng.random((4, 12))
    b = a + rng.normal(0.05, 0.05, (4, 12))
    b[3] = a[3]  # a system the aggregation does not move
    out = system_differences(a, b, ["s0", "s1", "s2", "s3"])
    for i, d in enumerate(out[:3]):
        p = ttest_rel(a[i], b[i]).pvalue
        assert d.t_p_value == pytest.approx(p)
        assert d.t_p_bonferroni == pytest.approx(min(1.0, 4 * p))
        assert d.wilcoxon_p_value == pytest.approx(wilcoxon(a[i] - b[i]).pvalue)
        assert d.significant == (min(1.0, 4 * p) < 0.05)
    assert out[3].t_p_value == 1.0


def test_stability_reports_differences_rbo_bounds_and_groups():
    runs, primary, assessors, _ = collection()
    res = stability(runs, primary, assessors, samples=20, seed=1, shuffles=2)
    agg = {a.name: a for a in res.aggregations}["max"]
    assert len(agg.differences) == len(runs)
    assert agg.rbo_min <= agg.rbo + 1e-12
    assert agg.rbo <= agg.rbo_min + agg.rbo_res + 1e-12
    assert [g.members for g in res.groups] == [("a", "b"), ("c", "d")]
    d = res.to_dict()
    assert set(d["aggregations"]["mean"]["systems"]) == {r.name for r in runs}
    assert {"aggregated max", "aggregated min", "aggregated mean", "a"} <= set(d["rankers"])
