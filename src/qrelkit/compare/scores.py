"""A method's agreement with the reference on a sample, in the shape of DREAM's Tables 1 and 2.

Table 1 scores a method on the cases it *decided* (escalations and errors left out): an
escalating method can look better by escalating more, so the escalation ratio always
stands next to it. Table 2 scores *every* case, escalations answered by people; in a
comparison people are simulated by the reference, so ``balanced_accuracy_overall`` is
what the method plus people would deliver.

The interval is a seeded percentile bootstrap over the decided cases (resampled with
replacement). Resamples that miss a class have no balanced accuracy and are dropped
(and counted), which is why this is written out rather than handed to
``scipy.stats.bootstrap``, whose statistic must be defined on every resample.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Mapping, Optional

import numpy as np

Pair = tuple[str, str]
RESAMPLES = 2000


@dataclass(frozen=True)
class Scores:
    """Agreement figures of one method on one sample (binary relevance by the threshold)."""

    cases: int
    decided: int
    escalated: int
    errors: int
    escalation_ratio: float
    balanced_accuracy: Optional[float]  # on decided cases (Table 1)
    balanced_accuracy_low: Optional[float]  # bootstrap 95 % interval
    balanced_accuracy_high: Optional[float]
    recall_relevant: Optional[float]
    recall_nonrelevant: Optional[float]
    cohen_kappa: Optional[float]
    balanced_accuracy_overall: Optional[float]  # escalations answered from the reference (Table 2)
    recall_relevant_overall: Optional[float]
    recall_nonrelevant_overall: Optional[float]

    def to_dict(self) -> dict:
        return asdict(self)


def _ba(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Balanced accuracy along the last axis (NaN where a class is missing)."""
    pos, neg = y.sum(-1), (1 - y).sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        r_pos = (y * p).sum(-1) / pos
        r_neg = ((1 - y) * (1 - p)).sum(-1) / neg
    return (r_pos + r_neg) / 2


def bootstrap_interval(y: np.ndarray, p: np.ndarray, seed: int, resamples: int = RESAMPLES,
                       level: float = 0.95) -> tuple[Optional[float], Optional[float]]:
    """Percentile interval of balanced accuracy over ``resamples`` seeded resamples."""
    n = len(y)
    if n == 0:
        return None, None
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(resamples, n))
    vals = _ba(y[idx], p[idx])
    vals = vals[~np.isnan(vals)]
    if not len(vals):
        return None, None
    tail = (1 - level) / 2 * 100
    lo, hi = np.percentile(vals, [tail, 100 - tail])
    return float(lo), float(hi)


def _recalls(y: np.ndarray, p: np.ndarray) -> tuple[Optional[float], Optional[float]]:
    pos, neg = int(y.sum()), int((1 - y).sum())
    rr = float((y * p).sum() / pos) if pos else None
    rn = float(((1 - y) * (1 - p)).sum() / neg) if neg else None
    return rr, rn


def score(gold: Mapping[Pair, int], labels: Mapping[Pair, Optional[int]], statuses: Mapping[Pair, str],
          threshold: int, seed: int = 0) -> Scores:
    """``gold``: reference grades of the sample; ``labels``: the method's binary labels (None when
    undecided); ``statuses``: the judgments' status (``error`` counts apart from escalations)."""
    from sklearn.metrics import cohen_kappa_score

    keys = sorted(gold)
    decided = [k for k in keys if labels.get(k) is not None]
    errors = sum(1 for k in keys if labels.get(k) is None and statuses.get(k) == "error")
    y = np.array([int(gold[k] >= threshold) for k in decided], dtype=float)
    p = np.array([int(labels[k]) for k in decided], dtype=float)
    rr, rn = _recalls(y, p)
    ba = float(_ba(y, p)) if rr is not None and rn is not None else None
    lo, hi = bootstrap_interval(y, p, seed) if ba is not None else (None, None)
    kappa = None
    if decided and len(set(y.tolist()) | set(p.tolist())) > 1:
        kappa = float(cohen_kappa_score(y, p))
    y_all = np.array([int(gold[k] >= threshold) for k in keys], dtype=float)
    p_all = np.array([int(labels[k]) if labels.get(k) is not None else int(gold[k] >= threshold) for k in keys],
                     dtype=float)
    rr_all, rn_all = _recalls(y_all, p_all)
    ba_all = float(_ba(y_all, p_all)) if rr_all is not None and rn_all is not None else None
    return Scores(
        cases=len(keys), decided=len(decided), escalated=len(keys) - len(decided) - errors, errors=errors,
        escalation_ratio=(len(keys) - len(decided)) / len(keys) if keys else 0.0,
        balanced_accuracy=ba, balanced_accuracy_low=lo, balanced_accuracy_high=hi,
        recall_relevant=rr, recall_nonrelevant=rn, cohen_kappa=kappa,
        balanced_accuracy_overall=ba_all, recall_relevant_overall=rr_all, recall_nonrelevant_overall=rn_all,
    )
