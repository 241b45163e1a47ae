"""``feedback``: how much a document resembles the topic's documents people already judged.

Why: the strongest evidence a user has about an unjudged document is not the query but the
documents people judged for the same topic (``fill`` starts from qrels with tens to hundreds per
topic, ``build`` from the people's share). MacAvaney & Soldaini ("One-Shot Labeling for Automatic
Relevance Estimation", SIGIR 2023) label a hole by its similarity to the known relevant documents
(MaxRep); this signal gives that similarity to the learned judge as features, next to the
query-based ones, so the regression weighs it against them.

Features, for a pair (qid, docid), over the topic's judged documents *other than docid itself*:

- ``has_relevant``: 1 when at least one relevant judged document remains, else 0;
- ``dense_rel_max`` / ``dense_rel_mean``: max / mean cosine of the MiniLM vectors (those of the
  ``dense`` signal, cached per document in the workspace) to the relevant ones;
- ``dense_non_max`` / ``dense_non_mean``: the same to the non-relevant ones;
- ``bm25_rel_max`` / ``bm25_rel_mean``: BM25 (the ``lexical`` signal's index: the collection's
  idf, k1=0.9, b=0.4) of the document with each relevant document's distinct terms as the query.

A class with no judged document left gives its features the value 0 ("resembles nothing"),
with ``has_relevant`` saying so for the relevant class; a topic without any relevant judgment
thus gets ``has_relevant=0`` and zeros, never a guess and never NaN (which would be imputed).

Leave-one-out: a pair's own label never enters its own features (the document is left out of
both classes), so the labelled pairs a regression is fitted on carry exactly the kind of
evidence the unlabelled cases do; flipping a labelled pair's label changes the features of the
topic's other pairs, never its own. The labels are the context's ``judged`` (the judge passes
the people's labels it learns from); the version holds their digest, so cached values never
outlive a changed label.
"""
from __future__ import annotations

import hashlib
from typing import Mapping, Optional, Sequence

import numpy as np
from scipy import sparse

from qrelkit.signals import Pair, Signal, SignalContext, register
from qrelkit.signals.dense import Dense, doc_vectors
from qrelkit.signals.lexical import K1, B, BM25Index, Lexical

VERSION = "feedback-v1|loo|empty=0"


def judged_digest(judged: Mapping[str, Mapping[str, int]]) -> str:
    """A short digest of every (qid, docid, label): the labels a value was computed from."""
    h = hashlib.sha1()
    for q in sorted(judged):
        for d in sorted(judged[q]):
            h.update(f"{q}\t{d}\t{int(judged[q][d])}\n".encode())
    return h.hexdigest()[:16]


def bm25_weights(index: BM25Index, rows: Sequence[int]) -> sparse.csr_matrix:
    """Per-term BM25 contributions of some documents (rows x terms); a query's score is the sum
    over its terms, so a document-as-query is one sparse product."""
    tf = index.tf[list(rows)].tocsr().astype(float)
    avg = index.lengths.mean() or 1.0
    norm = K1 * (1 - B + B * index.lengths[list(rows)] / avg)
    out = tf.copy()
    row_of = np.repeat(np.arange(tf.shape[0]), np.diff(tf.indptr))
    out.data = index.idf[tf.indices] * tf.data * (K1 + 1) / (tf.data + norm[row_of])
    return out


def _stats(values: np.ndarray) -> tuple[float, float]:
    return (float(values.max()), float(values.mean())) if values.size else (0.0, 0.0)


@register
class Feedback(Signal):
    NAME = "feedback"
    FEATURES = ("has_relevant", "dense_rel_max", "dense_rel_mean", "dense_non_max", "dense_non_mean",
                "bm25_rel_max", "bm25_rel_mean")
    # the similarities, which learned(feedback_z=K) z-scores within the topic; has_relevant is a flag
    SIMILARITIES = FEATURES[1:]

    def unavailable(self, ctx: SignalContext) -> Optional[str]:
        if not any(ctx.judged.values()):
            return "no document judged by people for these topics (feedback compares with them)"
        return Dense().unavailable(ctx)

    def version(self, ctx: SignalContext) -> str:
        return f"{VERSION}|{Dense().version(ctx)}|{Lexical().version(ctx)}|judged={judged_digest(ctx.judged)}"

    async def compute(self, pairs: Sequence[Pair], ctx: SignalContext) -> np.ndarray:
        out = np.zeros((len(pairs), len(self.FEATURES)))
        index = Lexical()._index(ctx)
        by_topic: dict[str, list[int]] = {}
        for i, (q, _) in enumerate(pairs):
            by_topic.setdefault(q, []).append(i)
        needed = {d for _, d in pairs} | {d for q in by_topic for d in ctx.judged.get(q, {})}
        vec = doc_vectors(sorted(needed), ctx)
        for q, rows in by_topic.items():
            out[rows] = self._topic([pairs[i][1] for i in rows], ctx.judged.get(q, {}), vec, index)
        return out

    def _topic(self, docids: Sequence[str], labels: Mapping[str, int], vec: Mapping[str, np.ndarray],
               index: BM25Index) -> np.ndarray:
        """One topic's rows: each document against the topic's judged documents but itself."""
        if not labels:  # a topic nobody judged: resembles nothing known
            return np.zeros((len(docids), len(self.FEATURES)))
        judged = np.array(sorted(labels), dtype=object)
        rel = np.array([bool(labels[d]) for d in judged], dtype=bool)
        cos = np.array([vec[d] for d in docids]) @ np.array([vec[d] for d in judged]).T
        lex = self._bm25(docids, list(judged[rel]), index)
        rows = []
        for i, d in enumerate(docids):
            others = judged != d
            r, n = others & rel, others & ~rel
            rows.append((float(r.any()), *_stats(cos[i][r]), *_stats(cos[i][n]), *_stats(lex[i][others[rel]])))
        return np.array(rows, dtype=float).reshape(len(docids), len(self.FEATURES))

    def _bm25(self, docids: Sequence[str], relevant: Sequence[str], index: BM25Index) -> np.ndarray:
        """(documents x relevant documents) BM25 of each document against each relevant one's
        distinct terms; a document missing from the index scores 0 (and so does one as a query)."""
        if not relevant:
            return np.zeros((len(docids), 0))
        w = _known(index, docids) @ bm25_weights(index, [index.docids.get(d, 0) for d in docids])
        ind = (_known(index, relevant) @ index.tf[[index.docids.get(d, 0) for d in relevant]]).tocsr()
        ind.eliminate_zeros()
        ind.data = np.ones_like(ind.data)
        return np.asarray((w @ ind.T).todense())


def _known(index: BM25Index, docids: Sequence[str]) -> sparse.dia_matrix:
    """A diagonal 0/1 matrix that zeroes the rows of documents the index does not hold."""
    return sparse.diags([1.0 if d in index.docids else 0.0 for d in docids])
