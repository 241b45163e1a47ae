"""Calibration of the learned combination: C by cross-validation, the cases' prior by EM."""
from __future__ import annotations

import numpy as np
import pytest

from qrelkit.signals import combine


def sample(n: int, prior: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """One feature, N(+1, 1) for relevant pairs and N(-1, 1) for the others."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < prior).astype(int)
    return (rng.normal(0, 1, n) + np.where(y == 1, 1.0, -1.0))[:, None], y


def test_c_is_chosen_from_the_grid_by_cross_validation():
    x, y = sample(200, 0.3)
    c, info = combine.choose_c(x, y)
    assert c in combine.C_GRID and info["c"] == c and set(info["cv_log_loss"]) == {str(v) for v in combine.C_GRID}


def test_the_choice_of_c_is_reproducible_with_its_seed():
    x, y = sample(200, 0.3)
    assert combine.choose_c(x, y, seed=4) == combine.choose_c(x, y, seed=4)


def test_too_few_labels_of_a_class_keep_the_default_c_and_say_so():
    x, y = sample(40, 0.0)
    y[:3] = 1
    c, info = combine.choose_c(x, y)
    assert c == combine.C and "only 3 labels" in info["chosen_by"]


def test_a_cross_validated_fit_records_what_was_chosen():
    x, y = sample(200, 0.3)
    model = combine.fit(x, y, ("f",), c=combine.CV)
    assert model.as_dict()["fit"]["c"] == model.c


def test_a_fixed_c_fit_records_no_fit():
    x, y = sample(200, 0.3)
    assert "fit" not in combine.fit(x, y, ("f",)).as_dict()


@pytest.mark.parametrize("prior", [0.1, 0.3, 0.6])
def test_the_cases_prior_is_recovered_from_balanced_probabilities(prior):
    x, _ = sample(5000, prior, seed=1)
    balanced = 1 / (1 + np.exp(-2 * x[:, 0]))  # the exact posterior when both classes are equally likely
    assert combine.case_prior(balanced) == pytest.approx(prior, abs=0.03)


def test_shifting_to_the_training_prior_changes_nothing():
    p = np.array([0.1, 0.5, 0.9])
    assert np.allclose(combine.shift(p, 0.5), p)
