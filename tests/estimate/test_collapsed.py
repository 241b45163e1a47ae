"""Ratio measures' variance by collapsed strata (ppi.collapsed): one variance group per topic, the same
weights and estimates, the pooled formula, and only for nDCG/R (P@k keeps the stratified variance)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from qrelkit.estimate import draw_sample, estimate_runs
from qrelkit.estimate import estimators as est_module
from qrelkit.estimate.frame import Frame
from qrelkit.estimate.ppi import collapsed, labelled_design
from qrelkit.estimate.strata import strata_of

from .synthetic import collection

UNIVERSE, TRUTH, JUDGE, RUNS = collection(seed=1)
SAMPLE = draw_sample(UNIVERSE, size=120, design="weighted", runs=RUNS, seed=2, depth=10)
PEOPLE = {(p.qid, p.docid): TRUTH[(p.qid, p.docid)] for p in SAMPLE.pairs}


def designs():
    frame = Frame.build(UNIVERSE, RUNS)
    strata = strata_of([(p.qid, p.docid, p.probability) for p in SAMPLE.pairs])
    design = labelled_design(strata, frame.index, PEOPLE)
    return frame, design, collapsed(design, frame.topic[design.index])


def test_the_weighted_sample_has_several_strata_per_topic():
    _, design, _ = designs()
    assert len(design.factor) > 8  # else collapsing would change nothing and the tests below prove little


def test_collapsing_keeps_the_pairs_and_weights_and_makes_one_group_per_topic():
    frame, design, merged = designs()
    assert np.array_equal(merged.index, design.index) and np.array_equal(merged.weight, design.weight)
    topic = frame.topic[design.index]
    assert len(merged.factor) == len(set(topic))
    for g in range(len(merged.factor)):
        assert len(set(topic[merged.group == g])) == 1


def test_the_collapsed_variance_is_the_pooled_formula_per_topic():
    frame, design, merged = designs()
    x = np.random.default_rng(0).normal(size=len(design.index))
    topic = frame.topic[design.index]
    expected = 0.0
    for t in set(topic):
        u = (design.weight * x)[topic == t]
        n, big = len(u), design.weight[topic == t].sum()
        expected += (1 - n / big) * n / (n - 1) * ((u - u.mean()) ** 2).sum()
    assert merged.var(x)[0] == pytest.approx(expected)


def test_a_design_with_one_stratum_per_topic_is_unchanged():
    sample = draw_sample(UNIVERSE, size=120, design="uniform", seed=2)
    people = {(p.qid, p.docid): TRUTH[(p.qid, p.docid)] for p in sample.pairs}
    frame = Frame.build(UNIVERSE, RUNS)
    design = labelled_design(strata_of([(p.qid, p.docid, p.probability) for p in sample.pairs]), frame.index, people)
    x = np.arange(len(design.index), dtype=float)
    assert collapsed(design, frame.topic[design.index]).var(x) == pytest.approx(design.var(x))


def test_ndcg_uses_the_collapsed_variance_and_p_at_10_does_not(monkeypatch):
    """Undo the collapse: nDCG's estimates and lambdas stay (both come from the design's strata), its
    intervals narrow (the pooled variance adds the spread between strata); P@10's rows are identical."""
    shipped = estimate_runs(RUNS, JUDGE, PEOPLE, SAMPLE, ["P@10", "nDCG@10"], threshold=2)
    monkeypatch.setattr(est_module, "collapsed", lambda design, topic: design)
    stratified = estimate_runs(RUNS, JUDGE, PEOPLE, SAMPLE, ["P@10", "nDCG@10"], threshold=2)
    for a, b in zip(shipped.rows, stratified.rows):
        if a.measure == "P@10":
            assert dataclasses.astuple(a) == dataclasses.astuple(b)
    ndcg = [(a, b) for a, b in zip(shipped.rows, stratified.rows) if a.measure == "nDCG@10"]
    assert [a.lam for a, _ in ndcg] == pytest.approx([b.lam for _, b in ndcg], abs=1e-12)
    assert [a.estimate for a, _ in ndcg] == pytest.approx([b.estimate for _, b in ndcg], abs=1e-12)
    differences = [(a, b) for a, b in zip(shipped.differences, stratified.differences) if a.measure == "nDCG@10"]
    assert [a.estimate for a, _ in differences] == pytest.approx([b.estimate for _, b in differences], abs=1e-12)
    # wider on average (the collapsed variance is larger in expectation, not in every sample)
    assert sum(a.high - a.low for a, _ in differences) > sum(b.high - b.low for _, b in differences)
    wider = [a.high - a.low > b.high - b.low + 1e-12 for a, b in ndcg]
    assert sum(wider) >= len(ndcg) - 1
