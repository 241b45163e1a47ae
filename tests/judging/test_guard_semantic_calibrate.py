"""The e5 stage's threshold rule (benchmarks/guard_semantic_calibrate.py): the rate threshold flags
at most its share of a pool and no lower threshold does; on a known score distribution it flags
about that share of fresh text, and its bootstrap interval covers the true quantile about as often
as it says; cross-fitting scores each document with its own quarter's model; the quarters split
LLMJudge dev as the trainer always did (quarter 0 held back by default)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from shared_data import shared_data_path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

import guard_e5_data as data  # noqa: E402
import guard_semantic_calibrate as calib  # noqa: E402


def test_the_rate_threshold_flags_at_most_its_share_and_is_the_lowest_that_does():
    s = np.array([0.9, 0.8, 0.8, 0.7, 0.5, 0.4, 0.3, 0.2, 0.1, 0.0] * 100)  # 1,000 documents
    for rate in (0.001, 0.05, 0.1, 0.25):
        t = calib.rate_threshold(s, rate)
        assert calib.flagged(s, t) <= rate * len(s)
        below = np.nextafter(t, 0.0)
        assert calib.flagged(s, below) > rate * len(s) or below < 0.0
    # ties at the cut stay unflagged together: 300 documents score 0.8 or more, 100 of them 0.9
    assert calib.flagged(s, calib.rate_threshold(s, 0.2)) == 100


def test_the_first_rule_is_at_most_k_documents():
    s = np.array([0.95, 0.6, 0.6, 0.3, -1.0])
    assert calib.flagged(s, calib.at_most(s, 1)) == 1
    assert calib.flagged(s, calib.at_most(s, 2)) == 1  # the tie at 0.6: both or neither
    assert calib.flagged(s, calib.at_most(s, 3)) == 3


def test_by_simulation_the_threshold_flags_about_its_rate_of_fresh_text_and_its_interval_covers():
    """Scores from a known distribution (most near 0, a long tail): the rate threshold of one pool
    flags about the rate of a fresh sample, and the bootstrap's 95 % interval holds the true
    (1 - rate) quantile in roughly 95 % of pools."""
    rng = np.random.default_rng(7)

    def draw(n: int) -> np.ndarray:
        return rng.beta(0.5, 8.0, n)

    rate, n = 0.005, 3000
    truth = np.quantile(draw(2_000_000), 1 - rate)
    covered, fresh = 0, []
    for i in range(60):
        pool = draw(n)
        t = calib.rate_threshold(pool, rate)
        lo, hi = np.percentile(calib.bootstrap(pool, rate, 300, i), [2.5, 97.5])
        covered += lo <= truth <= hi
        fresh.append(float((draw(20_000) >= t).mean()))
    assert 0.8 <= covered / 60 <= 1.0
    assert 0.5 * rate <= float(np.mean(fresh)) <= 1.5 * rate


def test_cross_fitting_scores_each_document_with_its_own_quarters_model():
    pool = calib.Pool("p", (0, 1, 1, 2, 0), (("a",), ("b", "c"), None, (), ("d", "e")))
    models = {0: 0.1, 1: 0.2, 2: 0.3}  # each quarter's "model": a probability per window, by its length

    def prob(fold: int, texts: list[str]) -> list[float]:
        return [models[fold] * len(t) for t in texts]

    assert calib.scores(pool, prob).tolist() == [0.1, 0.2, -1.0, 0.0, 0.1]
    assert calib.scores(pool, prob, only=1).tolist() == [0.2, -1.0]


@pytest.mark.realdata
def test_the_quarters_split_llmjudge_dev_and_quarter_0_is_held_back_by_default():
    shared_data_path("llmjudge-dev", "passages.jsonl")
    docs = data.llmjudge(data.DATA)
    assert data.training_docs(docs) == data.training_docs(docs, 0)
    for f in range(data.FOLDS):
        kept = {d.docid for d in data.training_docs(docs, f)}
        out = {d.docid for d in docs} - kept
        assert out and all(data.quarter(d) == f for d in out)
        assert all(data.quarter(d) != f for d in kept)
    assert sum(len(data.training_docs(docs, f)) for f in range(4)) == 3 * len(docs)
