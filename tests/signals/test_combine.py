"""The logistic combination: balanced, standardised, per-topic normalisation, missing values."""
from __future__ import annotations

import numpy as np
import pytest

from qrelkit.signals import combine


def _data():
    rng = np.random.default_rng(0)
    y = np.array([1] * 20 + [0] * 60)
    x = np.column_stack([y * 2.0 + rng.normal(0, 1, 80), rng.normal(0, 1, 80) * 100])
    return x, y


def test_the_informative_signal_gets_the_larger_coefficient():
    x, y = _data()
    m = combine.fit(x, y, ("useful", "noise"))
    assert abs(m.coef[0]) > 3 * abs(m.coef[1])


def test_balanced_weights_keep_recall_of_the_minority_class():
    x, y = _data()
    p = combine.fit(x, y, ("useful", "noise")).probabilities(x)
    assert (p[y == 1] >= 0.5).mean() > 0.7


def test_one_class_only_cannot_be_fitted():
    assert combine.fit(np.zeros((5, 1)), [0] * 5, ("a",)) is None


def test_a_missing_value_is_imputed_with_the_training_mean():
    x, y = _data()
    m = combine.fit(x, y, ("useful", "noise"))
    p = m.probabilities(np.array([[np.nan, m.mean[1]], [m.mean[0], m.mean[1]]]))
    assert p[0] == pytest.approx(p[1])


def test_a_row_with_no_value_gets_no_probability():
    x, y = _data()
    p = combine.fit(x, y, ("useful", "noise")).probabilities(np.array([[np.nan, np.nan]]))
    assert np.isnan(p[0])


def test_per_topic_z_scores_remove_a_topic_offset():
    x = np.array([[1.0], [3.0], [101.0], [103.0]])
    z = combine.per_topic_z(x, ["a", "a", "b", "b"])
    assert z[:, 0].tolist() == [-1.0, 1.0, -1.0, 1.0]


def test_per_topic_z_scores_only_the_flagged_columns():
    x = np.array([[1.0, 5.0], [3.0, 7.0], [10.0, 1.0], [30.0, 2.0]])
    z = combine.per_topic_z(x, ["a", "a", "b", "b"], only=[True, False])
    assert z.tolist() == [[-1.0, 5.0], [1.0, 7.0], [-1.0, 1.0], [1.0, 2.0]]


def test_a_topic_with_one_pair_gets_z_scores_of_zero_not_infinities():
    z = combine.per_topic_z(np.array([[4.0, 2.0]]), ["a"], only=[True, False])
    assert z.tolist() == [[0.0, 2.0]]
