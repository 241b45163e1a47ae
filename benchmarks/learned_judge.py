"""A probability-carrying judge on TREC DL 2019 for the ``active`` design: the embedded ``learned`` judge's
model, fitted on people's labels of *other* topics.

What it is: the ``learned`` judge's combination (:func:`qrelkit.signals.combine.fit`, a class-balanced
logistic regression over standardised signals, per-topic z-scores of the query signals as its default
``per_topic=query``) over the signals that need no language model: ``lexical`` (BM25, query-term coverage,
log length over the DL 2019 passages) and ``dense`` (MiniLM cosine). ``pmi`` and ``ql`` (the embedded
model's likelihoods) are left out: they cost one model call per pair, about 1 pair/s on the shared
2-core machine, 2.5 hours for the 9,261 pairs. ``pool`` and ``feedback`` are left out too: the design's
weights and the estimator's calibration already use how many runs retrieve a pair, and ``feedback``
reads people's labels of the same topic.

Honest fitting: topics are split into ``FOLDS`` folds; a fold's pairs are scored by a model fitted on
``CALIB`` (200, the judge's default ``calib``) NIST-labelled pairs drawn from the other folds' pairs, so
no pair's probability comes from its own topic's labels. The judge's label is what ``learned`` stores:
relevant (grade 2, the graded task's threshold) when P >= 0.5, else 0; the probability is the provenance's
``probability``, what ``qrelkit sample --design active`` reads.

The signals take minutes (MiniLM over ~9,000 passages); they are cached in ``--features`` (.npz).
"""
from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Sequence

import numpy as np

SIGNALS = ("lexical", "dense")
FOLDS = 5
CALIB = 200
Pair = tuple[str, str]


def features(pairs: Sequence[Pair], data: Path, cache: Path) -> tuple[tuple[str, ...], np.ndarray]:
    """The signal columns for ``pairs`` (cached in ``cache`` by the pairs they were computed for)."""
    if cache.exists():
        got = np.load(cache, allow_pickle=False)
        if [tuple(p) for p in got["pairs"].tolist()] == [tuple(p) for p in pairs]:
            return tuple(got["columns"].tolist()), got["x"]
    from qrelkit import signals
    from qrelkit.types import Doc, Topic

    topics = {q: Topic(q, t) for q, t in (line.rstrip("\n").split("\t", 1)
                                          for line in (data / "topics.tsv").read_text().splitlines() if line)}
    docs = {}
    with open(data / "passages.jsonl") as f:
        for line in f:
            d = json.loads(line)
            docs[str(d["docid"])] = str(d["doc"])
    ctx = signals.SignalContext(topics=topics, docs=lambda d: Doc(d, docs[d]) if d in docs else None,
                                corpus=lambda: docs)
    m = asyncio.run(signals.matrix(list(SIGNALS), list(pairs), ctx))
    if m.dropped:
        raise SystemExit(f"signals dropped: {m.dropped}")
    np.savez(cache, pairs=np.array(pairs, dtype=str), columns=np.array(m.columns, dtype=str), x=m.x)
    return m.columns, m.x


def probabilities(pairs: Sequence[Pair], truth: dict, data: Path, cache: Path, seed: int = 0,
                  threshold: int = 2) -> dict[Pair, float]:
    """P(relevant) per pair from a model fitted on ``CALIB`` labelled pairs of the other topics' folds."""
    from qrelkit.signals import build
    from qrelkit.signals.combine import fit, per_topic_z

    columns, x = features(pairs, data, cache)
    qids = [q for q, _ in pairs]
    query = [build(c.split(".")[0]).QUERY for c in columns]
    z = per_topic_z(x, qids, only=query)
    rng = np.random.default_rng(seed)
    topics = sorted(set(qids))
    fold_of = dict(zip(topics, rng.permutation(len(topics)) % FOLDS))
    fold = np.array([fold_of[q] for q in qids])
    y = np.array([int(truth.get(p, 0) >= threshold) for p in pairs])
    out = np.full(len(pairs), np.nan)
    for k in range(FOLDS):
        train = np.flatnonzero(fold != k)
        pick = rng.choice(train, size=min(CALIB, len(train)), replace=False)
        model = fit(z[pick], y[pick], columns, per_topic="query")
        out[fold == k] = model.probabilities(z[fold == k])
    return {p: float(v) for p, v in zip(pairs, out)}


def labels_of(prob: dict[Pair, float], threshold: int = 2) -> dict[Pair, int]:
    """The learned judge's grades: the graded task's threshold where P >= 0.5, else 0."""
    return {p: (threshold if v >= 0.5 else 0) for p, v in prob.items()}
