"""The frame: the universe's pairs, its topics and the runs' rankings as arrays, and exact scores on it.

Everything an estimate is about is fixed here: the universe (the pairs whose labels count; a pair
outside it is non-relevant, as an unjudged pair is for trec_eval), its topics (every run is averaged
over all of them; a topic a run did not answer scores 0, as ``evaluate`` does), and each measure's
coefficient matrix ``[run, pair]`` (the weight of a pair's label in the run's numerator).
:func:`exact_scores` computes a measure from labels on every pair: the labels-only score, and in tests
and benchmarks the truth; it agrees with ir_measures on the same qrels (tests/estimate).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from qrelkit.estimate.measures import MeasureKind

Pair = tuple[str, str]
Runs = Mapping[str, Mapping[str, Sequence[str]]]


@dataclass(frozen=True, eq=False)
class Frame:
    pairs: tuple[Pair, ...]
    index: Mapping[Pair, int]
    topics: tuple[str, ...]
    topic: np.ndarray  # topic position of each pair
    names: tuple[str, ...]
    runs: Runs
    _cache: dict = field(default_factory=dict, repr=False)

    @staticmethod
    def build(universe: Sequence[Pair], runs: Runs) -> "Frame":
        pairs = tuple(sorted(set(universe)))
        topics = tuple(sorted({q for q, _ in pairs}))
        where = {q: t for t, q in enumerate(topics)}
        return Frame(pairs, {p: i for i, p in enumerate(pairs)}, topics,
                     np.array([where[q] for q, _ in pairs], dtype=int), tuple(runs), runs)

    def coefficients(self, kind: MeasureKind) -> sparse.csr_matrix:
        """``C[run, pair]``: the pair's weight in the run's numerator (0 outside its top k)."""
        key = ("coef", kind.denominator, kind.cutoff, kind.persistence)
        if key not in self._cache:
            rows, cols, vals = [], [], []
            for r, name in enumerate(self.names):
                ranking = self.runs[name]
                for qid in self.topics:
                    docids = list(ranking.get(qid, ()))
                    coef = kind.coefficients(len(docids))
                    for rank, docid in enumerate(docids[:len(coef)]):
                        i = self.index.get((qid, docid))
                        if i is not None:
                            rows.append(r)
                            cols.append(i)
                            vals.append(coef[rank])
            self._cache[key] = sparse.csr_matrix((vals, (rows, cols)), shape=(len(self.names), len(self.pairs)))
        return self._cache[key]

    def topic_sum(self, values: np.ndarray) -> np.ndarray:
        """Sum ``values[..., pair]`` per topic: ``[..., topic]``."""
        ind = self._cache.get("topics")
        if ind is None:
            ind = sparse.csr_matrix((np.ones(len(self.pairs)), (np.arange(len(self.pairs)), self.topic)),
                                    shape=(len(self.pairs), len(self.topics)))
            self._cache["topics"] = ind
        out = values @ ind
        return np.asarray(out.todense()) if sparse.issparse(out) else np.asarray(out)

    def per_topic(self, kind: MeasureKind, h: np.ndarray) -> np.ndarray:
        """The numerator ``[run, topic]`` for per-pair label values h."""
        return self.topic_sum(self.coefficients(kind).multiply(h[None, :]).tocsr())


def exact_scores(frame: Frame, kind: MeasureKind, grades: np.ndarray) -> np.ndarray:
    """The measure of every run when every universe pair's grade is known (``grades`` per pair)."""
    h = kind.label_values(grades)
    numer = frame.per_topic(kind, h)
    if kind.linear:
        return numer.mean(axis=1)
    levels = kind.denominator_levels(np.asarray(grades))
    counts = np.stack([frame.topic_sum((grades >= g).astype(float)) for g in levels], axis=-1) if levels \
        else np.zeros((len(frame.topics), 1))
    value, _, _ = kind.ratio(numer, counts)
    return value.mean(axis=1)
