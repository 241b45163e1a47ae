"""Calibration: the judge's grade turned into a prediction of the people's grade, fitted on the sample.

A judge's grade 2 is not the people's grade 2 (the Llama-3.3-70B labels of DL 2019 call far more pairs
relevant than NIST does), and how strict a judge is varies by topic. The estimators therefore do not use
the judge's grade itself but the distribution of the people's grade given it, ``P(v | judge grade, topic)``:
per topic, shrunk toward the table of all topics (``SHRINK`` pseudo-labels), which is itself smoothed
toward the overall distribution. Any fixed prediction keeps the estimator unbiased; a better one only
narrows the interval, so the fit is simple counting, not a model.

Cross-fitting keeps the intervals valid: the sample is split into ``FOLDS`` folds (balanced within each
stratum, seeded); a labelled pair's prediction comes from the fit on the other folds, and the pairs
outside the sample get the average of the fold fits (cross-prediction-powered inference, Zrnic & Candès
2024). Were a pair's own label used to predict it, its residual would shrink and the interval with it.

:func:`calibration_table` is the table shown to people: how often each judge grade is relevant to
people, a Horvitz–Thompson share over the universe (so a grade that the design sampled heavily in the
runs' top 10 is not over-represented).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

import numpy as np
from scipy import sparse
from sklearn.linear_model import LogisticRegression

FOLDS = 5
STRENGTH = 1.0  # inverse L2 penalty of the logits: topic effects shrink toward 0 with few labels


@dataclass(frozen=True)
class CalibrationRow:
    """One judge grade (None: pairs the judge did not label): how many universe pairs carry it, how many
    of them people labelled, the estimated share people call relevant, and their mean grade."""

    grade: Optional[int]
    pairs: int
    labelled: int
    relevant: float
    mean_grade: float

    def to_dict(self) -> dict:
        return {"grade": self.grade, "pairs": self.pairs, "labelled": self.labelled,
                "relevant": self.relevant, "mean_grade": self.mean_grade}


def fit(features: sparse.csr_matrix, values: np.ndarray, n_values: int) -> "Model":
    """Cumulative logits ``P(value index >= j)`` for j = 1..n_values-1 from the labelled pairs' features."""
    models = []
    for j in range(1, n_values):
        target = (values >= j).astype(int)
        if target.min() == target.max():  # every label on one side: a smoothed constant
            models.append((target.sum() + 0.5) / (len(target) + 1.0))
            continue
        models.append(LogisticRegression(C=STRENGTH, max_iter=200).fit(features, target))
    return Model(tuple(models), n_values)


@dataclass(frozen=True, eq=False)
class Model:
    levels: tuple
    n_values: int

    def predict(self, features: sparse.csr_matrix) -> np.ndarray:
        """``P[pair, value index]``: the cumulative probabilities made monotone, then differenced."""
        n = features.shape[0]
        above = np.ones((n, self.n_values + 1))
        above[:, self.n_values] = 0.0
        for j, m in enumerate(self.levels, start=1):
            above[:, j] = m.predict_proba(features)[:, 1] if hasattr(m, "predict_proba") else float(m)
        above[:, 1:self.n_values] = np.minimum.accumulate(above[:, 1:self.n_values], axis=1)
        return above[:, :-1] - above[:, 1:]


def design_matrix(topics: np.ndarray, keys: np.ndarray, n_topics: int, n_keys: int) -> sparse.csr_matrix:
    """One-hot topic and one-hot judge class, side by side."""
    n = len(topics)
    rows = np.concatenate([np.arange(n), np.arange(n)])
    cols = np.concatenate([topics, n_topics + keys])
    return sparse.csr_matrix((np.ones(2 * n), (rows, cols)), shape=(n, n_topics + n_keys))


def folds(strata: np.ndarray, seed: int) -> np.ndarray:
    """A fold (0..FOLDS-1) per labelled pair, balanced within each stratum, seeded."""
    rng = np.random.default_rng(seed)
    out = np.zeros(len(strata), dtype=int)
    for h in np.unique(strata):
        members = np.flatnonzero(strata == h)
        rng.shuffle(members)
        start = int(rng.integers(FOLDS))
        out[members] = (start + np.arange(len(members))) % FOLDS
    return out


def cross_fit(keys: np.ndarray, topics: np.ndarray, sampled: np.ndarray, values: np.ndarray,
              strata: np.ndarray, shape: tuple[int, int, int], seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Predicted distributions of the people's grade: for every universe pair (the average of the fold
    fits) and for each labelled pair (the fit without its fold). ``keys``/``topics`` index the universe,
    ``sampled`` gives the universe index of each labelled pair, ``values`` its people's value index,
    ``shape`` is (topics, judge classes, people's values)."""
    fold = folds(strata, seed)
    x = design_matrix(topics, keys, shape[0], shape[1])
    x_s = x[sampled]
    every = np.zeros((len(keys), shape[2]))
    own = np.zeros((len(sampled), shape[2]))
    used = 0
    for f in range(FOLDS):
        held = fold == f
        if not held.any():
            continue
        model = fit(x_s[~held], values[~held], shape[2])
        every += model.predict(x)
        own[held] = model.predict(x_s[held])
        used += 1
    return every / max(used, 1), own


def calibration_table(grades: Sequence[Optional[int]], keys: np.ndarray, sampled: np.ndarray, weights: np.ndarray,
                      people: np.ndarray, threshold: int) -> tuple[CalibrationRow, ...]:
    """The grade-to-relevance table: ``grades[key]`` names each key; ``people`` are the labelled pairs'
    grades, ``weights`` their 1/probability."""
    rows = []
    for key, grade in enumerate(grades):
        mine = keys[sampled] == key
        w = weights[mine]
        total = float(w.sum())
        rel = float((w * (people[mine] >= threshold)).sum() / total) if total else float("nan")
        mean = float((w * people[mine]).sum() / total) if total else float("nan")
        rows.append(CalibrationRow(grade, int((keys == key).sum()), int(mine.sum()), rel, mean))
    return tuple(rows)
