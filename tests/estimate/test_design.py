"""Designs: exact size, seeded, inclusion probabilities that make Horvitz–Thompson unbiased, refusals."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from qrelkit.errors import UsageError
from qrelkit.estimate import draw_sample
from qrelkit.estimate.design import DEFENSIVE_SHARE
from qrelkit.estimate.strata import apportion, strata_of

from .synthetic import collection

UNIVERSE, TRUTH, JUDGE, RUNS = collection()


@pytest.mark.parametrize("design", ["uniform", "weighted"])
def test_a_sample_has_exactly_the_asked_size(design):
    assert len(draw_sample(UNIVERSE, size=57, design=design, runs=RUNS).pairs) == 57


def test_the_same_seed_gives_the_same_sample():
    assert draw_sample(UNIVERSE, size=40, runs=RUNS, seed=3) == draw_sample(UNIVERSE, size=40, runs=RUNS, seed=3)


def test_another_seed_gives_another_sample():
    assert draw_sample(UNIVERSE, size=40, runs=RUNS, seed=3) != draw_sample(UNIVERSE, size=40, runs=RUNS, seed=4)


def test_no_pair_is_drawn_twice():
    sample = draw_sample(UNIVERSE, size=200, runs=RUNS)
    assert len(sample.pair_set()) == 200


def test_uniform_gives_every_pair_the_same_probability_when_topics_are_equal():
    sample = draw_sample(UNIVERSE, size=80, design="uniform")
    assert {p.probability for p in sample.pairs} == {80 / len(UNIVERSE)}


def test_weighted_draws_pairs_in_many_top_tens_more_often():
    sample = draw_sample(UNIVERSE, size=80, design="weighted", runs=RUNS, depth=10)
    in_top = {(q, d) for r in RUNS.values() for q, ds in r.items() for d in ds[:10]}
    p_top = np.mean([p.probability for p in sample.pairs if (p.qid, p.docid) in in_top])
    p_rest = np.mean([p.probability for p in sample.pairs if (p.qid, p.docid) not in in_top])
    assert p_top > 1.2 * p_rest


@pytest.mark.parametrize("size", [80, 160])
def test_defensive_gives_every_pair_at_least_half_the_uniform_probability(size):
    """The defensive mixture: no pair's probability falls below DEFENSIVE_SHARE times its topic's uniform
    rate (up to the rounding of integer allocations), so pairs no run ranks high stay reachable."""
    sample = draw_sample(UNIVERSE, size=size, design="defensive", runs=RUNS, depth=10)
    drawn, pairs = Counter(p.qid for p in sample.pairs), Counter(q for q, _ in UNIVERSE)
    ratio = [p.probability / (drawn[p.qid] / pairs[p.qid]) for p in sample.pairs]
    assert min(ratio) >= 0.9 * DEFENSIVE_SHARE
    assert max(ratio) > 1.2  # still weighted


def test_each_strata_probability_is_drawn_over_stratum_size():
    sample = draw_sample(UNIVERSE, size=90, design="weighted", runs=RUNS)
    strata = strata_of([(p.qid, p.docid, p.probability) for p in sample.pairs])
    per_topic = Counter()
    for s in strata:
        per_topic[s.qid] += s.size
    assert set(per_topic.values()) == {60}


def test_census_pairs_are_never_drawn():
    census = [p for p in UNIVERSE if p[1].endswith("-0") or p[1].endswith("-1")]
    sample = draw_sample(UNIVERSE, size=100, runs=RUNS, census=census)
    assert not sample.pair_set() & set(census)


def test_horvitz_thompson_totals_are_unbiased_over_draws():
    """The mean over draws of sum(x / probability) equals the universe total of x."""
    x = {p: float(g) for p, g in TRUTH.items()}
    totals = []
    for seed in range(300):
        sample = draw_sample(UNIVERSE, size=48, design="weighted", runs=RUNS, seed=seed)
        totals.append(sum(x[(p.qid, p.docid)] / p.probability for p in sample.pairs))
    se = np.std(totals) / np.sqrt(len(totals))
    assert abs(np.mean(totals) - sum(x.values())) < 3.5 * se


@pytest.mark.parametrize("kwargs, message", [
    ({"design": "weighted"}, "needs the runs"),
    ({"design": "active", "runs": RUNS}, "carry a probability"),
    ({"design": "clever"}, "unknown design"),
    ({"size": 0}, "between 1 and"),
    ({"size": 5, "design": "uniform"}, "smaller than the 8 topics"),
])
def test_an_impossible_request_is_a_usage_error(kwargs, message):
    args = {"size": 40, **kwargs}
    with pytest.raises(UsageError, match=message):
        draw_sample(UNIVERSE, **args)


def test_active_spends_the_budget_where_the_judge_is_unsure():
    sure = {p: (0.99 if g >= 2 else 0.01) for p, g in JUDGE.items()}
    unsure = dict.fromkeys(UNIVERSE[:30], 0.5)  # half of topic q0
    sample = draw_sample(UNIVERSE, size=80, design="active", judge_probability={**sure, **unsure})
    p_unsure = np.mean([p.probability for p in sample.pairs if (p.qid, p.docid) in unsure])
    p_sure = np.mean([p.probability for p in sample.pairs if p.qid == "q0" and (p.qid, p.docid) not in unsure])
    assert p_unsure > 3 * p_sure


@pytest.mark.parametrize("total, weights, lower, upper, expected", [
    (10, [1, 1], [0, 0], [10, 10], [5, 5]),
    (10, [9, 1], [2, 2], [10, 10], [8, 2]),
    (7, [1, 1, 1], [0, 0, 0], [10, 10, 10], [3, 2, 2]),
    (10, [1, 0], [0, 0], [4, 10], [4, 6]),
])
def test_apportion_respects_bounds_and_totals(total, weights, lower, upper, expected):
    assert apportion(total, weights, lower, upper) == expected


def test_a_sample_drawn_with_other_weights_still_reads_and_estimates(tmp_path, monkeypatch):
    """A sample stored under a design name whose weights have changed since (the defensive share, here)
    keeps its own probabilities: the estimator reads the stored ones, never the design's current weights."""
    import qrelkit.estimate.design as design
    from qrelkit.estimate import estimate_runs, read_sample, write_sample

    monkeypatch.setattr(design, "DEFENSIVE_SHARE", 0.0)
    old = draw_sample(UNIVERSE, size=120, design="defensive", runs=RUNS, seed=5)
    monkeypatch.undo()
    assert old.pairs != draw_sample(UNIVERSE, size=120, design="defensive", runs=RUNS, seed=5).pairs
    write_sample(tmp_path / "old.tsv", old)
    back = read_sample(tmp_path / "old.tsv")
    assert back.pairs == old.pairs and back.design == "defensive"
    people = {(p.qid, p.docid): TRUTH[(p.qid, p.docid)] for p in back.pairs}
    a = estimate_runs(RUNS, JUDGE, people, back, ["P@10"], threshold=2)
    b = estimate_runs(RUNS, JUDGE, people, old, ["P@10"], threshold=2)
    assert [x for r in a.rows for x in (r.estimate, r.low, r.high)] == \
        pytest.approx([x for r in b.rows for x in (r.estimate, r.low, r.high)])
