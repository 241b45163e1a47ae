"""The linear estimator against an independent implementation: ppi_py (ppi-python, MIT) in the uniform case.

With a simple random sample from a large universe, our Horvitz–Thompson PPI estimate of a mean, its
interval and PPI++'s lambda must agree with ``ppi_py.ppi_mean_ci`` / ``ppi_mean_pointestimate``: ppi_py
treats the labelled sample as i.i.d. and adds the (tiny) variance of the unlabelled mean, we apply the
finite-population correction 1 - n/N; with n/N = 0.25% the two differ by well under 1%.
"""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from qrelkit.estimate.ppi import LabelledDesign, power_tune, variance

ppi_py = pytest.importorskip("ppi_py", reason="ppi-python is in the dev extra")

N, n = 200_000, 500


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    truth = (rng.random(N) < 0.3).astype(float)
    guess = np.clip(truth * 0.3 + rng.normal(0.2, 0.3, N), 0, 1)  # a biased, noisy judge (optimal lambda < 1)
    drawn = rng.choice(N, size=n, replace=False)
    design = LabelledDesign(drawn, truth[drawn].astype(int), np.full(n, N / n), np.zeros(n, int), np.zeros(n, int),
                            np.array([(1 - n / N) * n / (n - 1)]))
    return truth, guess, drawn, design


def ours(truth, guess, drawn, design, lam):
    y, f = truth[drawn], guess[drawn]
    estimate = (lam * guess.sum() + (design.weight * (y - lam * f)).sum()) / N
    half = norm.ppf(0.975) * np.sqrt(variance(design, y[None], f[None], np.array([lam]))[0]) / N
    return estimate, half


@pytest.mark.parametrize("lam", [1.0, 0.0, 0.5])
def test_the_estimate_agrees_with_ppi_py(data, lam):
    truth, guess, drawn, design = data
    theirs = ppi_py.ppi_mean_pointestimate(truth[drawn], guess[drawn], guess, lam=lam)
    assert ours(*data, lam)[0] == pytest.approx(float(np.ravel(theirs)[0]), abs=1e-12)


@pytest.mark.parametrize("lam", [1.0, 0.5])
def test_the_interval_width_agrees_with_ppi_py(data, lam):
    truth, guess, drawn, design = data
    low, high = ppi_py.ppi_mean_ci(truth[drawn], guess[drawn], guess, alpha=0.05, lam=lam)
    assert 2 * ours(*data, lam)[1] == pytest.approx(float(np.ravel(high)[0] - np.ravel(low)[0]), rel=0.01)


def test_power_tuning_agrees_with_ppi_py(data):
    truth, guess, drawn, design = data
    lam = power_tune(design, truth[drawn][None], guess[drawn][None])[0, 0]
    y, f = truth[drawn], guess[drawn]
    theirs = np.cov(y, f)[0, 1] / ((1 + n / N) * np.var(f, ddof=1))  # ppi_py's closed form for the mean
    point = ppi_py.ppi_mean_pointestimate(y, f, guess, lam=None)
    assert lam == pytest.approx(theirs, rel=0.01)
    assert ours(*data, lam)[0] == pytest.approx(float(np.ravel(point)[0]), abs=2e-3)
