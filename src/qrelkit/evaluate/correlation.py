"""How similar two system rankings are: Kendall's tau, tau_AP, Spearman's rho,
rank-biased overlap, with bootstrap confidence intervals over topics.

Why batch functions: stability sampling compares 10,000 rankings with the
primary one, and a bootstrap 1,000 pairs of rankings; a Python loop over
scipy calls would dominate the run time. The batch forms here work on arrays
``[B, n]`` of scores and are tested against scipy (tau, rho) and against a
plain implementation of the published definitions (tau_AP, RBO).

Conventions:
- Inputs are *scores* (higher is better) of the same systems in the same order.
- Kendall's tau is tau-b (ties in either ranking handled as scipy does).
- tau_AP (Yilmaz, Aslam & Robertson 2008) is asymmetric: the first argument is
  the reference ("truth"), the second the ranking being judged; it weighs
  swaps near the top more. Ties are broken by system order, as is RBO's.
- RBO is the extrapolated form RBO_ext (Webber, Moffat & Zobel 2010, eq. 32),
  persistence ``p`` (default 0.9: the top ~10 systems carry 86% of the weight).
  :func:`rbo_bounds` adds the bounds of the same paper for two lists seen to
  depth k: RBO_min (eq. 11, no further overlap beyond k) and the residual
  RBO_res (the most that agreement beyond k could add), so that
  RBO_min <= RBO_ext <= RBO_min + RBO_res. With X_d the overlap at depth d and
  f = 2k - X_k (the depth at which the unseen items could all have matched):

      RBO_min = (1-p)/p * ( sum_{d<=k} (X_d - X_k) p^d / d  -  X_k ln(1-p) )
      RBO_res = (1-p)/p * sum_{k<d<f} 2(d-k) p^d / d
                + p^(f-1) - X_k (1-p)/p * ( -ln(1-p) - sum_{d<f} p^d / d )
      RBO_ext = X_k/k p^k + (1-p)/p * sum_{d<=k} X_d/d p^d
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from qrelkit.errors import UsageError

_CHUNK = 512  # rows per chunk of pairwise work, to bound memory at ~B*n*n/ _CHUNK


@dataclass(frozen=True)
class Interval:
    """A point estimate with a bootstrap percentile interval."""

    value: float
    low: float
    high: float

    def to_dict(self) -> dict:
        return {"value": _f(self.value), "ci_low": _f(self.low), "ci_high": _f(self.high)}


# ----------------------------------------------------------------- scalar forms
def kendall_tau(a: Sequence[float], b: Sequence[float]) -> float:
    """Kendall's tau-b between two score vectors (scipy)."""
    from scipy.stats import kendalltau

    if len(a) < 2:
        return float("nan")
    return float(kendalltau(a, b).statistic)


def spearman_rho(a: Sequence[float], b: Sequence[float]) -> float:
    from scipy.stats import spearmanr

    if len(a) < 2:
        return float("nan")
    return float(spearmanr(a, b).statistic)


def tau_ap(reference: Sequence[float], other: Sequence[float]) -> float:
    """tau_AP of ``other``'s ranking against ``reference``'s (see module doc)."""
    return float(tau_ap_batch(np.asarray(reference, float)[None], np.asarray(other, float)[None])[0])


def rbo(ranking_a: Sequence[object], ranking_b: Sequence[object], p: float = 0.9) -> float:
    """Extrapolated rank-biased overlap of two rankings (lists of ids, best first),
    of possibly different lengths (Webber et al. 2010, eq. 32)."""
    _check_p(p)
    s_list, l_list = (list(ranking_a), list(ranking_b))
    if len(s_list) > len(l_list):
        s_list, l_list = l_list, s_list
    s, n_long = len(s_list), len(l_list)
    if n_long == 0:
        return 1.0
    if s == 0:
        return 0.0
    seen_s: set = set()
    seen_l: set = set()
    overlap = 0
    x = [0] * (n_long + 1)  # x[d] = overlap at depth d
    for d in range(1, n_long + 1):
        item_l = l_list[d - 1]
        if d <= s:
            item_s = s_list[d - 1]
            if item_s == item_l:
                overlap += 1
            else:
                overlap += (item_s in seen_l) + (item_l in seen_s)
            seen_s.add(item_s)
        else:
            overlap += item_l in seen_s
        seen_l.add(item_l)
        x[d] = overlap
    x_s, x_l = x[s], x[n_long]
    total = sum(x[d] / d * p**d for d in range(1, n_long + 1))
    total += sum(x_s * (d - s) / (s * d) * p**d for d in range(s + 1, n_long + 1))
    return float((1 - p) / p * total + ((x_l - x_s) / n_long + x_s / s) * p**n_long)


@dataclass(frozen=True)
class RBOBounds:
    """Rank-biased overlap of two lists seen to depth k (see module doc)."""

    p: float
    depth: int
    ext: float  # extrapolated
    min: float  # lower bound: nothing more overlaps beyond depth k
    res: float  # residual: the most that depths beyond k could add

    def to_dict(self) -> dict:
        return {"p": self.p, "depth": self.depth, "rbo_ext": self.ext, "rbo_min": self.min, "rbo_res": self.res,
                "rbo_max": self.min + self.res}


def rbo_bounds(ranking_a: Sequence[object], ranking_b: Sequence[object], p: float = 0.9) -> RBOBounds:
    """RBO_ext, RBO_min and RBO_res of two equal-length rankings (ids, best first)."""
    _check_p(p)
    a, b = list(ranking_a), list(ranking_b)
    if len(a) != len(b):
        raise UsageError(f"rbo_bounds needs two rankings of the same depth, got {len(a)} and {len(b)}")
    k = len(a)
    if k == 0:
        return RBOBounds(p, 0, 1.0, 1.0, 0.0)
    seen_a: set = set()
    seen_b: set = set()
    x = [0]
    for d in range(k):
        seen_a.add(a[d])
        seen_b.add(b[d])
        x.append(x[-1] + (a[d] in seen_b) + (b[d] in seen_a) - (a[d] == b[d]))
    xk = x[k]
    c = (1 - p) / p
    ext = xk / k * p**k + c * sum(x[d] / d * p**d for d in range(1, k + 1))
    lo = c * (sum((x[d] - xk) * p**d / d for d in range(1, k + 1)) - xk * math.log(1 - p))
    f = 2 * k - xk
    res = c * sum(2 * (d - k) * p**d / d for d in range(k + 1, f))
    res += p ** (f - 1) - xk * c * (-math.log(1 - p) - sum(p**d / d for d in range(1, f)))
    return RBOBounds(p, k, float(ext), float(lo), float(res))


def ranking(scores: Sequence[float], names: Sequence[str]) -> list[str]:
    """Names best first; equal scores keep the given order (stable)."""
    order = np.argsort(-np.asarray(scores, float), kind="stable")
    return [names[i] for i in order]


# ------------------------------------------------------------------ batch forms
def kendall_tau_batch(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """tau-b row by row; ``a`` and ``b`` broadcast to ``[B, n]``."""
    a, b = _batch(a, b)
    n = a.shape[1]
    i, j = np.triu_indices(n, 1)
    out = np.empty(a.shape[0])
    for lo in range(0, a.shape[0], _CHUNK):
        sa = np.sign(a[lo:lo + _CHUNK, i] - a[lo:lo + _CHUNK, j])
        sb = np.sign(b[lo:lo + _CHUNK, i] - b[lo:lo + _CHUNK, j])
        num = (sa * sb).sum(axis=1)
        den = np.sqrt((sa * sa).sum(axis=1) * (sb * sb).sum(axis=1))
        with np.errstate(invalid="ignore", divide="ignore"):
            out[lo:lo + _CHUNK] = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    return out


def spearman_rho_batch(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spearman's rho (Pearson on average ranks) row by row."""
    from scipy.stats import rankdata

    a, b = _batch(a, b)
    ra = rankdata(a, axis=1)
    rb = rankdata(b, axis=1)
    ra = ra - ra.mean(axis=1, keepdims=True)
    rb = rb - rb.mean(axis=1, keepdims=True)
    den = np.sqrt((ra * ra).sum(axis=1) * (rb * rb).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (ra * rb).sum(axis=1) / np.where(den > 0, den, 1), np.nan)


def tau_ap_batch(reference: np.ndarray, other: np.ndarray) -> np.ndarray:
    """tau_AP of each row of ``other`` against the matching row of ``reference``."""
    ref, oth = _batch(reference, other)
    B, n = ref.shape
    if n < 2:
        return np.full(B, np.nan)
    out = np.empty(B)
    lower = np.tril(np.ones((n, n), dtype=bool), -1)  # j < i
    weights = 1.0 / np.arange(1, n)  # 1/(i-1) for i = 2..n
    for lo in range(0, B, _CHUNK):
        r, o = ref[lo:lo + _CHUNK], oth[lo:lo + _CHUNK]
        ref_pos = _positions(r)  # position of each system in the reference ranking
        order = np.argsort(-o, axis=1, kind="stable")  # the judged ranking
        rp = np.take_along_axis(ref_pos, order, axis=1)  # reference positions, in judged order
        # C(i): items above i in the judged ranking that are also above it in the reference
        correct = (rp[:, None, :] < rp[:, :, None]) & lower[None]
        c = correct.sum(axis=2)[:, 1:]
        out[lo:lo + _CHUNK] = 2.0 / (n - 1) * (c * weights).sum(axis=1) - 1.0
    return out


def rbo_batch(a: np.ndarray, b: np.ndarray, p: float = 0.9) -> np.ndarray:
    """RBO_ext of the rankings induced by each row pair (equal-length lists)."""
    _check_p(p)
    a, b = _batch(a, b)
    B, n = a.shape
    if n == 0:
        return np.ones(B)
    out = np.empty(B)
    d = np.arange(1, n + 1)
    w = p**d / d
    for lo in range(0, B, _CHUNK):
        pa, pb = _positions(a[lo:lo + _CHUNK]), _positions(b[lo:lo + _CHUNK])
        m = np.maximum(pa, pb)  # an item is in both top-d prefixes iff max(pos) < d
        x = np.stack([(m < k).sum(axis=1) for k in d], axis=1).astype(float)  # X_d
        out[lo:lo + _CHUNK] = (1 - p) / p * (x * w).sum(axis=1) + x[:, -1] / n * p**n
    return out


def _positions(scores: np.ndarray) -> np.ndarray:
    """0-based position of each column in the descending (stable) order of its row."""
    order = np.argsort(-scores, axis=1, kind="stable")
    pos = np.empty_like(order)
    np.put_along_axis(pos, order, np.arange(scores.shape[1])[None].repeat(scores.shape[0], 0), axis=1)
    return pos


def _batch(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = np.atleast_2d(np.asarray(a, dtype=float))
    b = np.atleast_2d(np.asarray(b, dtype=float))
    a, b = np.broadcast_arrays(a, b)
    return a, b


def _check_p(p: float) -> None:
    if not 0 < p < 1:
        raise UsageError(f"RBO persistence p must be strictly between 0 and 1, got {p}")


# ------------------------------------------------------------ comparing versions
@dataclass(frozen=True)
class RankingCorrelation:
    """Agreement of two system rankings on one measure, each statistic with a
    percentile bootstrap interval over topics (topics resampled with
    replacement, the same resample for both versions, seeded)."""

    measure: str
    systems: int
    topics: int
    kendall_tau: Interval
    tau_ap: Interval
    spearman_rho: Interval
    rbo: Interval
    rbo_p: float
    bootstrap: int
    confidence: float
    seed: int

    def to_dict(self) -> dict:
        return {
            "measure": self.measure,
            "systems": self.systems,
            "topics": self.topics,
            "kendall_tau": _f(self.kendall_tau.value),
            "tau_ap": _f(self.tau_ap.value),
            "spearman_rho": _f(self.spearman_rho.value),
            "rbo": _f(self.rbo.value),
            "rbo_p": self.rbo_p,
            "ci": {
                "kendall_tau": [_f(self.kendall_tau.low), _f(self.kendall_tau.high)],
                "tau_ap": [_f(self.tau_ap.low), _f(self.tau_ap.high)],
                "spearman_rho": [_f(self.spearman_rho.low), _f(self.spearman_rho.high)],
                "rbo": [_f(self.rbo.low), _f(self.rbo.high)],
            },
            "bootstrap": self.bootstrap,
            "confidence": self.confidence,
            "seed": self.seed,
        }


def correlate(
    per_topic_a: np.ndarray,
    per_topic_b: np.ndarray,
    measure: str = "",
    p: float = 0.9,
    bootstrap: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> RankingCorrelation:
    """Rank correlations between the system rankings of two ``[system, topic]``
    matrices (same systems and topics, in the same order). ``a`` is the
    reference for tau_AP."""
    a = np.asarray(per_topic_a, float)
    b = np.asarray(per_topic_b, float)
    if a.shape != b.shape:
        raise UsageError(f"cannot correlate score matrices of shapes {a.shape} and {b.shape}")
    n_sys, n_top = a.shape
    if n_top == 0 or n_sys < 2:
        raise UsageError("need at least two systems and one topic to correlate rankings")
    ma, mb = a.mean(axis=1), b.mean(axis=1)
    point = (
        kendall_tau(ma, mb),
        float(tau_ap_batch(ma[None], mb[None])[0]),
        spearman_rho(ma, mb),
        float(rbo_batch(ma[None], mb[None], p)[0]),
    )
    if bootstrap > 0:
        ba, bb = _resampled_means(a, b, bootstrap, seed)  # means over the resampled topics: [B, system]
        samples = (kendall_tau_batch(ba, bb), tau_ap_batch(ba, bb), spearman_rho_batch(ba, bb), rbo_batch(ba, bb, p))
        alpha = (1 - confidence) / 2
        cis = [_percentiles(s, alpha) for s in samples]
    else:
        cis = [(float("nan"), float("nan"))] * 4
    iv = [Interval(v, lo, hi) for v, (lo, hi) in zip(point, cis)]
    return RankingCorrelation(measure, n_sys, n_top, iv[0], iv[1], iv[2], iv[3], p, bootstrap, confidence, seed)


def _resampled_means(a: np.ndarray, b: np.ndarray, bootstrap: int, seed: int,
                     budget: int = 4_000_000) -> tuple[np.ndarray, np.ndarray]:
    """``m[:, idx].mean(axis=2).T`` of both matrices for ``bootstrap`` seeded resamples of the
    topics, a block of resamples at a time: the whole ``[system, B, topic]`` gather was 400 MB
    for 20 systems x 2,500 topics, and the ``[B, topic]`` indices alone are 200 MB at 25,000
    topics (benchmarks/scale.py, `report`). The blocks draw the same stream of indices as one
    draw would: same numbers."""
    rng = np.random.default_rng(seed)
    n_top = a.shape[1]
    step = max(1, budget // max(1, a.shape[0] * n_top))
    out_a, out_b = [], []
    for i in range(0, bootstrap, step):
        idx = rng.integers(0, n_top, size=(min(step, bootstrap - i), n_top))
        out_a.append(a[:, idx].mean(axis=2).T)
        out_b.append(b[:, idx].mean(axis=2).T)
    return np.concatenate(out_a), np.concatenate(out_b)


def _percentiles(x: np.ndarray, alpha: float) -> tuple[float, float]:
    x = x[~np.isnan(x)]
    if not len(x):
        return float("nan"), float("nan")
    lo, hi = np.quantile(x, [alpha, 1 - alpha])
    return float(lo), float(hi)


def summarize(x: np.ndarray) -> dict:
    """Distribution summary used for sampled statistics."""
    x = np.asarray(x, float)
    x = x[~np.isnan(x)]
    if not len(x):
        return {"mean": None, "std": None, "min": None, "p025": None, "median": None, "p975": None, "max": None}
    q = np.quantile(x, [0.025, 0.5, 0.975])
    return {
        "mean": float(x.mean()), "std": float(x.std(ddof=1)) if len(x) > 1 else 0.0, "min": float(x.min()),
        "p025": float(q[0]), "median": float(q[1]), "p975": float(q[2]), "max": float(x.max()),
    }


def _f(x: Optional[float]) -> Optional[float]:
    """JSON has no NaN: undefined statistics become null."""
    if x is None:
        return None
    x = float(x)
    return None if np.isnan(x) else x


# ---------------------------------------------- meta-evaluation (the AutoJudge suite's figures)
# Two leaderboards of the same systems (a = the reference, e.g. the official qrels; b = the judge's).
# - top-k tau: Kendall's tau-b on the k systems the reference ranks best (ties at the k-th place
#   broken by system order): do the two agree where a leaderboard is read?
# - tau_AP,b (Urbano & Marrero 2017, "The Treatment of Ties in AP Correlation"): tau_AP for rankings
#   with ties, the agreement form, symmetric. For one direction, read Y with its ties: each system i
#   outside Y's top tie group has p_i systems strictly above it in Y, of which C_i are strictly above
#   it in X too; tau*(X|Y) = 2/n' * sum_i C_i/p_i - 1 over those n' systems; tau_AP,b is the mean
#   of tau*(X|Y) and tau*(Y|X). Without ties it is the mean of tau_AP both ways.
# - Pearson's r on the scores themselves (a judge can rank right and score wrong).
# - Bland-Altman: the mean difference b - a of a system's scores (bias: > 0 means b is more
#   lenient) and the 95% limits of agreement, bias -/+ 1.96 standard deviations of the differences.
TOP_K = 10
ON_MISSING = ("error", "drop", "worst")


def kendall_tau_top(reference: Sequence[float], other: Sequence[float], k: int = TOP_K) -> float:
    """Kendall's tau-b restricted to the ``k`` systems ``reference`` ranks best."""
    ref = np.asarray(reference, float)
    top = np.argsort(-ref, kind="stable")[:k]
    return kendall_tau(ref[top], np.asarray(other, float)[top])


def _tau_ap_b_one_way(x: np.ndarray, y: np.ndarray) -> float:
    """tau*(X|Y): systems read in Y's order, ties in Y kept as tie groups."""
    above_y = y[None, :] > y[:, None]  # [i, j]: j strictly above i in Y
    above_x = x[None, :] > x[:, None]
    p = above_y.sum(axis=1)
    c = (above_y & above_x).sum(axis=1)
    keep = p > 0
    if not keep.any():
        return float("nan")
    return float(2.0 / keep.sum() * (c[keep] / p[keep]).sum() - 1.0)


def tau_ap_ties(a: Sequence[float], b: Sequence[float]) -> float:
    """tau_AP,b of two score vectors (see above): symmetric, ties allowed in either."""
    x, y = np.asarray(a, float), np.asarray(b, float)
    if len(x) < 2:
        return float("nan")
    return (_tau_ap_b_one_way(x, y) + _tau_ap_b_one_way(y, x)) / 2


def pearson_r(a: Sequence[float], b: Sequence[float]) -> float:
    from scipy.stats import pearsonr

    x, y = np.asarray(a, float), np.asarray(b, float)
    if len(x) < 2 or x.std() == 0 or y.std() == 0:
        return float("nan")
    return float(pearsonr(x, y).statistic)


@dataclass(frozen=True)
class BlandAltman:
    """Bias of ``b`` against ``a`` (mean of b - a) and the 95% limits of agreement."""

    bias: float
    sd: float
    low: float
    high: float


def bland_altman(a: Sequence[float], b: Sequence[float], z: float = 1.96) -> BlandAltman:
    d = np.asarray(b, float) - np.asarray(a, float)
    if len(d) == 0:
        return BlandAltman(*(float("nan"),) * 4)
    bias = float(d.mean())
    sd = float(d.std(ddof=1)) if len(d) > 1 else float("nan")
    return BlandAltman(bias, sd, bias - z * sd, bias + z * sd)


def meta_evaluation(a: Sequence[float], b: Sequence[float], k: int = TOP_K) -> dict:
    """The figures above for two leaderboards (scores of the same systems, same order), as the
    ``--json`` keys ``kendall_tau_top{k}``, ``tau_ap_ties``, ``pearson_r``, ``bland_altman_*``."""
    ba = bland_altman(a, b)
    return {
        f"kendall_tau_top{k}": _f(kendall_tau_top(a, b, k)),
        "tau_ap_ties": _f(tau_ap_ties(a, b)),
        "pearson_r": _f(pearson_r(a, b)),
        "bland_altman_bias": _f(ba.bias),
        "bland_altman_sd": _f(ba.sd),
        "bland_altman_loa": [_f(ba.low), _f(ba.high)],
    }


@dataclass(frozen=True)
class Alignment:
    """The systems two leaderboards are compared on, under an ``--on-missing`` policy."""

    systems: tuple[str, ...]
    dropped: tuple[str, ...]  # present in only one leaderboard and left out (drop)
    worst: tuple[str, ...]  # present in only one and scored at the bottom of the other (worst)
    policy: str

    def to_dict(self) -> dict:
        return {"on_missing": self.policy, "missing_dropped": list(self.dropped), "missing_worst": list(self.worst)}


def align(systems: Sequence[str], absent_a: Sequence[str], absent_b: Sequence[str], policy: str,
          labels: tuple[str, str] = ("a", "b")) -> Alignment:
    """Which of ``systems`` to compare when some are absent from leaderboard a or b.

    ``error``: a user error naming them; ``drop``: compare the others; ``worst``: keep them, scored as
    a run that retrieved nothing (0 on every topic: at or below every present system)."""
    if policy not in ON_MISSING:
        raise UsageError(f"--on-missing {policy!r}: choose from {', '.join(ON_MISSING)}")
    gone = set(absent_a) | set(absent_b)
    missing = [s for s in systems if s in gone]
    if missing and policy == "error":
        where = "; ".join(f"absent from {lab}: {', '.join(s for s in missing if s in set(ab))}"
                          for lab, ab in zip(labels, (absent_a, absent_b)) if set(ab) & set(missing))
        raise UsageError(f"runs present in only one leaderboard ({where}); pass --on-missing drop or worst")
    if policy == "drop":
        return Alignment(tuple(s for s in systems if s not in gone), tuple(missing), (), policy)
    return Alignment(tuple(systems), (), tuple(missing), policy)
