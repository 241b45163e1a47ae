"""A run none of whose top-k pairs people labelled: its correction is 0 in this draw, but its labels-only
score is still uncertain, so its interval must not have width 0 (the variance of a domain with no sampled
unit is estimated from its topic's residuals, :mod:`qrelkit.estimate.domain`)."""
from __future__ import annotations

import pytest

from qrelkit.estimate import draw_sample, estimate_runs

from .synthetic import collection

UNIVERSE, TRUTH, JUDGE, RUNS = collection(seed=2)
SAMPLE = draw_sample(UNIVERSE, size=40, design="uniform", seed=1)
PEOPLE = {(p.qid, p.docid): TRUTH[(p.qid, p.docid)] for p in SAMPLE.pairs}
DRAWN = SAMPLE.pair_set()


def _unsampled_run() -> dict:
    """Ten pairs per topic that the judge grades relevant (or nearly) and people did not label."""
    out = {}
    for q in sorted({q for q, _ in UNIVERSE}):
        free = [d for qq, d in UNIVERSE if qq == q and (q, d) not in DRAWN]
        out[q] = sorted(free, key=lambda d: -JUDGE[(q, d)])[:10]
    return out


RUNS_PLUS = {**RUNS, "unsampled": _unsampled_run()}


@pytest.mark.parametrize("measure", ["P@10", "nDCG@10"])
def test_a_run_without_sampled_pairs_gets_an_interval_of_positive_width(measure):
    assert not any((q, d) in DRAWN for q, ds in RUNS_PLUS["unsampled"].items() for d in ds)
    est = estimate_runs(RUNS_PLUS, JUDGE, PEOPLE, SAMPLE, [measure], threshold=2)
    row = next(r for r in est.rows if r.run == "unsampled")
    assert 0.0 < row.estimate < 1.0  # the judge calls many of its pairs relevant, people would not all agree
    assert row.high - row.low > 0.02
    # the other runs' intervals are not all widened to the same: they have sampled pairs
    assert all(r.high - r.low > 0 for r in est.rows)


@pytest.mark.parametrize("measure", ["P@10", "nDCG@10"])
def test_only_runs_without_labelled_pairs_change(measure, monkeypatch):
    """The remedy applies only to a run whose top k holds fewer than two labelled pairs or whose design
    variance is 0; without it the unsampled run's interval has width 0 (the bug), and every other run's
    interval is the same."""
    import qrelkit.estimate.domain as domain

    ran = estimate_runs(RUNS_PLUS, JUDGE, PEOPLE, SAMPLE, [measure], threshold=2)
    monkeypatch.setattr(domain, "MIN_LABELLED", 0)
    monkeypatch.setattr(domain, "ZERO_VARIANCE", -1.0)
    without = estimate_runs(RUNS_PLUS, JUDGE, PEOPLE, SAMPLE, [measure], threshold=2)
    for a, b in zip(ran.rows, without.rows):
        if a.run == "unsampled":
            assert b.high - b.low == pytest.approx(0.0, abs=1e-12)
            assert a.high - a.low > 0.02
        else:
            assert (a.estimate, a.low, a.high) == pytest.approx((b.estimate, b.low, b.high))


@pytest.mark.slow
def test_a_sparse_run_is_covered_over_draws():
    """A fixed run with two pairs per topic, none in another run's top 10: at 40 uniform labels its top k
    mostly holds 0 or 1 labelled pair, or only non-relevant ones (design variance 0). Over 60 draws its
    P@10 interval covers the truth at least 90% of the time (it was 0.77 with the bug: width 0 in such draws)."""
    import numpy as np

    from qrelkit.estimate.frame import Frame, exact_scores
    from qrelkit.estimate.measures import parse_measures

    top = {(q, d) for r in RUNS.values() for q, ds in r.items() for d in ds[:10]}
    sparse_run = {q: sorted((d for qq, d in UNIVERSE if qq == q and (q, d) not in top), key=lambda d: -JUDGE[(q, d)])[:2]
                  for q in sorted({q for q, _ in UNIVERSE})}
    runs = {**RUNS, "sparse": sparse_run}
    frame = Frame.build(UNIVERSE, runs)
    truth = exact_scores(frame, parse_measures(["P@10"], 2)[0], np.array([TRUTH[p] for p in frame.pairs]))[-1]
    covered = []
    for seed in range(60):
        sample = draw_sample(UNIVERSE, size=40, design="uniform", seed=seed)
        people = {(p.qid, p.docid): TRUTH[(p.qid, p.docid)] for p in sample.pairs}
        row = next(r for r in estimate_runs(runs, JUDGE, people, sample, ["P@10"], threshold=2, seed=seed).rows
                   if r.run == "sparse")
        covered.append(row.low <= truth <= row.high)
    assert np.mean(covered) >= 0.9
