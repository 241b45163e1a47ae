"""estimate_runs: exact scores agree with ir_measures, the JSON shape, refusals, unlabelled and census pairs."""
from __future__ import annotations

import dataclasses

import ir_measures
import numpy as np
import pytest

from qrelkit.estimate import EstimateError, Sample, SampledPair, draw_sample, estimate_runs
from qrelkit.estimate.frame import Frame, exact_scores
from qrelkit.estimate.measures import parse_measures

from .synthetic import collection

UNIVERSE, TRUTH, JUDGE, RUNS = collection(seed=2)
SAMPLE = draw_sample(UNIVERSE, size=120, runs=RUNS, seed=1)
PEOPLE = {(p.qid, p.docid): TRUTH[(p.qid, p.docid)] for p in SAMPLE.pairs}


def estimate(sample=SAMPLE, people=PEOPLE, measures=("P@10",), **kwargs):
    return estimate_runs(RUNS, JUDGE, people, sample, list(measures), threshold=2, **kwargs)


@pytest.mark.parametrize("measure", ["P@10", "P(rel=1)@5", "nDCG@10", "nDCG@5", "R@20"])
def test_exact_scores_agree_with_ir_measures(measure):
    frame = Frame.build(UNIVERSE, RUNS)
    mine = exact_scores(frame, parse_measures([measure], 2)[0], np.array([TRUTH[p] for p in frame.pairs]))
    m = ir_measures.parse_measure(measure)
    m = m(rel=2) if "rel" in m.SUPPORTED_PARAMS and "rel" not in m.params else m
    qrels = [ir_measures.Qrel(q, d, g) for (q, d), g in TRUTH.items()]
    for i, ranking in enumerate(RUNS.values()):
        run = [ir_measures.ScoredDoc(q, d, -r) for q, ds in ranking.items() for r, d in enumerate(ds)]
        assert mine[i] == pytest.approx(ir_measures.calc_aggregate([m], qrels, run)[m], abs=1e-9)


def test_the_json_has_the_issues_shape():
    out = estimate(measures=("P@10", "nDCG@10")).to_json()
    assert set(out["runs"][0]) >= {"run", "measure", "estimate", "low", "high", "labels_only", "people_only"}
    assert set(out["runs"][0]["people_only"]) == {"estimate", "low", "high"}
    assert set(out["differences"][0]) == {"a", "b", "measure", "estimate", "low", "high"}
    assert len(out["differences"]) == 2 * 15


def test_measures_keep_the_users_spelling():
    assert {r.measure for r in estimate(measures=("P@10", "nDCG@10")).rows} == {"P@10", "nDCG@10"}


def test_labels_only_is_the_judges_score():
    frame = Frame.build(UNIVERSE, RUNS)
    judge = exact_scores(frame, parse_measures(["P@10"], 2)[0], np.array([JUDGE[p] for p in frame.pairs]))
    assert [r.labels_only for r in estimate().rows] == pytest.approx(list(judge))


def test_a_difference_is_narrower_than_the_two_scores():
    est = estimate()
    widths = {r.run: r.high - r.low for r in est.rows}
    d = est.differences[0]
    assert d.high - d.low < widths[d.a] + widths[d.b]


def test_tied_groups_hold_every_run_once():
    groups = dict(estimate().tied)["P@10"]
    assert sorted(r for g in groups for r in g) == sorted(RUNS)


def test_unlabelled_sample_pairs_are_listed():
    missing = sorted(PEOPLE)[:3]
    people = {p: g for p, g in PEOPLE.items() if p not in missing}
    assert list(estimate(people=people).unlabelled) == missing


def test_a_census_pair_enters_with_its_label():
    census = [(q, d) for q, d in UNIVERSE if q == "q0" and (q, d) not in SAMPLE.pair_set()][:40]
    sample = draw_sample(UNIVERSE, size=120, runs=RUNS, seed=1, census=census)
    people = {**{(p.qid, p.docid): TRUTH[(p.qid, p.docid)] for p in sample.pairs}, **{p: TRUTH[p] for p in census}}
    assert estimate(sample=sample, people=people).census == 40


def test_judged_at_k_is_exact():
    row = estimate(measures=("Judged@10",)).rows[0]
    assert row.low == row.high


@pytest.mark.parametrize("measure", ["AP", "RR@10", "Success@10"])
def test_a_measure_without_an_estimator_is_refused(measure):
    with pytest.raises(EstimateError, match="no estimator"):
        estimate(measures=(measure,))


def test_a_sample_from_another_universe_is_refused():
    with pytest.raises(EstimateError, match="do not match the universe"):
        estimate(sample=dataclasses.replace(SAMPLE, universe=frozenset([*UNIVERSE, ("q0", "extra")])))


def test_a_sample_read_from_a_file_rebuilds_its_universe_from_labels_and_runs():
    rebuilt = estimate(sample=dataclasses.replace(SAMPLE, universe=None))
    assert [r.estimate for r in rebuilt.rows] == [r.estimate for r in estimate().rows]


def test_a_sample_pair_outside_the_universe_is_refused():
    sample = dataclasses.replace(SAMPLE, pairs=SAMPLE.pairs + (SampledPair("q0", "nowhere", 0.5),))
    with pytest.raises(EstimateError, match="neither labelled nor in the runs"):
        estimate(sample=sample)


def test_probabilities_that_are_not_a_stratified_draw_are_refused():
    pairs = tuple(dataclasses.replace(p, probability=p.probability * 0.97) for p in SAMPLE.pairs)
    with pytest.raises(EstimateError, match="not a whole number|do not match"):
        estimate(sample=Sample(pairs, "weighted", 1))


def test_too_few_peoples_labels_in_a_topic_are_refused():
    people = {p: g for p, g in PEOPLE.items() if p[0] != "q3"}
    with pytest.raises(EstimateError, match="too few people's labels in topic q3"):
        estimate(people=people)
