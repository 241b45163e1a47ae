"""Pairwise significance against scipy/statsmodels called pair by pair."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import ttest_rel, wilcoxon
from sklearn.metrics import matthews_corrcoef
from statsmodels.stats.multitest import multipletests

from qrelkit.errors import UsageError
from qrelkit.evaluate.significance import decision_agreement, pairwise_significance


def scores(seed=0, n_sys=6, n_top=25, rounded=True):
    rng = np.random.default_rng(seed)
    base = rng.random((1, n_top))
    x = base + np.linspace(0, 0.3, n_sys)[:, None] + rng.normal(0, 0.1, (n_sys, n_top))
    x[3] = x[2]  # identical systems: every difference is zero
    x[4, :5] = x[1, :5]  # some zero differences
    return np.round(x, 2) if rounded else x  # rounding: ties among differences


@pytest.mark.parametrize("test", ["wilcoxon", "ttest"])
@pytest.mark.parametrize("correction", ["bh", "bonferroni"])
@pytest.mark.parametrize("rounded", [True, False])
def test_matches_scipy_pair_by_pair(test, correction, rounded):
    x = scores(rounded=rounded)
    names = [f"s{i}" for i in range(len(x))]
    res = pairwise_significance(x, names, test=test, correction=correction, alpha=0.05)
    raw = []
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            d = x[i] - x[j]
            if not np.any(d != 0):
                raw.append(1.0)
            elif test == "wilcoxon":
                # scipy's default chooses the same way for 25 topics: exact
                # without zeros and ties, the normal approximation otherwise
                raw.append(wilcoxon(x[i], x[j]).pvalue)
            else:
                raw.append(ttest_rel(x[i], x[j]).pvalue)
    adj = multipletests(raw, alpha=0.05, method={"bh": "fdr_bh", "bonferroni": "bonferroni"}[correction])[1]
    assert len(res.pairs) == len(raw)
    for pt, p, pa in zip(res.pairs, raw, adj):
        assert pt.p_value == pytest.approx(p, rel=1e-9)
        assert pt.p_adjusted == pytest.approx(pa, rel=1e-9)
        expected = 0 if pa >= 0.05 else (1 if pt.mean_diff > 0 else -1)
        assert pt.decision == expected
    ident = [p for p in res.pairs if (p.a, p.b) == ("s2", "s3")][0]
    assert ident.p_value == 1.0 and ident.decision == 0


def test_decision_agreement():
    x = scores(1)
    names = [f"s{i}" for i in range(len(x))]
    a = pairwise_significance(x, names)
    rng = np.random.default_rng(9)
    b = pairwise_significance(x + rng.normal(0, 0.2, x.shape), names)
    agr = decision_agreement(a, b)
    da, db = a.decisions, b.decisions
    assert agr.matthews == pytest.approx(matthews_corrcoef(da, db))
    assert agr.pairs == len(da)
    assert agr.same == int((da == db).sum())
    assert agr.reversed == int(((da != 0) & (db != 0) & (da != db)).sum())
    assert agr.only_a + agr.only_b + agr.same + agr.reversed == agr.pairs + int(
        ((da != 0) & (db != 0) & (da != db)).sum()) - agr.reversed
    assert decision_agreement(a, a).matthews == pytest.approx(1.0)


def test_bad_options():
    with pytest.raises(UsageError):
        pairwise_significance(np.zeros((2, 3)), ["a", "b"], test="sign")
    with pytest.raises(UsageError):
        pairwise_significance(np.zeros((2, 3)), ["a", "b"], correction="holm-ish")


def test_wilcoxon_a_block_of_pairs_at_a_time_gives_the_same_p_values(monkeypatch):
    from qrelkit.evaluate import significance

    rng = np.random.default_rng(7)
    x = rng.random((8, 40))
    x[:4] = np.round(x[:4], 1)  # ties: the normal approximation; the other pairs: the exact test
    whole = pairwise_significance(x, [f"s{i}" for i in range(8)], "wilcoxon")
    monkeypatch.setattr(significance, "BLOCK_VALUES", 41)  # one pair per call to scipy
    blocks = pairwise_significance(x, [f"s{i}" for i in range(8)], "wilcoxon")
    assert [p.p_value for p in blocks.pairs] == [p.p_value for p in whole.pairs]
