"""TREC DL 2019 (../shared/data): two draws of 926 people's labels with the Llama-3.3-70B labels.

A quick check that the whole path works on real data and that the estimates are sane; the coverage
figures come from benchmarks/estimates.py (100+ draws), not from two draws.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import kendalltau

from qrelkit.data.qrels import load_qrels
from qrelkit.data.runs import read_runs
from qrelkit.estimate import draw_sample, estimate_runs, rankings, universe_of
from qrelkit.estimate.frame import Frame, exact_scores
from qrelkit.estimate.measures import parse_measures

pytestmark = pytest.mark.realdata


@pytest.fixture(scope="module")
def outcome():
    from shared_data import shared_data_path

    root = shared_data_path("trec-dl-2019")
    runs = rankings(read_runs(root / "runs" / "official", max_depth=20))
    nist = dict(load_qrels(root / "qrels.txt").pairs)
    llm = dict(load_qrels(root / "llm-qrels" / "farzi_dl19_4prompts_llama3.3-70b.qrel").pairs)
    universe = universe_of(nist, runs, 10)
    frame = Frame.build(universe, runs)
    true = exact_scores(frame, parse_measures(["P@10"], 2)[0], np.array([nist.get(p, 0) for p in frame.pairs]))
    results = []
    for seed in (0, 1):
        sample = draw_sample(universe, size=926, design="weighted", runs=runs, seed=seed, depth=10)
        people = {(p.qid, p.docid): nist.get((p.qid, p.docid), 0) for p in sample.pairs}
        results.append(estimate_runs(runs, llm, people, sample, ["P@10"], seed=seed))
    return true, results


def test_most_intervals_contain_the_nist_score(outcome):
    true, results = outcome
    covered = [r.low <= t <= r.high for est in results for r, t in zip(est.rows, true)]
    assert np.mean(covered) >= 0.8


def test_the_estimate_is_closer_to_nist_than_the_labels_alone(outcome):
    true, results = outcome
    est_err = np.mean([abs(r.estimate - t) for e in results for r, t in zip(e.rows, true)])
    judge_err = np.mean([abs(r.labels_only - t) for e in results for r, t in zip(e.rows, true)])
    assert est_err < judge_err / 3


def test_the_ranking_follows_nist(outcome):
    true, results = outcome
    assert kendalltau([r.estimate for r in results[0].rows], true)[0] > 0.75


def test_the_judge_narrows_the_interval_against_people_alone(outcome):
    rows = outcome[1][0].rows
    assert np.mean([r.high - r.low for r in rows]) < 0.8 * np.mean([r.people_only.high - r.people_only.low for r in rows])


def test_a_run_with_no_labelled_top_ten_pair_gets_an_interval_that_is_not_a_point():
    """Uniform 5% on DL 2019, draw 1: the 16 of UNH_exDL_bm25's 430 top-10 pairs that were drawn are all
    non-relevant to NIST, so its design variance is 0 (PPI++ tunes lambda to 0, every residual is 0). It
    got P@10 = [0, 0] before (NIST: 0.06); the anticipated variance of its 27 topics with no labelled
    pair (estimate/domain.py) gives it a real interval, which holds the NIST value."""
    from shared_data import shared_data_path

    root = shared_data_path("trec-dl-2019")
    runs = rankings(read_runs(root / "runs" / "official", max_depth=20))
    nist = dict(load_qrels(root / "qrels.txt").pairs)
    llm = dict(load_qrels(root / "llm-qrels" / "farzi_dl19_4prompts_llama3.3-70b.qrel").pairs)
    universe = universe_of(nist, runs, 10)
    sample = draw_sample(universe, size=463, design="uniform", runs=runs, seed=1, depth=10)
    drawn = sample.pair_set()
    people = {(p.qid, p.docid): nist.get((p.qid, p.docid), 0) for p in sample.pairs}
    assert all(people[(q, d)] < 2 for q, ds in runs["UNH_exDL_bm25"].items() for d in ds[:10] if (q, d) in drawn)
    est = estimate_runs(runs, llm, people, sample, ["P@10"], seed=1, threshold=2)
    row = next(r for r in est.rows if r.run == "UNH_exDL_bm25")
    frame = Frame.build(universe, runs)
    true = exact_scores(frame, parse_measures(["P@10"], 2)[0], np.array([nist.get(p, 0) for p in frame.pairs]))
    assert row.high - row.low > 0.05
    assert row.low <= true[list(runs).index("UNH_exDL_bm25")] <= row.high
