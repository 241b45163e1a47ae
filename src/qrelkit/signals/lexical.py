"""``lexical``: BM25 over the workspace's documents, query-term coverage, log document length.

BM25 (Robertson et al.; k1=0.9, b=0.4, Anserini's MS MARCO defaults; Lucene's idf
log(1 + (N - df + 0.5) / (df + 0.5))) is computed over every document in the workspace, so
its idf is the collection's, not the pool's. It is a scipy sparse term-document matrix rather
than ``bm25s``: scoring given (query, document) pairs, not retrieving, is one sparse lookup per
pair, and 40 lines spare a dependency. Tokens are lower-cased word characters, minus
scikit-learn's English stop words; no stemming.

Features: ``bm25`` (the score), ``coverage`` (share of distinct query terms that occur in the
document) and ``log_length`` (log of 1 + document tokens). The version holds the parameters and
the corpus size, so adding documents invalidates cached values.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
from scipy import sparse

from qrelkit.signals import Pair, Signal, SignalContext, register

K1, B = 0.9, 0.4
TOKEN = re.compile(r"\w+")
TOKENIZER = "lower-w+-sklearn-stop-v1"


def tokens(text: str) -> list[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return [t for t in TOKEN.findall(text.lower()) if t not in ENGLISH_STOP_WORDS]


@dataclass(frozen=True)
class BM25Index:
    """Term frequencies (documents x terms, CSR), idf per term, document lengths."""

    docids: Mapping[str, int]
    vocab: Mapping[str, int]
    tf: sparse.csr_matrix
    idf: np.ndarray
    lengths: np.ndarray

    @classmethod
    def build(cls, corpus: Mapping[str, str]) -> "BM25Index":
        vocab: dict[str, int] = {}
        rows, cols = [], []
        lengths = np.zeros(len(corpus))
        docids = {}
        for i, (docid, text) in enumerate(corpus.items()):
            docids[docid] = i
            toks = tokens(text)
            lengths[i] = len(toks)
            for t in toks:
                rows.append(i)
                cols.append(vocab.setdefault(t, len(vocab)))
        tf = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(corpus), len(vocab)))
        tf.sum_duplicates()
        df = np.bincount(tf.indices, minlength=len(vocab))
        n = len(corpus)
        idf = np.log1p((n - df + 0.5) / (df + 0.5))
        return cls(docids, vocab, tf, idf, lengths)

    def features(self, query: str, docid: str) -> tuple[float, float, float]:
        """(bm25, coverage, log_length) of one pair; an unknown document scores 0 with length 0."""
        terms = sorted({self.vocab[t] for t in tokens(query) if t in self.vocab})
        n_query = len(set(tokens(query))) or 1
        i = self.docids.get(docid)
        if i is None:
            return 0.0, 0.0, 0.0
        avg = self.lengths.mean() or 1.0
        row = self.tf.getrow(i)
        tf = row[:, terms].toarray().ravel() if terms else np.zeros(0)
        norm = K1 * (1 - B + B * self.lengths[i] / avg)
        bm25 = float((self.idf[terms] * tf * (K1 + 1) / (tf + norm)).sum()) if terms else 0.0
        return bm25, float((tf > 0).sum()) / n_query, float(np.log1p(self.lengths[i]))

    def scores(self, triples: Sequence[tuple[str, str, str]]) -> np.ndarray:
        """Features for (qid, query text, docid) triples."""
        return np.array([self.features(text, d) for _, text, d in triples]).reshape(len(triples), 3)


_INDEX: list = []  # [(context, index)]: the last context's index


@register
class Lexical(Signal):
    NAME = "lexical"
    FEATURES = ("bm25", "coverage", "log_length")
    QUERY = True

    def _index(self, ctx: SignalContext) -> BM25Index:
        """One index per context (the corpus is read once; contexts are short-lived)."""
        if not _INDEX or _INDEX[0][0] is not ctx:
            _INDEX[:] = [(ctx, BM25Index.build(ctx.corpus()))]
        return _INDEX[0][1]

    def version(self, ctx: SignalContext) -> str:
        return f"bm25(k1={K1},b={B})|{TOKENIZER}|docs={len(self._index(ctx).docids)}"

    async def compute(self, pairs: Sequence[Pair], ctx: SignalContext) -> np.ndarray:
        index = self._index(ctx)
        return index.scores([(q, ctx.topics[q].text, d) for q, d in pairs])
