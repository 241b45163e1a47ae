"""``window``: how well the document's best-matching window of sentences matches the query.

Why: ``dense`` embeds a document as one mean-pooled vector (its first 256 tokens) and ``lexical``
scores it as one bag of words, so a long document whose answer is one sentence among many is
diluted, and one whose answer lies past the 256th token is not seen at all. Scoring windows of
consecutive sentences and keeping the best one is the usual remedy (passage-level evidence,
Callan 1994; MaxP, Dai & Callan 2019).

Windows: the text (title and body, as a judge sees it) is split into sentences after ``.``, ``!``
or ``?`` followed by white space, or at a line break; a window is :data:`SENTENCES` consecutive
sentences, moving one sentence at a time; a document of that many sentences or fewer is one
window. At most :data:`MAX_WINDOWS` windows are scored (the first ones), each cut to
:data:`MAX_CHARS` characters.

Features: ``dense_max`` (the largest cosine of the query's all-MiniLM-L6-v2 vector with a
window's), ``bm25_max`` (the largest BM25 of the query against a window, the collection's idf
and k1 of :mod:`qrelkit.signals.lexical`, no length normalisation: windows are short and of
similar length) and ``coverage_max`` (the largest share of the query's distinct terms one window
holds: the terms near each other). Each distinct query and window text is embedded once per call.
"""
from __future__ import annotations

import re
from typing import Optional, Sequence

import numpy as np

from qrelkit.signals import Pair, Signal, SignalContext, minilm, register
from qrelkit.signals.dense import Dense
from qrelkit.signals.lexical import K1, Lexical, tokens

SENTENCES = 2
MAX_WINDOWS = 24
MAX_CHARS = 1024
SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
VERSION = f"window-v1|sentences={SENTENCES}|max={MAX_WINDOWS}|chars={MAX_CHARS}"


def windows(text: str) -> list[str]:
    """The text's windows of :data:`SENTENCES` consecutive sentences (the text itself when short)."""
    sents = [s.strip() for s in SPLIT.split(text) if s and s.strip()]
    if len(sents) <= SENTENCES:
        return [" ".join(sents)[:MAX_CHARS]] if sents else [""]
    return [" ".join(sents[i:i + SENTENCES])[:MAX_CHARS] for i in range(len(sents) - SENTENCES + 1)][:MAX_WINDOWS]


@register
class Window(Signal):
    NAME = "window"
    FEATURES = ("dense_max", "bm25_max", "coverage_max")
    QUERY = True

    def unavailable(self, ctx: SignalContext) -> Optional[str]:
        return Dense().unavailable(ctx)

    def version(self, ctx: SignalContext) -> str:
        return f"{VERSION}|{Dense().version(ctx)}|{Lexical().version(ctx)}"

    async def compute(self, pairs: Sequence[Pair], ctx: SignalContext) -> np.ndarray:
        index = Lexical()._index(ctx)
        by_doc = {d: windows(ctx.text(d)) for d in sorted({d for _, d in pairs})}
        texts = sorted({w for ws in by_doc.values() for w in ws})
        qids = sorted({q for q, _ in pairs})
        model = minilm.load()
        qv = dict(zip(qids, model.encode([ctx.topics[q].text for q in qids])))
        wv = dict(zip(texts, model.encode(texts)))
        lex = {q: _query_terms(ctx.topics[q].text, index) for q in qids}
        out = np.zeros((len(pairs), len(self.FEATURES)))
        for i, (q, d) in enumerate(pairs):
            ws = by_doc[d]
            cos = np.array([wv[w] for w in ws]) @ qv[q]
            bm, cov = zip(*(_bm25(lex[q], w) for w in ws))
            out[i] = (float(cos.max()), max(bm), max(cov))
        return out


def _query_terms(query: str, index) -> tuple[dict[str, float], int]:
    """The query's distinct terms with their idf (0 for a term the collection lacks), and their count."""
    terms = set(tokens(query))
    return {t: float(index.idf[index.vocab[t]]) if t in index.vocab else 0.0 for t in terms}, len(terms) or 1


def _bm25(query: tuple[dict[str, float], int], text: str) -> tuple[float, float]:
    """(BM25 without length normalisation, share of query terms present) of one window."""
    idf, n = query
    counts: dict[str, int] = {}
    for t in tokens(text):
        if t in idf:
            counts[t] = counts.get(t, 0) + 1
    score = sum(idf[t] * c * (K1 + 1) / (c + K1) for t, c in counts.items())
    return float(score), len(counts) / n

