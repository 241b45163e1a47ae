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

FOLDS = 5
SHRINK = 4.0  # pseudo-labels pulling a topic's table toward the all-topics table
SMOOTH = 1.0  # pseudo-labels pulling the all-topics table toward the overall distribution


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


def fit(keys: np.ndarray, topics: np.ndarray, values: np.ndarray, shape: tuple[int, int, int]) -> np.ndarray:
    """``P[topic, key, value]`` from labelled pairs given as index arrays (key, topic, value index)."""
    n_topics, n_keys, n_values = shape
    overall = np.bincount(values, minlength=n_values) + 1.0
    overall /= overall.sum()
    glob = np.zeros((n_keys, n_values))
    np.add.at(glob, (keys, values), 1.0)
    glob = (glob + SMOOTH * overall) / (glob.sum(axis=1, keepdims=True) + SMOOTH)
    local = np.zeros(shape)
    np.add.at(local, (topics, keys, values), 1.0)
    return (local + SHRINK * glob[None]) / (local.sum(axis=2, keepdims=True) + SHRINK)


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
    ``sampled`` gives the universe index of each labelled pair, ``values`` its people's value index."""
    fold = folds(strata, seed)
    k_s, t_s = keys[sampled], topics[sampled]
    every = np.zeros((len(keys), shape[2]))
    own = np.zeros((len(sampled), shape[2]))
    used = 0
    for f in range(FOLDS):
        held = fold == f
        if not held.any():
            continue
        table = fit(k_s[~held], t_s[~held], values[~held], shape)
        every += table[topics, keys]
        own[held] = table[t_s[held], k_s[held]]
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
