"""Rank correlations against scipy and plain implementations of the published definitions."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import kendalltau, spearmanr

from qrelkit.errors import UsageError
from qrelkit.evaluate.correlation import (
    correlate,
    kendall_tau,
    kendall_tau_batch,
    ranking,
    rbo,
    rbo_batch,
    spearman_rho_batch,
    tau_ap,
    tau_ap_batch,
)


def tau_ap_reference(truth: list, judged: list) -> float:
    """Yilmaz, Aslam & Robertson (2008), eq. 2, written out: for each item of the
    judged ranking after the first, the share of the items above it that the
    true ranking also puts above it."""
    pos = {x: i for i, x in enumerate(truth)}
    n = len(judged)
    total = 0.0
    for i in range(1, n):
        above = judged[:i]
        correct = sum(1 for x in above if pos[x] < pos[judged[i]])
        total += correct / i
    return 2 / (n - 1) * total - 1


def rbo_by_extrapolated_sum(a: list, b: list, p: float, depth: int = 4000) -> float:
    """RBO as the infinite weighted sum of agreements (Webber et al. 2010, eq. 7),
    with the agreement beyond the lists' end held at its last value (the
    assumption behind RBO_ext, eq. 30), truncated where p^d is negligible."""
    k = len(a)
    agreement = []
    for d in range(1, k + 1):
        agreement.append(len(set(a[:d]) & set(b[:d])) / d)
    total = 0.0
    for d in range(1, depth + 1):
        a_d = agreement[d - 1] if d <= k else agreement[-1]
        total += p ** (d - 1) * a_d
    return (1 - p) * total


def test_tau_batch_matches_scipy_with_ties():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 6, size=(50, 12)).astype(float)  # many ties
    b = rng.integers(0, 6, size=(50, 12)).astype(float)
    got = kendall_tau_batch(a, b)
    for i in range(50):
        assert got[i] == pytest.approx(kendalltau(a[i], b[i]).statistic, abs=1e-12)
    assert kendall_tau(a[0], b[0]) == pytest.approx(got[0])


def test_spearman_batch_matches_scipy():
    rng = np.random.default_rng(1)
    a = rng.integers(0, 8, size=(40, 15)).astype(float)
    b = rng.random((40, 15))
    got = spearman_rho_batch(a, b)
    for i in range(40):
        assert got[i] == pytest.approx(spearmanr(a[i], b[i]).statistic, abs=1e-12)


def test_tau_ap_worked_example():
    # one swap at the top of four items: tau counts it once (2/3), tau_AP weighs it more (1/3)
    truth = np.array([4.0, 3.0, 2.0, 1.0])  # a > b > c > d
    judged = np.array([3.0, 4.0, 2.0, 1.0])  # b > a > c > d
    assert kendall_tau(truth, judged) == pytest.approx(2 / 3)
    assert tau_ap(truth, judged) == pytest.approx(1 / 3)
    # the same swap at the bottom costs tau_AP less than tau
    judged_bottom = np.array([4.0, 3.0, 1.0, 2.0])
    assert tau_ap(truth, judged_bottom) == pytest.approx(2 / 3 * (1 + 1 + 2 / 3) - 1)
    assert tau_ap(truth, truth) == pytest.approx(1.0)
    assert tau_ap(truth, -truth) == pytest.approx(-1.0)


def test_tau_ap_batch_matches_definition():
    rng = np.random.default_rng(2)
    names = [f"s{i}" for i in range(9)]
    ref = rng.random((30, 9))
    oth = rng.random((30, 9))
    got = tau_ap_batch(ref, oth)
    for i in range(30):
        expected = tau_ap_reference(ranking(ref[i], names), ranking(oth[i], names))
        assert got[i] == pytest.approx(expected, abs=1e-12)


def test_rbo_extrapolated_equals_the_infinite_sum():
    rng = np.random.default_rng(3)
    for p in (0.5, 0.8, 0.9, 0.95):
        for _ in range(10):
            a = list(rng.permutation(12))
            b = list(rng.permutation(12))
            assert rbo(a, b, p) == pytest.approx(rbo_by_extrapolated_sum(a, b, p), abs=1e-9)


def test_rbo_known_values():
    assert rbo(list("abcde"), list("abcde"), 0.9) == pytest.approx(1.0)
    assert rbo(list("abc"), list("xyz"), 0.9) == pytest.approx(0.0)
    # Hand computation: S = a b c, T = b a c, p = 0.5:
    # X = (0, 2, 3); RBO_ext = (1-p)/p * (0/1*p + 2/2*p^2 + 3/3*p^3) + 3/3 * p^3
    p = 0.5
    expected = (1 - p) / p * (p**2 + p**3) + p**3
    assert rbo(list("abc"), list("bac"), p) == pytest.approx(expected)
    with pytest.raises(UsageError):
        rbo(["a"], ["a"], 1.0)


def test_rbo_uneven_lists():
    s, long = list("abc"), list("acbxy")
    v = rbo(s, long, 0.9)
    assert v == pytest.approx(rbo(long, s, 0.9))  # symmetric
    assert 0 < v < 1
    # a prefix of the other list agrees perfectly where it is defined: RBO_ext = 1
    assert rbo(list("ab"), list("abcd"), 0.9) == pytest.approx(1.0)
    # eq. 32 reduces to eq. 30 for equal lengths
    a, b = list("abcdef"), list("badcfe")
    assert rbo(a, b, 0.9) == pytest.approx(rbo_by_extrapolated_sum(a, b, 0.9), abs=1e-9)


def test_rbo_batch_matches_scalar():
    rng = np.random.default_rng(4)
    names = [f"s{i}" for i in range(10)]
    a = rng.random((25, 10))
    b = rng.random((25, 10))
    got = rbo_batch(a, b, 0.9)
    for i in range(25):
        assert got[i] == pytest.approx(rbo(ranking(a[i], names), ranking(b[i], names), 0.9), abs=1e-12)


def test_correlate_point_and_bootstrap():
    rng = np.random.default_rng(5)
    a = rng.random((8, 30))
    b = a + rng.normal(0, 0.05, size=a.shape)
    res = correlate(a, b, "m", p=0.9, bootstrap=300, seed=7)
    assert res.kendall_tau.value == pytest.approx(kendalltau(a.mean(1), b.mean(1)).statistic)
    assert res.spearman_rho.value == pytest.approx(spearmanr(a.mean(1), b.mean(1)).statistic)
    for iv in (res.kendall_tau, res.tau_ap, res.spearman_rho, res.rbo):
        assert iv.low <= iv.high
    again = correlate(a, b, "m", p=0.9, bootstrap=300, seed=7)
    assert again.to_dict() == res.to_dict()  # seeded
    # the bootstrap resamples topics: an independent loop gives the same interval
    r = np.random.default_rng(7)
    idx = r.integers(0, 30, size=(300, 30))
    taus = [kendalltau(a[:, row].mean(1), b[:, row].mean(1)).statistic for row in idx]
    lo, hi = np.quantile(taus, [0.025, 0.975])
    assert (res.kendall_tau.low, res.kendall_tau.high) == pytest.approx((lo, hi))


def test_identical_rankings():
    a = np.arange(10, dtype=float)[:, None] * np.ones((1, 5))
    res = correlate(a, a, bootstrap=50)
    assert res.kendall_tau.value == pytest.approx(1.0)
    assert res.tau_ap.value == pytest.approx(1.0)
    assert res.rbo.value == pytest.approx(1.0)
    with pytest.raises(UsageError):
        correlate(a[:1], a[:1])


def test_all_permutations_small():
    names = list("abcd")
    base = np.array([4.0, 3.0, 2.0, 1.0])
    for perm in itertools.permutations(range(4)):
        other = base[list(perm)]
        assert tau_ap(base, other) == pytest.approx(tau_ap_reference(names, ranking(other, names)))


def _truncated_rbo(a, b, p, depth):
    """(1-p) sum_d p^(d-1) X_d/d to a finite depth: the definition, written out."""
    sa, sb, x, total = set(), set(), 0, 0.0
    for d in range(depth):
        sa.add(a[d])
        sb.add(b[d])
        x += (a[d] in sb) + (b[d] in sa) - (a[d] == b[d])
        total += p**d * x / (d + 1)
    return (1 - p) * total


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("p", [0.5, 0.8, 0.9])
def test_rbo_bounds_are_the_extremes_of_every_continuation(seed, p):
    from qrelkit.evaluate.correlation import rbo, rbo_bounds

    rng = np.random.default_rng(seed)
    k = int(rng.integers(3, 10))
    a = [int(i) for i in rng.choice(15, k, replace=False)]
    b = [int(i) for i in rng.choice(15, k, replace=False)]
    r = rbo_bounds(a, b, p)
    far = 3000
    # minimum: nothing else ever matches; maximum: each list next brings the other's unseen items, then the same ones
    lo = _truncated_rbo(a + [f"a{i}" for i in range(far)], b + [f"b{i}" for i in range(far)], p, far)
    hi = _truncated_rbo(a + [i for i in b if i not in a] + [f"c{i}" for i in range(far)],
                        b + [i for i in a if i not in b] + [f"c{i}" for i in range(far)], p, far)
    assert r.min == pytest.approx(lo, abs=1e-12)
    assert r.min + r.res == pytest.approx(hi, abs=1e-12)
    assert r.ext == pytest.approx(rbo(a, b, p), abs=1e-12)


def test_rbo_bounds_of_a_full_ranking_by_hand():
    from qrelkit.evaluate.correlation import rbo_bounds

    # two systems swapped at the top: X_1 = 0, X_2 = 2; p = 0.5
    r = rbo_bounds(["s1", "s2"], ["s2", "s1"], 0.5)
    assert r.ext == pytest.approx(2 / 2 * 0.25 + 1 * (0 + 2 / 2 * 0.25))  # 0.5
    assert r.min == pytest.approx(1 * ((0 - 2) * 0.5 + 0) - 2 * math.log(0.5))
    assert r.res == pytest.approx(0.5 ** 1 - 2 * (-math.log(0.5) - 0.5))
