"""Signals that compare the query with the document minus the query's words stuffed into it.

Why: every signal that compares a document with its query (``pmi``, ``ql``, ``dense``, ``lexical``)
measures overlap, and a page can buy overlap by repeating the query: ``qrelkit audit`` on TREC DL
2019 shows the learned judge calling stuffed non-relevant passages relevant (docs/audit.md). A
regression fitted on natural labels cannot learn to distrust such text (natural passages hardly
ever carry it), so the defence is in what the signals read, not in another feature: these
signals read the document with its *stuffed runs* taken out and compare that with the query.

A stuffed run is a maximal run of consecutive words (punctuation between them allowed) that are
all words of the query (any case), and that either

- repeats: it is at least twice as long as the query (the query, or its words, over and over), or
- restates the query where a page puts text for a machine: within one sentence (a full stop,
  question or exclamation mark ends the run), it holds every distinct word of a query of at
  least :data:`MIN_QUERY_WORDS` words and starts the document or ends it.

A run may swallow the passage's own query words next to the stuffing ("spruce spruce trees"
when "... spruce" is stuffed before "Spruce trees"): what it holds beyond a multiple of the
query's length is the passage's and stays.

A passage that merely uses the query's words in its sentences keeps them: a run ends at the first
word that is not the query's. The cost is on a relevant passage that opens with the query as its
heading; docs/audit.md measures what the judge's quality pays for it.

Each signal here wraps one of those four (``pmi_u``, ``ql_u``, ``dense_u``, ``lexical_u``): a pair
whose document has no stuffed run gets the wrapped signal's value itself (the same cache entries
and model calls, so nothing is paid twice); a pair whose document has one gets the wrapped
signal computed on the cleaned text (``lexical_u`` with the workspace's BM25 statistics). Use
them in place of the four: ``learned(signals=pmi_u+ql_u+dense_u+lexical_u+pool+feedback)``.
"""
from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from typing import ClassVar, Sequence

import numpy as np

from qrelkit import signals
from qrelkit.signals import Pair, Signal, SignalContext, register
from qrelkit.signals.dense import Dense
from qrelkit.signals.lexical import K1, B, Lexical, tokens
from qrelkit.signals.likelihood import PMI, QL
from qrelkit.types import Doc, Usage

WORD = re.compile(r"\w+")
SENTENCE_END = re.compile(r"[.!?]")
MIN_QUERY_WORDS = 2
RULE = "runs-v2"  # the version of the rule above: part of every value's cache key


def _runs(words: list, distinct: set, text: str, sentences: bool) -> list[tuple[int, int]]:
    """Maximal runs (first, last word index) of query words; with ``sentences``, a sentence end ends one."""
    out, i = [], 0
    while i < len(words):
        if words[i].group().lower() not in distinct:
            i += 1
            continue
        j = i
        while (j + 1 < len(words) and words[j + 1].group().lower() in distinct
               and not (sentences and SENTENCE_END.search(text, words[j].end(), words[j + 1].start()))):
            j += 1
        out.append((i, j))
        i = j + 1
    return out


def _trim(i: int, j: int, last: int, size: int) -> tuple[int, int]:
    """The stuffed part of a run, without the passage's own query words it swallowed: the run's
    length beyond a multiple of the query's; a run ending the text keeps them at its start, any
    other at its end."""
    extra = (j - i + 1) % size if j - i + 1 >= size else 0
    return (i + extra, j) if j == last and i > 0 else (i, j - extra)


def stuffed_spans(text: str, query: str) -> list[tuple[int, int]]:
    """Character spans of ``text``'s stuffed runs (see the module docstring), in order."""
    qwords = [w.lower() for w in WORD.findall(query)]
    distinct = set(qwords)
    words = list(WORD.finditer(text))
    if not qwords or not words:
        return []
    last = len(words) - 1
    marked = [False] * len(words)
    for i, j in _runs(words, distinct, text, sentences=False):  # repeats, across sentences
        if j - i + 1 >= 2 * len(qwords):
            a, b = _trim(i, j, last, len(qwords))
            marked[a:b + 1] = [True] * (b - a + 1)
    for i, j in _runs(words, distinct, text, sentences=True):  # restates, at the start or the end
        run = {w.group().lower() for w in words[i:j + 1]}
        if len(distinct) >= MIN_QUERY_WORDS and run >= distinct and (i == 0 or j == last):
            a, b = _trim(i, j, last, len(qwords))
            marked[a:b + 1] = [True] * (b - a + 1)
    spans, k = [], 0
    while k < len(words):
        if marked[k]:
            m = k
            while m + 1 < len(words) and marked[m + 1]:
                m += 1
            spans.append((words[k].start(), words[m].end()))
            k = m
        k += 1
    return spans


def unstuffed(text: str, query: str) -> str:
    """``text`` without its stuffed runs (unchanged when it has none)."""
    spans = stuffed_spans(text, query)
    if not spans:
        return text
    parts, at = [], 0
    for start, end in spans:
        parts.append(text[at:start])
        at = end
    parts.append(text[at:])
    return re.sub(r"\s{2,}", " ", "".join(parts)).strip().lstrip(".,;:!?- ")


class _Unstuffed(Signal):
    """A query signal read on the document without its stuffed runs."""

    BASE: ClassVar[type[Signal]]
    QUERY = True

    def __init__(self) -> None:
        self.base = self.BASE()

    def unavailable(self, ctx: SignalContext) -> str | None:
        return self.base.unavailable(ctx)

    def version(self, ctx: SignalContext) -> str:
        return f"{self.base.version(ctx)}|unstuffed={RULE}"

    async def compute(self, pairs: Sequence[Pair], ctx: SignalContext) -> np.ndarray:
        return (await self.measure(pairs, ctx))[0]

    async def measure(self, pairs: Sequence[Pair], ctx: SignalContext) -> tuple[np.ndarray, list[Usage]]:
        cleaned = {}
        for q, d in pairs:
            text = ctx.text(d)
            clean = unstuffed(text, ctx.topics[q].text)
            if clean != text:
                cleaned[(q, d)] = clean
        out = np.full((len(pairs), len(self.FEATURES)), np.nan)
        usage = [Usage()] * len(pairs)
        plain = [i for i, p in enumerate(pairs) if p not in cleaned]
        if plain:  # the wrapped signal itself: its cache, its calls
            x, u = await signals.metered(self.base, [pairs[i] for i in plain], ctx)
            out[plain] = x
            for i, ui in zip(plain, u):
                usage[i] = ui
        stuffed = [i for i, p in enumerate(pairs) if p in cleaned]
        if stuffed:
            x, u = await self.on_text([pairs[i] for i in stuffed], cleaned, ctx)
            out[stuffed] = x
            for i, ui in zip(stuffed, u):
                usage[i] = ui
        return out, usage

    async def on_text(self, pairs: Sequence[Pair], cleaned: dict, ctx: SignalContext) -> tuple[np.ndarray, list]:
        """The wrapped signal on the cleaned texts, one topic at a time (a document's cleaned text
        depends on the query), with no cache of the wrapped signal's (its entries are the raw text's)."""
        out = np.full((len(pairs), len(self.FEATURES)), np.nan)
        usage: list = [Usage()] * len(pairs)
        for qid in sorted({q for q, _ in pairs}):
            at = [i for i, p in enumerate(pairs) if p[0] == qid]
            texts = {pairs[i][1]: cleaned[pairs[i]] for i in at}
            view = dataclasses.replace(ctx, docs=lambda d, t=texts: Doc(d, t[d]) if d in t else None, store=None)
            x, u = await self.base.measure([pairs[i] for i in at], view)
            out[at] = x
            for i, ui in zip(at, u):
                usage[i] = ui
        return out, usage


@register
class PMIUnstuffed(_Unstuffed):
    NAME, BASE, FEATURES = "pmi_u", PMI, PMI.FEATURES


@register
class QLUnstuffed(_Unstuffed):
    NAME, BASE, FEATURES = "ql_u", QL, QL.FEATURES


@register
class DenseUnstuffed(_Unstuffed):
    NAME, BASE, FEATURES = "dense_u", Dense, Dense.FEATURES


@register
class LexicalUnstuffed(_Unstuffed):
    NAME, BASE, FEATURES = "lexical_u", Lexical, Lexical.FEATURES

    async def on_text(self, pairs: Sequence[Pair], cleaned: dict, ctx: SignalContext) -> tuple[np.ndarray, list]:
        """BM25 features of the cleaned text with the workspace's statistics (idf, mean length)."""
        index = self.base._index(ctx)
        avg = index.lengths.mean() or 1.0
        rows = []
        for q, d in pairs:
            toks = tokens(cleaned[(q, d)])
            counts = Counter(toks)
            query = set(tokens(ctx.topics[q].text))
            terms = sorted(t for t in query if t in index.vocab)
            tf = np.array([counts[t] for t in terms], dtype=float)
            idf = index.idf[[index.vocab[t] for t in terms]] if terms else np.zeros(0)
            norm = K1 * (1 - B + B * len(toks) / avg)
            rows.append([float((idf * tf * (K1 + 1) / (tf + norm)).sum()), float((tf > 0).sum()) / (len(query) or 1),
                         math.log1p(len(toks))])
        return np.array(rows, dtype=float).reshape(len(pairs), 3), [Usage()] * len(pairs)
