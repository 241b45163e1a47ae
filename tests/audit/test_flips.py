"""Counting flips between untouched and altered pairs, and the interval of the rate."""

from __future__ import annotations

import numpy as np
import pytest

from qrelkit.audit.flips import count, wilson

PAIRS = [(("q", f"d{i}"), ("q", f"d{i}~p")) for i in range(6)]
LABELS = {("q", "d0"): 0, ("q", "d0~p"): 1,   # flip up
          ("q", "d1"): 0, ("q", "d1~p"): 0,   # kept
          ("q", "d2"): 1, ("q", "d2~p"): 0,   # flip down
          ("q", "d3"): None, ("q", "d3~p"): 1,  # untouched undecided: not counted
          ("q", "d4"): 0, ("q", "d4~p"): None,  # probe undecided: not counted
          ("q", "d5"): 0, ("q", "d5~p"): 1}   # flip up


@pytest.fixture
def result():
    return count("stuffing-start", "stuffing", "nonrelevant", PAIRS, LABELS)


def test_flips_count_both_directions(result):
    assert result.flips == 3


def test_flips_up_are_counted_apart(result):
    assert result.to_relevant == 2


def test_flips_down_are_counted_apart(result):
    assert result.to_nonrelevant == 1


def test_a_pair_with_an_undecided_verdict_is_not_decided(result):
    assert result.decided == 4


def test_every_pair_is_counted_in_pairs(result):
    assert result.pairs == 6


def test_the_flip_rate_is_over_the_decided_pairs(result):
    assert result.flip_rate.rate == pytest.approx(3 / 4)


def test_the_baseline_relevant_rate_reads_the_decided_untouched_pairs(result):
    assert (result.baseline_relevant.k, result.baseline_relevant.n) == (1, 5)


def test_the_probe_relevant_rate_reads_the_decided_altered_pairs(result):
    assert (result.probe_relevant.k, result.probe_relevant.n) == (3, 5)


def test_the_json_row_flattens_each_rate_with_its_interval(result):
    row = result.to_dict()
    assert row["flip_rate_low"] < row["flip_rate"] < row["flip_rate_high"]


def test_nothing_decided_gives_no_rate():
    assert wilson(0, 0).rate is None


def test_no_flip_still_has_an_upper_bound_above_zero():
    assert wilson(0, 50).high > 0.0


@pytest.mark.parametrize(("p", "n"), [(0.05, 30), (0.2, 50), (0.5, 100)])
def test_the_wilson_interval_covers_the_true_rate_about_95_percent_of_the_time(p, n):
    rng = np.random.default_rng(7)
    ks = rng.binomial(n, p, size=2000)
    covered = np.mean([(r := wilson(int(k), n)).low <= p <= r.high for k in ks])
    assert 0.92 <= covered <= 0.985
