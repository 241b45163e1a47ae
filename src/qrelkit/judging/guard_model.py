"""The guard's learned half: a linear classifier that reads each sentence of a folded text.

The rules (:mod:`qrelkit.judging.guard_patterns`) catch the forms they were written for; each
new set of held-out phrasings was caught less often than the last (docs/guard.md). This
classifier scores every window of one to three sentences of the folded text (the same
:func:`qrelkit.judging.guard.fold` the rules read) by a logistic regression over words, word
beginnings, word pairs and, in Chinese, Japanese, Korean and Hindi, character pairs. It was trained
offline by ``benchmarks/guard_train.py`` on instructions to a judge generated from a grammar and
on real web text and hard negatives, and ships as ``guard_model.json.gz`` in this package.

Why integers: the weights are stored as integers and a window's score is their sum, compared
with an integer threshold, so the verdict is the same on every CPU (no floating-point order,
no SIMD). Why words, not hashed character n-grams: dictionary look-ups per sentence keep TREC
DL 2019 to 2-3 s in pure Python, where scikit-learn's character n-grams took about 20 s.

A window is one sentence, or two or three consecutive ones (an instruction may be "Assessor
note: ... . Rate it 3."), and a long sentence is cut into stretches of :data:`CHUNK` tokens.
Every window of a text is scored; a text is flagged when its best window reaches the
threshold, and the span shown is the shortest window inside that one that reaches it too.
"""
from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Iterator, Optional

from qrelkit.errors import ModelUnavailable

MODEL_FILE = "guard_model.json.gz"
FORMAT = "qrelkit-guard-model/1"
CHUNK, WIDE = 24, 48  # tokens: a long sentence is read in stretches of CHUNK; a window of several has <= WIDE
MAX_SENTENCES = 3  # a window is one to three consecutive sentences
PREFIX = 5  # word beginnings of this many letters stand for inflected forms (relevant, relevante)

# a sentence ends at . ! ? ; and the CJK full stops; the folded text has no line breaks
_END = re.compile(r"[.!?;](?=\s|$)|[。！？।؟]")
_TOKEN = re.compile(r"\w+|[:{}=\[\]|#>*\"]")
_GRADES = frozenset(["0", "1", "2", "3", "4", "5", "10", "100"])
# scripts read as characters and character pairs: no spaces between words (Chinese, Japanese), or
# words that folding cuts into pieces (Devanagari loses its vowel signs), or rich in endings (Hangul);
# Thai, Lao, Myanmar and Khmer write no spaces between words either (set 9: Thai was caught 2 %)
_CJK = re.compile("[\u0900-\u097f\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


class ModelError(ModelUnavailable):
    """The shipped model file is missing or unreadable: the package is broken, not the input
    (a model that cannot be used: the command exits 3 with this message)."""


@dataclass(frozen=True, eq=False)
class Model:
    """The classifier: integer weights by feature, an integer bias and the threshold a window's
    score must reach to be flagged (chosen for precision by the training script)."""

    weights: dict[str, int]
    bias: int
    threshold: int
    scale: int
    meta: dict


@lru_cache(maxsize=1)
def load() -> Model:
    """The model shipped with the package, read once."""
    try:
        raw = resources.files("qrelkit.judging").joinpath(MODEL_FILE).read_bytes()
        data = json.loads(gzip.decompress(raw).decode("utf-8"))
    except (OSError, ValueError, EOFError) as exc:
        raise ModelError(f"qrelkit/judging/{MODEL_FILE}: the guard's model is missing or unreadable ({exc}); "
                         "reinstall qrelkit or run benchmarks/guard_train.py") from exc
    return from_dict(data)


def from_dict(data: dict) -> Model:
    """A model from its stored form, checked: every weight an integer, the format known."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ModelError(f"guard model: expected format {FORMAT!r}")
    weights = data.get("weights")
    if not isinstance(weights, dict) or not weights or not all(type(v) is int for v in weights.values()):
        raise ModelError("guard model: 'weights' must map features to integers")
    for key in ("bias", "threshold", "scale"):
        if type(data.get(key)) is not int:
            raise ModelError(f"guard model: {key!r} must be an integer")
    return Model(weights, data["bias"], data["threshold"], data["scale"], data.get("meta") or {})


def tokens(text: str) -> list[str]:
    """The tokens of a folded text: words, and the marks that make a label (``relevance: 3``)."""
    return _TOKEN.findall(text)


def word_features(tok: str) -> list[str]:
    """The features one token gives (also what the embedding stage asks of a window's words: does
    the model know any of them?)."""
    if tok.isdigit():  # a grade is a small number; times, prices and years are one word
        return [f"w:{tok}" if tok in _GRADES else "w:<num>"]
    if _CJK.search(tok):  # no spaces between words: characters and character pairs
        return [f"c:{c}" for c in tok] + [f"c:{tok[i:i + 2]}" for i in range(len(tok) - 1)]
    if len(tok) > PREFIX:
        return [f"w:{tok}", f"p:{tok[:PREFIX]}"]
    return [f"w:{tok}"]


def _stem(tok: str) -> str:
    if tok.isdigit():
        return tok if tok in _GRADES else "<num>"
    return tok[:PREFIX]


def _pair(a: str, b: str) -> str:
    return f"b:{a} {b}"


def _inner(toks: list[str]) -> set[str]:
    """The features inside one sentence, each once: words, word beginnings, and pairs of
    consecutive word beginnings."""
    out: set[str] = set()
    for tok in toks:
        out.update(word_features(tok))
    stems = [_stem(t) for t in toks]
    out.update(_pair(a, b) for a, b in zip(stems, stems[1:]))
    return out


def features(parts: list[list[str]]) -> list[str]:
    """The features of a window of sentences (each a token list), with repeats: each sentence's
    own features once, the pairs across sentence boundaries, the window's opening and closing
    word as pairs with its start and end, and its length. A feature repeated within a sentence counts once, so a
    table that repeats "relevance: 3" does not add up."""
    parts = [p for p in parts if p]
    if not parts:
        return []
    out: list[str] = [f for p in parts for f in sorted(_inner(p))]
    out.extend(_pair(_stem(a[-1]), _stem(b[0])) for a, b in zip(parts, parts[1:]))
    out.append(_pair("<s>", _stem(parts[0][0])))
    out.append(_pair(_stem(parts[-1][-1]), "</s>"))
    out.append(_length(sum(map(len, parts))))
    return out


def _length(n: int) -> str:
    """The window's length as a feature (in steps of four tokens): instructions are short, and a
    long window of unusual words must not score high by adding up small weights."""
    return f"n:{min(n // 4, 15)}"


def sentences(text: str) -> list[tuple[int, int]]:
    """Where each sentence of a folded text is (start, end)."""
    out, start = [], 0
    for m in _END.finditer(text):
        if text[start:m.end()].strip():
            out.append((start, m.end()))
        start = m.end()
    if text[start:].strip():
        out.append((start, len(text)))
    return out


def units(text: str) -> list[tuple[int, int, list[str]]]:
    """``(start, end, tokens)`` of each sentence of a folded text, a long one cut into
    stretches of CHUNK tokens (a window of two of them reads across the cut); sentences without
    a token left out."""
    out: list[tuple[int, int, list[str]]] = []
    for a, b in sentences(text):
        found = list(_TOKEN.finditer(text, a, b))
        if not found:
            continue
        if len(found) <= CHUNK:
            out.append((a, b, [m.group(0) for m in found]))
            continue
        for i in range(0, len(found), CHUNK):
            part = found[i:i + CHUNK]
            out.append((part[0].start(), part[-1].end(), [m.group(0) for m in part]))
    return out


def window_of(text: str) -> list[list[str]]:
    """A folded text read as one window (its sentences' tokens, the first ones up to WIDE tokens):
    how training reads a generated instruction."""
    out, total = [], 0
    for _, _, toks in units(text):
        if out and total + len(toks) > WIDE:
            break
        out.append(toks)
        total += len(toks)
    return out


def _spans(n: int, sizes: list[int]) -> Iterator[tuple[int, int]]:
    """``(i, j)``: the windows over n units, units i..j inclusive: one to MAX_SENTENCES of them,
    a longer one only while its tokens stay within WIDE."""
    for i in range(n):
        total = 0
        for j in range(i, min(i + MAX_SENTENCES, n)):
            total += sizes[j]
            if j > i and total > WIDE:
                break
            yield i, j


def windows(text: str) -> Iterator[tuple[int, int, list[list[str]]]]:
    """``(start, end, sentences' tokens)`` of each window of a folded text (:func:`_spans` of its
    :func:`units`)."""
    us = units(text)
    for i, j in _spans(len(us), [len(u[2]) for u in us]):
        yield us[i][0], us[j][1], [u[2] for u in us[i:j + 1]]


def score(model: Model, parts: list[list[str]]) -> int:
    """A window's integer score: the bias plus the weight of each of its features."""
    w = model.weights
    return model.bias + sum(w.get(f, 0) for f in features(parts))


@dataclass(frozen=True)
class Hit:
    """The best window of a text: its score and where it is in the folded text."""

    score: int
    start: int
    end: int


class _Scorer:
    """Window scores from per-sentence sums: a window's features are its sentences' features
    plus the pairs across their boundaries and at its two ends (:func:`features`), so each
    sentence is scored once, not once per window it is in. Exactly :func:`score`."""

    def __init__(self, model: Model):
        self.w, self.bias = model.weights, model.bias
        self.memo: dict[str, tuple[Hit, ...]] = {}

    MEMO = 1024  # texts: the guard's embedding stage asks again for the windows the classifier just scored

    def hits(self, text: str) -> list[Hit]:
        got = self.memo.get(text)
        if got is None:
            if len(self.memo) >= self.MEMO:
                self.memo.clear()
            got = self.memo[text] = tuple(self._hits(text))
        return list(got)

    def _hits(self, text: str) -> list[Hit]:
        us = units(text)
        w = self.w
        inner = [sum(w.get(f, 0) for f in _inner(u[2])) for u in us]
        first, last = [_stem(u[2][0]) for u in us], [_stem(u[2][-1]) for u in us]
        opens = [w.get(_pair("<s>", f), 0) for f in first]
        closes = [w.get(_pair(la, "</s>"), 0) for la in last]
        joins = [w.get(_pair(last[k], first[k + 1]), 0) for k in range(len(us) - 1)]
        sizes = [len(u[2]) for u in us]
        return [Hit(self.bias + opens[i] + closes[j] + sum(inner[i:j + 1]) + sum(joins[i:j])
                    + w.get(_length(sum(sizes[i:j + 1])), 0), us[i][0], us[j][1])
                for i, j in _spans(len(us), sizes)]


@lru_cache(maxsize=4)
def _scorer(model: Model) -> _Scorer:
    return _Scorer(model)


def hits(text: str, model: Optional[Model] = None, fast: bool = True) -> list[Hit]:
    """Every window of a folded text with its score, in order. ``fast=False`` scores each
    window's features one by one (:func:`score`, what training used); the default sums
    per-sentence scores (:class:`_Scorer`); the two are equal."""
    model = model or load()
    if fast:
        return _scorer(model).hits(text)
    return [Hit(score(model, parts), a, b) for a, b, parts in windows(text)]


def best(text: str, model: Optional[Model] = None, fast: bool = True) -> Optional[Hit]:
    """The highest-scoring window of a folded text (the first of equals), or None for no words."""
    top: Optional[Hit] = None
    for h in hits(text, model, fast):
        if top is None or h.score > top.score:
            top = h
    return top


def flagged(text: str, model: Optional[Model] = None, fast: bool = True) -> Optional[Hit]:
    """The window to show when a folded text reaches the model's threshold, else None: the
    shortest window inside the best one that still reaches it (the instruction, without the
    sentence before it that the best window may have taken along)."""
    model = model or load()
    every = hits(text, model, fast)
    top = max(every, key=lambda h: h.score, default=None)
    if top is None or top.score < model.threshold:
        return None
    inside = [h for h in every if top.start <= h.start and h.end <= top.end and h.score >= model.threshold]
    return min(inside, key=lambda h: (h.end - h.start, -h.score, h.start))


__all__ = ["Hit", "Model", "ModelError", "best", "features", "flagged", "from_dict", "hits", "load", "score",
           "sentences", "tokens", "units", "window_of", "windows", "word_features"]
