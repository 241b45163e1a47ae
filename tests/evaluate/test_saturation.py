"""Hole@k (BRIDGE), Unjudged@k, pool growth and marginal contribution."""
from __future__ import annotations

import numpy as np
import pytest

from qrelkit.errors import UsageError
from qrelkit.evaluate.holes import hole_at_k, hole_rates
from qrelkit.evaluate.saturation import pool_growth, pool_scores, top_k
from qrelkit.evaluate.systems import evaluate_runs
from qrelkit.types import Qrel

from .helpers import make_run, random_collection


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("ours, theirs, cutoff", [("nDCG", "nDCG@10", 10), ("P", "P@10", 10),
                                                  ("nDCG", "nDCG@5", 5), ("Hit", "Success@10", 10)])
def test_closed_form_scores_match_ir_measures_on_partial_pools(seed, ours, theirs, cutoff):
    runs, qrels = random_collection(seed=seed, grades=(-1, 0, 0, 1, 2, 3))
    tk = top_k(runs, qrels, 10)
    rng = np.random.default_rng(seed)
    for n_in_pool in (1, 3, len(runs)):
        pooled = np.zeros(len(tk.pairs), dtype=bool)
        for s in rng.permutation(len(runs))[:n_in_pool]:
            ids = tk.ids[s, :, :10].ravel()
            pooled[ids[ids >= 0]] = True
        partial = {tk.pairs[i]: qrels[tk.pairs[i]] for i in np.flatnonzero(pooled) if tk.pairs[i] in qrels}
        ts = evaluate_runs(runs, partial, [theirs], threshold=2, topics=tk.topics)
        assert np.allclose(pool_scores(tk, pooled, ours, cutoff, 2), ts.of(theirs), atol=1e-12)


def _two_runs():
    # original qrels know x (relevant) and y; the new labels find z (run b) and w (run a)
    a = make_run("a", {"q": [("x", 3), ("y", 2), ("w", 1)], "p": [("u", 1)]})
    b = make_run("b", {"q": [("z", 3), ("y", 2)], "p": [("v", 1)]})
    original = {("q", "x"): 2, ("q", "y"): 0, ("p", "u"): 0}
    new = {**original, ("q", "z"): 3, ("q", "w"): 2, ("p", "v"): 1}
    return a, b, original, new


def test_hole_at_k_by_hand():
    a, b, original, new = _two_runs()
    ha, hb = hole_rates([a, b], original, new, depth=3, threshold=2)
    assert ha.hole_rate == pytest.approx((1 / 3 + 0 / 3) / 2)  # w in q; divided by k even with 1 doc in p
    assert hb.hole_rate == pytest.approx((1 / 3 + 0 / 3) / 2)  # z in q; v is labelled 1 < threshold 2
    assert ha.unjudged_rate == pytest.approx((1 / 3 + 0 / 1) / 2)  # Unjudged@k: over the retrieved entries
    assert hb.unjudged_rate == pytest.approx((1 / 2 + 1 / 1) / 2)
    assert hb.holes == 1
    assert hole_at_k([a, b], original, new, 3, 1) == {"a": pytest.approx(1 / 6), "b": pytest.approx(2 / 6)}


def test_hole_at_k_is_undefined_without_new_labels():
    a, b, original, _ = _two_runs()
    (h,) = hole_rates([a], original, None, depth=3)
    assert h.hole_rate is None
    assert h.unjudged_rate == pytest.approx(1 / 6)


def test_hole_rates_on_several_topics():
    run = make_run("r", {"q1": [("a", 4), ("b", 3), ("c", 2), ("d", 1)], "q2": [("e", 1)]})
    original = [Qrel("q1", "a", 2), Qrel("q1", "b", 0), Qrel("q2", "zz", 1)]
    new = {("q1", "c"): 3, ("q1", "d"): 1, ("q2", "e"): 2}
    (h,) = hole_rates([run], original, new, depth=4, threshold=2)
    assert h.unjudged_rate == pytest.approx((2 / 4 + 1 / 1) / 2)
    assert h.holes == 2  # c in q1, e in q2
    assert h.hole_rate == pytest.approx((1 / 4 + 1 / 4) / 2)
    assert h.judged_after == pytest.approx(1.0)


def test_growth_counts_only_detected_holes():
    a, b, original, new = _two_runs()
    g = pool_growth([a, b], original, new, depth=3, orders=20, seed=0, threshold=2)
    assert g.holes == 2  # z and w; x is relevant but was in the original qrels
    assert g.growth_rate.sum() == pytest.approx(1.0)
    assert g.growth_rate[0] == pytest.approx(0.5)  # each run brings exactly one of the two holes
    m = {x.run: x for x in g.marginal}
    assert m["a"].new_holes == pytest.approx(1.0)
    assert m["b"].new_holes_fraction == pytest.approx(0.5)


def test_marginal_contribution_by_hand():
    a, b, original, new = _two_runs()
    # Hit@3 under the original qrels: a finds x on q -> a: (1 + 0)/2, b: 0. Adding a's hole w changes nothing
    # for a (already hit) nor b; adding b's hole z lifts b on q by 1 -> mean over topics 0.5, over systems 0.25.
    g = pool_growth([a, b], original, new, depth=3, orders=1, seed=0, threshold=2, measure="Hit@3")
    first = np.random.default_rng(0).permutation(2)[0]
    expect = [0.0, 0.25] if first == 0 else [0.25, 0.0]
    assert g.marginal_contribution.tolist() == pytest.approx(expect)
    assert {m.run: m.own_score_change for m in g.marginal} == {"a": 0.0, "b": pytest.approx(0.5)}


@pytest.mark.parametrize("measure, ir_name", [("Hit@10", "Success@10"), ("nDCG@10", "nDCG@10")])
def test_marginal_contribution_matches_ir_measures(measure, ir_name):
    runs, new = random_collection(seed=5, n_runs=5, judged_share=0.9)
    original = {p: g for i, (p, g) in enumerate(sorted(new.items())) if i % 3}  # a third becomes holes
    g = pool_growth(runs, original, new, depth=10, orders=1, seed=7, threshold=2, measure=measure)
    order = np.random.default_rng(7).permutation(len(runs))
    topics = sorted({q for q, _ in original})
    qrels = dict(original)
    before = evaluate_runs(runs, qrels, [ir_name], threshold=2, topics=topics).means(ir_name)
    expect = []
    for r in order:
        for e in (e for es in runs[r].by_topic.values() for e in es[:10]):
            p = (e.qid, e.docid)
            if p not in original and new.get(p, 0) >= 2:
                qrels[p] = new[p]
        after = evaluate_runs(runs, qrels, [ir_name], threshold=2, topics=topics).means(ir_name)
        expect.append(float((after - before).mean()))
        before = after
    assert g.marginal_contribution == pytest.approx(np.array(expect), abs=1e-12)


def test_pool_growth_properties():
    runs, new = random_collection(seed=4, n_runs=6)
    original = {p: g for i, (p, g) in enumerate(sorted(new.items())) if i % 2}
    g = pool_growth(runs, original, new, depth=10, orders=5, seed=3)
    assert g.measure == "Hit@10"
    assert g.found_mean[-1] == pytest.approx(1.0)
    assert np.all(np.diff(g.found_mean) >= -1e-12)
    assert sum(m.new_holes for m in g.marginal) == pytest.approx(g.holes)
    assert g.score_error[-1] == pytest.approx(0.0)
    assert pool_growth(runs, original, new, depth=10, orders=5, seed=3).to_dict() == g.to_dict()
    d = g.to_dict()
    assert len(d["growth"]["marginal_contribution"]) == len(runs)
    assert set(d["marginal"]) == {r.name for r in runs}


def test_pool_growth_without_new_labels_finds_nothing():
    runs, qrels = random_collection(seed=4, n_runs=3)
    g = pool_growth(runs, qrels, None, orders=2)
    assert g.holes == 0
    assert not g.growth_rate.any()


def test_pool_growth_rejects_other_measures():
    a, b, original, new = _two_runs()
    with pytest.raises(UsageError, match="Hit@k, nDCG@k and P@k"):
        pool_growth([a, b], original, new, measure="AP@10")
