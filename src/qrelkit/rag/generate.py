"""Answer generation: one generator LLM answers each topic from each system's top-k.

Why this way (BRIDGE, appendix J): one generator for all systems, so that
answer quality differs only through retrieval; the context is the system's
top-k retrieved passages in trec_eval order (score descending, ties by docid
descending, as pools and scores use); the prompt forbids knowledge from
outside the context and asks for strict JSON ``{"answer": ...}``.

Two systems with the same top-k for a topic ask the same question, so items
are grouped by (topic, context) and each group costs one call; every system in
the group gets the answer, and the first one carries the call's cost. Answers
are saved in the workspace as each call returns, so a re-run (after an
interruption, or a kill) only generates what is missing; a failed or
unparseable reply after the client's retries is stored as an error (retried
next time), never as an answer.

Prompt budget (``context_tokens``, ``auto`` by default, follows the model): the embedded
model has a 2,048-token window, so there the passages share :data:`CONTEXT_TOKENS` (each
gets ``CONTEXT_TOKENS // k`` tokens, at least :data:`MIN_PASSAGE_TOKENS`), truncated by the
judges' rule; a served model gets the top-k chunks whole, as BRIDGE's released generation
code gives them to its generator. A number sets the shared budget for any model.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Optional, Sequence

from qrelkit import prompts
from qrelkit.llm.base import CHAT, JSON_SCHEMA
from qrelkit.rag.batch import paid, run_groups, usage_record
from qrelkit.store.rag import Answer
from qrelkit.types import Doc, Topic, Usage

if TYPE_CHECKING:
    from qrelkit.llm.client import Client
    from qrelkit.store import Store

TEMPLATE = "rag_generate"
DEFAULT_K = 10
CONTEXT_TOKENS = 1200
MIN_PASSAGE_TOKENS = 48
ANSWER_CHARS = 300
MAX_TOKENS = 120  # > ANSWER_CHARS / 4 + the JSON around it; the object always closes
SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string", "maxLength": ANSWER_CHARS}},
    "required": ["answer"],
    "additionalProperties": False,
}
NO_TEXT = "no document text for any of the top-k documents"

DocLookup = Callable[[str], Optional[Doc]]


@dataclass(frozen=True)
class GenerationSummary:
    """What one ``rag generate`` did; ``usage`` counts only this command's client work."""

    model: str
    prompt: str
    k: int
    systems: int
    topics: int
    answers: int
    contexts: int  # distinct (topic, context) pairs asked this time
    resumed: int  # answers found in the workspace and not asked again
    errors: int
    empty: int  # (system, topic) pairs whose run retrieved nothing for the topic
    missing_docs: int  # context documents without text (left out of the prompt)
    usage: Usage  # this command's client work: the client's totals after minus before
    seconds: float

    def as_dict(self) -> dict:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "usage"}
        return out | usage_record(self.usage)


def contexts(runs: Sequence[Any], qids: Sequence[str], k: int) -> dict[tuple[str, str], tuple[str, ...]]:
    """(system, qid) -> the system's top-k docids; pairs with an empty ranking are left out."""
    out: dict[tuple[str, str], tuple[str, ...]] = {}
    for run in runs:
        for qid in qids:
            top = tuple(e.docid for e in run.top(qid, k))
            if top:
                out[(run.name, qid)] = top
    return out


def passage_tokens(k: int, context_tokens: int = CONTEXT_TOKENS) -> int:
    return max(MIN_PASSAGE_TOKENS, context_tokens // max(1, k))


def resolve_context_tokens(context_tokens: int | str, model_id: str) -> Optional[int]:
    """``auto``: :data:`CONTEXT_TOKENS` for the embedded model, None (whole chunks) for a served one."""
    if str(context_tokens).strip().lower() != "auto":
        try:
            value = int(str(context_tokens).strip())
        except ValueError:
            value = 0
        if value < 64:
            from qrelkit.errors import UsageError

            raise UsageError(f"--context-tokens {context_tokens!r}: auto or a number of tokens >= 64")
        return value
    return CONTEXT_TOKENS if model_id == "local" or model_id.startswith("local:") else None


def context_block(docids: Sequence[str], lookup: DocLookup, budget: Optional[int]) -> tuple[str, tuple[str, ...]]:
    """The numbered, delimited passages of a context, and the docids that had no text."""
    template = prompts.load(TEMPLATE)
    parts, missing = [], []
    for docid in docids:
        doc = lookup(docid)
        if doc is None or not doc.text.strip():
            missing.append(docid)
            continue
        text = prompts.doc_text(doc.text, doc.title)
        shown = text if budget is None else prompts.truncate(text, budget)[0]
        block = prompts.delimit(prompts.escape(shown), "PASSAGE")
        parts.append(template.render("passage", n=len(parts) + 1, block=block))
    return "\n\n".join(parts), tuple(missing)


def _reusable(store: Store, model: str, k: int, version: str, wanted: Mapping) -> dict:
    if store is None:
        return {}
    return {
        (a.system, a.qid): a
        for a in store.rag_answers(model=model, k=k, prompt=version)
        if a.ok and wanted.get((a.system, a.qid)) == a.context
    }


@dataclass(frozen=True)
class GenerationSettings:
    """How answers are generated: the top-k, the call cache, concurrency, the context budget and
    progress (the keywords of :func:`agenerate`)."""

    k: int = DEFAULT_K
    store: Optional[Store] = None
    concurrency: int = 8
    context_tokens: int | str = "auto"
    progress: Optional[Callable[[int, int], None]] = None


async def agenerate(
    runs: Sequence[Any],
    topics: Mapping[str, Topic],
    lookup: DocLookup,
    client: Client,
    settings: "Optional[GenerationSettings]" = None,
    **given: Any,
) -> tuple[tuple[Answer, ...], GenerationSummary]:
    """Answers for every (system, topic) with a non-empty top-k; see the module doc."""
    s = settings if settings is not None else GenerationSettings(**given)
    k, store, concurrency = s.k, s.store, s.concurrency
    context_tokens, progress = s.context_tokens, s.progress
    client.require(CHAT, JSON_SCHEMA)
    t0, before = time.perf_counter(), client.usage
    version = prompts.load(TEMPLATE).version
    qids = sorted(topics)
    wanted = contexts(runs, qids, k)
    done = _reusable(store, client.model_id, k, version, wanted)
    groups: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for (system, qid), ctx in wanted.items():
        if (system, qid) not in done:
            groups.setdefault((qid, ctx), []).append(system)
    shared = resolve_context_tokens(context_tokens, client.model_id)
    budget = None if shared is None else passage_tokens(k, shared)

    async def call(key: Any, systems: Sequence[str]) -> list[Answer]:
        qid, ctx = key
        block, missing = context_block(ctx, lookup, budget)
        if not block:
            return [Answer(s, qid, client.model_id, k, version, ctx, None, missing, NO_TEXT) for s in systems]
        messages = prompts.load(TEMPLATE).messages(query=topics[qid].text, context=block)
        c = await client.complete(messages, schema=SCHEMA, max_tokens=MAX_TOKENS, version=version)
        text = c.parsed.get("answer") if c.ok else None
        error = c.error if not c.ok else None
        usage = paid(c)
        return [
            Answer(s, qid, client.model_id, k, version, ctx, text, missing, error, usage if i == 0 else Usage())
            for i, s in enumerate(systems)
        ]

    save = store.put_answers if store is not None else None
    fresh = await run_groups(groups, call, save, concurrency, progress)
    answers = tuple(sorted((*done.values(), *fresh), key=lambda a: (a.system, a.qid)))
    summary = GenerationSummary(
        model=client.model_id, prompt=version, k=k, systems=len(runs), topics=len(qids),
        answers=sum(a.ok for a in answers), contexts=len(groups), resumed=len(done),
        errors=sum(not a.ok for a in answers), empty=len(runs) * len(qids) - len(wanted),
        missing_docs=len({d for a in answers for d in a.missing}),
        usage=client.usage - before, seconds=round(time.perf_counter() - t0, 3),
    )
    return answers, summary
