"""Cheap relevance signals: small scorers of (query, document) pairs, registered by name.

No single cheap signal is a judge (each has an AUC of about 0.65 on LLMJudge-style data), but a
logistic regression over several, fitted on a few hundred people's labels, is a usable one
(:mod:`qrelkit.judges.learned`). A signal is one idea with a name, a version and one or more
feature columns:

- ``dense``: cosine of all-MiniLM-L6-v2 embeddings (:mod:`qrelkit.signals.dense`);
- ``lexical``: BM25 over the workspace's documents, query-term coverage, log document length;
- ``pmi`` and ``ql``: the embedded model's likelihood gain and raw query log-likelihood
  (:mod:`qrelkit.signals.likelihood`, whose scorer the ``likelihood`` judge uses too);
- ``pool``: how many runs retrieved the pair, and its best rank;
- ``feedback``: the document's similarity to the topic's documents people judged relevant and
  non-relevant, leaving the pair's own label out (:mod:`qrelkit.signals.feedback`);
- ``prior``: the topic's share of relevant people's labels as shrunk log-odds, the pair's own
  label left out (:mod:`qrelkit.signals.prior`);
- ``window``: the best window of two sentences' MiniLM cosine, BM25 and query coverage
  (:mod:`qrelkit.signals.window`).

Each signal says why it cannot be computed in a context (no runs, no weights package, no
scoring model) and is then dropped, and said so, instead of failing the judge. Values are
cached in the workspace per (signal, version, qid, docid) (:mod:`qrelkit.store.signals`); the
version names everything a value depends on. A value a signal could not compute for one pair
(a failed score call) is NaN, never a guess; the caller decides what a missing value means.

Signals are chosen with spec text ``pmi+ql+dense+lexical+pool`` (:func:`parse_signals`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, ClassVar, Mapping, Optional, Sequence

import numpy as np

from qrelkit import prompts
from qrelkit.types import Case, Doc, Topic, Usage

if TYPE_CHECKING:
    from qrelkit.llm.client import Client
    from qrelkit.store import Store

Pair = tuple[str, str]
REGISTRY: dict[str, type["Signal"]] = {}


def register(cls: type["Signal"]) -> type["Signal"]:
    """Class decorator: one line per signal, refusing a duplicate name."""
    if cls.NAME in REGISTRY:
        raise ValueError(f"signal {cls.NAME!r} registered twice")
    REGISTRY[cls.NAME] = cls
    return cls


@dataclass(frozen=True)
class SignalContext:
    """What signals may read: topics, documents, the pool, the corpus, a scoring client, a cache.

    ``docs`` looks up one document; ``corpus`` yields every (docid, text) the BM25 statistics are
    computed over (the workspace's documents); ``cases`` holds the pool position of pooled pairs
    (empty when there are no runs); ``client`` is an LLM client that can ``score`` (or None);
    ``judged`` holds people's binary labels, qid -> docid -> 0/1 (what ``feedback`` learns from)."""

    topics: Mapping[str, Topic]
    docs: Callable[[str], Optional[Doc]]
    corpus: Callable[[], Mapping[str, str]]
    cases: Mapping[Pair, Case] = field(default_factory=dict)
    has_runs: bool = False
    client: Optional[Client] = None
    store: Optional[Store] = None
    doc_tokens: int = prompts.DEFAULT_DOC_TOKENS
    judged: Mapping[str, Mapping[str, int]] = field(default_factory=dict)

    def text(self, docid: str) -> str:
        """The text a judge sees (title and body), empty for an unknown document."""
        d = self.docs(docid)
        return prompts.doc_text(d.text, d.title) if d else ""


class Signal:
    """A registered scorer. Subclasses set NAME and FEATURES and provide ``version`` and ``compute``."""

    NAME: ClassVar[str]
    FEATURES: ClassVar[tuple[str, ...]]
    CACHED: ClassVar[bool] = True  # False for values read from the workspace itself (pool)
    # True for a signal that compares the document with the query: its values carry the topic's
    # offset (a predictable query scores every document high), which per-topic z-scores take out
    QUERY: ClassVar[bool] = False

    def unavailable(self, ctx: SignalContext) -> Optional[str]:
        """Why this signal cannot be computed here (it is then dropped), or None."""
        return None

    def version(self, ctx: SignalContext) -> str:
        raise NotImplementedError

    async def compute(self, pairs: Sequence[Pair], ctx: SignalContext) -> np.ndarray:
        """``(len(pairs), len(FEATURES))`` floats; NaN where a pair's value could not be computed."""
        raise NotImplementedError

    async def measure(self, pairs: Sequence[Pair], ctx: SignalContext) -> tuple[np.ndarray, list[Usage]]:
        """The values and the LLM calls each pair cost, so a judge can charge them to the case that
        caused them. Signals that call no model keep this default (no calls)."""
        return await self.compute(pairs, ctx), [Usage()] * len(pairs)


@dataclass(frozen=True)
class Dropped:
    """A signal left out, and why (goes into provenance and the summary)."""

    name: str
    reason: str


def _load() -> None:
    from qrelkit.signals import dense, feedback, lexical, likelihood, pool, prior, unstuffed, window  # noqa: F401  (registration)


def parse_signals(text: str) -> tuple[str, ...]:
    """``pmi+ql+dense`` -> ("pmi", "ql", "dense"); raises ValueError naming the unknown ones."""
    _load()
    names = tuple(n.strip() for n in text.split("+") if n.strip())
    unknown = [n for n in names if n not in REGISTRY]
    if unknown or not names:
        raise ValueError(
            f"unknown signal(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(sorted(REGISTRY))}"
        )
    if len(set(names)) != len(names):
        raise ValueError(f"signal listed twice in {text!r}")
    return names


def build(name: str) -> Signal:
    _load()
    return REGISTRY[name]()


async def values(signal: Signal, pairs: Sequence[Pair], ctx: SignalContext) -> np.ndarray:
    """The signal's values for ``pairs`` (see :func:`metered`)."""
    return (await metered(signal, pairs, ctx))[0]


async def metered(signal: Signal, pairs: Sequence[Pair], ctx: SignalContext) -> tuple[np.ndarray, list[Usage]]:
    """The signal's values for ``pairs``, read from the workspace cache where present, else computed
    (and then cached), with what each pair cost (nothing when cached). Pairs whose value could not
    be computed (NaN) are not cached, so a later run tries again."""
    width = len(signal.FEATURES)
    usage = [Usage()] * len(pairs)
    out = np.full((len(pairs), width), np.nan)
    version = signal.version(ctx)
    store = ctx.store if signal.CACHED else None
    cached = store.signal_values(signal.NAME, version, list(pairs)) if store is not None else {}
    todo = [i for i, p in enumerate(pairs) if p not in cached]
    for i, p in enumerate(pairs):
        if p in cached:
            out[i] = [np.nan if v is None else v for v in cached[p]]
    if todo:
        fresh, spent = await signal.measure([pairs[i] for i in todo], ctx)
        fresh = np.asarray(fresh, dtype=float).reshape(len(todo), width)
        out[todo] = fresh
        for i, u in zip(todo, spent):
            usage[i] = u
        if store is not None:
            ok = [(pairs[i], [float(v) for v in row]) for i, row in zip(todo, fresh) if np.isfinite(row).all()]
            if ok:
                store.put_signal_values(signal.NAME, version, ok)
    return out, usage


@dataclass(frozen=True)
class Matrix:
    """Feature columns of the signals that could be computed, and those that were dropped."""

    columns: tuple[str, ...]
    x: np.ndarray
    dropped: tuple[Dropped, ...]
    versions: Mapping[str, str]


async def matrix(names: Sequence[str], pairs: Sequence[Pair], ctx: SignalContext) -> Matrix:
    """All requested signals for ``pairs`` side by side; unavailable ones dropped and said so."""
    cols: list[str] = []
    blocks: list[np.ndarray] = []
    dropped: list[Dropped] = []
    versions: dict[str, str] = {}
    for name in names:
        sig = build(name)
        why = sig.unavailable(ctx)
        if why:
            dropped.append(Dropped(name, why))
            continue
        versions[name] = sig.version(ctx)
        blocks.append(await values(sig, pairs, ctx))
        cols += [f"{name}.{f}" if len(sig.FEATURES) > 1 else name for f in sig.FEATURES]
    x = np.hstack(blocks) if blocks else np.zeros((len(pairs), 0))
    return Matrix(tuple(cols), x, tuple(dropped), versions)


def context_from_store(store: Store, client: Optional[Client] = None, doc_tokens: int = prompts.DEFAULT_DOC_TOKENS,
                       judged: Optional[Mapping[str, Mapping[str, int]]] = None) -> SignalContext:
    """A context over one workspace: its topics, documents, pooled cases and runs, and the
    people's labels ``feedback`` may read (none unless given: the judge decides which)."""
    cases = {(c.qid, c.docid): c for c in store.cases() if c.runs}
    return SignalContext(
        topics=store.topics(),
        docs=store.doc,
        corpus=store.doc_texts,
        cases=cases,
        has_runs=bool(store.runs()) and bool(cases),
        client=client,
        store=store,
        doc_tokens=doc_tokens,
        judged=judged or {},
    )
