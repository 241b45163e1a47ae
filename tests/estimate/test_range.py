"""Estimates and intervals stay within the measure's range: a share or a normalised gain lies in [0, 1], so
an interval reaching below 0 or above 1 (a small sample's nDCG of 1.1) is cut there, which never loses
coverage; DCG has no upper end."""
from __future__ import annotations

import math

from qrelkit.estimate import draw_sample, estimate_runs
from qrelkit.estimate.estimators import bounded, upper_bound
from qrelkit.estimate.measures import MeasureKind, parse_measures

from .synthetic import collection

UNIVERSE, TRUTH, JUDGE, RUNS = collection(seed=2)


def _estimates(seed: int, measures):
    sample = draw_sample(UNIVERSE, size=40, design="uniform", seed=seed)
    people = {(p.qid, p.docid): TRUTH[(p.qid, p.docid)] for p in sample.pairs}
    return estimate_runs(RUNS, JUDGE, people, sample, measures, threshold=2, seed=seed)


def test_small_samples_give_intervals_within_0_and_1(monkeypatch):
    import qrelkit.estimate.estimators as estimators

    rows = [r for seed in range(4) for r in _estimates(seed, ["P@10", "nDCG@10"]).rows]
    for r in rows:
        assert 0.0 <= r.low <= r.estimate <= r.high <= 1.0, r
        assert 0.0 <= r.people_only.low <= r.people_only.estimate <= r.people_only.high <= 1.0, r
    # the premise: without the cut some of these intervals leave [0, 1]
    monkeypatch.setattr(estimators, "within_range", lambda row, kind: row)
    raw = [r for seed in range(4) for r in _estimates(seed, ["P@10", "nDCG@10"]).rows]
    assert any(r.low < 0 or r.high > 1 or r.people_only.low < 0 or r.people_only.high > 1 for r in raw)


def test_the_cut_keeps_what_lies_inside_and_leaves_dcg_open():
    assert bounded(0.5, 0.4, 0.6, 1.0) == (0.5, 0.4, 0.6)
    assert bounded(1.1, 0.9, 1.3, 1.0) == (1.0, 0.9, 1.0)
    assert bounded(0.02, -0.1, 0.14, 1.0) == (0.02, 0.0, 0.14)
    p10, ndcg = parse_measures(["P@10", "nDCG@10"], 2)
    assert upper_bound(p10) == upper_bound(ndcg) == 1.0
    dcg = MeasureKind(key="DCG@10", cutoff=10, label="gain", rel=2, denominator=None)
    assert math.isinf(upper_bound(dcg))
