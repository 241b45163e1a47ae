"""Holes, pool growth and marginal contribution."""
from __future__ import annotations

import numpy as np
import pytest

from qrelkit.errors import UsageError
from qrelkit.evaluate.saturation import hole_rates, new_relevant_at_k, pool_growth, pool_scores, top_k
from qrelkit.evaluate.systems import evaluate_runs
from qrelkit.types import Qrel

from .helpers import make_run, random_collection


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_closed_form_scores_match_ir_measures_on_partial_pools(seed):
    runs, qrels = random_collection(seed=seed, grades=(-1, 0, 0, 1, 2, 3))
    tk = top_k(runs, qrels, 10)
    rng = np.random.default_rng(seed)
    for n_in_pool in (1, 3, len(runs)):
        pooled = np.zeros(len(tk.pairs), dtype=bool)
        for s in rng.permutation(len(runs))[:n_in_pool]:
            ids = tk.ids[s, :, :10].ravel()
            pooled[ids[ids >= 0]] = True
        partial = {tk.pairs[i]: qrels[tk.pairs[i]] for i in np.flatnonzero(pooled) if tk.pairs[i] in qrels}
        ts = evaluate_runs(runs, partial, ["nDCG@10", "P@10", "nDCG@5"], threshold=2, topics=tk.topics)
        assert np.allclose(pool_scores(tk, pooled, "nDCG", 10, 2), ts.of("nDCG@10"), atol=1e-12)
        assert np.allclose(pool_scores(tk, pooled, "P", 10, 2), ts.of("P@10"), atol=1e-12)
        assert np.allclose(pool_scores(tk, pooled, "nDCG", 5, 2), ts.of("nDCG@5"), atol=1e-12)


def test_pool_growth_properties():
    runs, qrels = random_collection(seed=4, n_runs=6)
    g = pool_growth(runs, qrels, depth=10, orders=5, seed=3)
    assert g.found_mean[-1] == pytest.approx(1.0)
    assert np.all(np.diff(g.found_mean) >= -1e-12)
    assert g.growth_rate.sum() == pytest.approx(1.0)  # every relevant pair is found exactly once
    assert sum(m.new_relevant for m in g.marginal) == pytest.approx(g.relevant)
    assert g.score_error[-1] == pytest.approx(0.0)
    # the first addition moves every score from zero; later additions move them less
    assert g.score_change[0] >= g.score_change[-1]
    again = pool_growth(runs, qrels, depth=10, orders=5, seed=3)
    assert again.to_dict() == g.to_dict()
    d = g.to_dict()
    assert len(d["growth"]["found_fraction"]) == len(runs)
    assert set(d["marginal"]) == {r.name for r in runs}


def test_pool_growth_by_hand():
    # two runs; run b adds the only other relevant document
    a = make_run("a", {"q": [("x", 3), ("y", 2)]})
    b = make_run("b", {"q": [("x", 3), ("z", 2)]})
    qrels = {("q", "x"): 2, ("q", "y"): 0, ("q", "z"): 3}
    g = pool_growth([a, b], qrels, depth=2, orders=20, seed=0, measure="P@2")
    assert g.relevant == 2 and g.pooled == 3
    m = {x.run: x for x in g.marginal}
    # first in the pool finds x (+ z for b); second finds what is left
    assert m["a"].new_relevant + m["b"].new_relevant == pytest.approx(2.0)
    assert m["b"].new_relevant >= 1.0
    with pytest.raises(UsageError):
        pool_growth([a, b], qrels, measure="AP@10")


def test_hole_rates():
    run = make_run("r", {"q1": [("a", 4), ("b", 3), ("c", 2), ("d", 1)], "q2": [("e", 1)]})
    original = [Qrel("q1", "a", 2), Qrel("q1", "b", 0), Qrel("q2", "zz", 1)]
    new = {("q1", "c"): 3, ("q1", "d"): 1, ("q2", "e"): 2}
    (h,) = hole_rates([run], original, new, depth=4, threshold=2)
    assert h.hole_rate == pytest.approx((2 / 4 + 1 / 1) / 2)
    assert h.new_relevant == 2  # c in q1, e in q2
    assert h.new_relevant_rate == pytest.approx((1 / 4 + 1 / 1) / 2)
    assert h.judged_after == pytest.approx(1.0)
    assert new_relevant_at_k([run], original, new, 4, 2) == {"r": h.new_relevant_rate}
