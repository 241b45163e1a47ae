"""Relevance Context Learning: judge with a narrative induced from people's labels.

People's labels on part of a topic's pool say what *they* mean by relevant for
that topic; a generic scale description does not. Two stages:

1. Once per topic, an *instructor* model reads **all** the topic's human-judged
   documents of the variant — ``variant=all`` (relevant and not), ``relevant`` or
   ``nonrelevant`` — in batches that fit its prompt ``budget`` when they do not fit
   one prompt, a partial narrative per batch merged by one more call (how, and the
   provenance it leaves: :mod:`qrelkit.judges.instructor`), and writes a relevance
   narrative (what makes a document relevant or not for this topic) and judging
   instructions. It is
   stored in the workspace's narratives table, where ``qrelkit narratives``
   shows it and a person may edit it, and reused by every later call: an
   edited narrative is never replaced by a judge (only by ``qrelkit narratives
   generate --force``); an unedited one is replaced when a run asks for
   another variant, instructor or reading, or (``docs=all``) when the topic's
   judged documents changed. ``instructor=openai:BIG@URL`` lets a larger
   model write narratives for a small assessor (a second client on the same
   store, so its calls are cached too); by default the assessor writes them.
   The generation cost goes into the narrative's provenance and, for the run
   that paid it, the summary's ``narrative_calls`` / ``narrative_cost``.
2. The assessor judges each case zero-shot with the narrative and the
   instructions in the prompt; ``icl=k`` (RICL) adds ``k`` of the topic's
   judged documents as examples, chosen as by :mod:`qrelkit.judges.icl`.

Stored ids keep their meaning. ``docs=all`` is the default now; before it, the
instructor read a seeded sample of ``docs=6`` documents of ``example_tokens=120`` tokens, in
one call, and every id stored then says ``docs=6`` — which still means exactly that (the same
prompt, so the same cache key). Like every changed default (``Param.legacy``,
:meth:`qrelkit.judges.spec.JudgeSpec.as_before`), a bare ``narrative`` in a workspace that
holds judgments under the old id resumes them with no model call; ``narrative(docs=all)``
written out judges anew. ``budget`` is left out of ids at its default (``auto``).

The default variant is ``all``. The RCL paper (Otero & Parapar, arXiv 2602.08457) has the
instructor analyse "sets of judged query-document pairs" of the topic (abstract; §2.3) — relevant and non-relevant judgments alike — and the only
relevant-only condition it reports is for the ICL baseline ("ICL Relevant"), not for RCL. The
copy of the paper the search tool holds gives its abstract and opening only; in that text no
comparison of narrative variants (relevant-only or non-relevant-only instructor input) is
reported, so ``all`` stays the default as the paper's own RCL setting; ``relevant`` and
``nonrelevant`` are there to measure (``benchmarks/hybrid_paper.py`` with another spec).

A topic without human-judged documents (of the variant) falls back to its own
narrative or description, when it has one (``source: topic``, not stored);
otherwise its cases are error verdicts saying so — a narrative is never made
up from nothing. An instructor call that fails leaves the topic's cases as
errors; the next run tries again.

The same narratives guide ``debate(narrative=true)``: both debaters see them.

Provenance keys: ``templates``, ``truncation``, ``reply`` (as zero-shot),
``narrative`` = ``{"source": "induced"|"edited"|"topic", "variant", "model",
"digest", "docs", "clipped"}`` (and ``batches``, for a narrative read with ``docs=all``) and, with ``icl``, ``examples`` (see icl). A
prompt shows at most 800 characters of narrative and 400 of instructions
(``clipped`` says when a narrative was longer).
Stored narrative provenance: ``{"template", "instructor", "variant", "seed",
"truncated", "docs": [{"docid", "grade", "label", "source"}], "calls",
"cache_hits", "prompt_tokens", "completion_tokens", "cost_usd"}`` (and
``edits`` once a person edited it; ``docs=all`` adds ``reading``, ``cut``, ``batches``,
``merges``: see :mod:`qrelkit.judges.instructor`). Totals are over every call (batches
and merges). The instructor answers in plain text
(``Narrative: ...`` / ``Instructions: ...``), so it needs no JSON mode.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Sequence

from qrelkit import prompts
from qrelkit.errors import UsageError
from qrelkit.judges import Param, choice, integer, register, sampling
from qrelkit.judges.base import (
    JudgeInput,
    LearningJudge,
    Meter,
    Task,
    Verdict,
    error_verdict,
    template_versions,
)
from qrelkit.judges.icl import RANDOM, RELEVANT_ONLY, ExamplePool
from qrelkit.judges.instructor import (  # noqa: F401  (re-exported: stage 1 lives there)
    ALL,
    AUTO,
    DEFAULT_EXAMPLE_TOKENS,
    EVERY,
    LEGACY_DOCS,
    MAX_TOKENS,
    NO_DOCS,
    NONRELEVANT,
    RELEVANT,
    VARIANTS,
    Induced,
    Reading,
    budget_value,
    docs_count,
    every_document,
    induce,
    read_reply,
    shown_documents,
)
from qrelkit.judges.learning import Learned, LearningContext
from qrelkit.judges.output import JSON, OUTPUTS
from qrelkit.judges.zeroshot import StructuredCall, judge_with
from qrelkit.llm.base import CHAT, JSON_SCHEMA

if TYPE_CHECKING:
    from qrelkit.llm.client import Client
    from qrelkit.store import Store
    from qrelkit.types import Topic

SAME = "same"
DEFAULT_DOCS = LEGACY_DOCS  # the reading debate(narrative=true) keeps; `narrative` reads all (docs=all)
# What of a narrative enters an assessor's prompt (~200 + 100 tokens): a long edit or a
# rambling instructor must not push the document and the answer out of a 2048-token context.
GUIDE_CHARS, INSTRUCTION_CHARS = 800, 400


@dataclass(frozen=True)
class ModelRef:
    """A model spec given as a judge parameter; its text form is the canonical model id,
    so that endpoint URLs stay out of method ids (as they stay out of cache keys)."""

    spec: str

    def __str__(self) -> str:
        if self.spec == SAME:
            return SAME
        from qrelkit.llm.spec import canonical_model_id

        return canonical_model_id(self.spec)


def model_ref(text: str) -> ModelRef:
    if text == SAME:
        return ModelRef(SAME)
    from qrelkit.llm.spec import parse_model_spec as parse_model

    try:
        parse_model(text)
    except UsageError as e:
        raise ValueError(str(e)) from None
    return ModelRef(text)


@dataclass(frozen=True)
class Guide:
    """The narrative a topic's cases are judged with, and where it came from."""

    qid: str
    narrative: str
    instructions: str
    source: str  # induced | edited | topic
    variant: str
    model: str
    docs: int = 0
    batches: int = 0  # docs=all: the instructor's batches (0: a narrative read the pre-issue-16 way)

    @property
    def digest(self) -> str:
        return hashlib.sha256(f"{self.narrative}\n{self.instructions}".encode()).hexdigest()[:12]

    @property
    def clipped(self) -> bool:
        return (
            len(" ".join(self.narrative.split())) > GUIDE_CHARS
            or len(" ".join(self.instructions.split())) > INSTRUCTION_CHARS
        )

    def render(self) -> str:
        """The guide section of a prompt (model- or person-written text: no delimiters inside)."""
        t = prompts.load("narrative_guide")
        out = t.render("guide", narrative=prompts.escape(prompts.clip(self.narrative, GUIDE_CHARS)))
        if self.instructions.strip():
            text = prompts.escape(prompts.clip(self.instructions, INSTRUCTION_CHARS))
            out += "\n" + t.render("instructions", instructions=text)
        return out

    def as_prov(self) -> dict:
        return {
            "source": self.source,
            "variant": self.variant,
            "model": self.model,
            "digest": self.digest,
            "docs": self.docs,
            "clipped": self.clipped,
            **({"batches": self.batches} if self.batches else {}),
        }


def from_stored(qid: str, row: dict) -> Guide:
    prov = row.get("provenance") or {}
    return Guide(
        qid,
        row["narrative"],
        row.get("instructions", ""),
        "edited" if row.get("edited") else "induced",
        row.get("variant", ALL),
        row.get("model", ""),
        len(prov.get("docs") or ()),
        len(prov.get("batches") or ()),
    )


def fallback(topic: "Topic") -> Optional[Guide]:
    """The topic's own narrative or description, when it has one."""
    text = (topic.narrative or topic.description or "").strip()
    return Guide(topic.qid, text, "", "topic", "topic", "", 0) if text else None


class NarrativeBook:
    """The narratives a run judges with: stored ones reused, missing ones induced once."""

    def __init__(
        self,
        variant: str = ALL,
        instructor: ModelRef = ModelRef(SAME),
        reading: Reading = Reading(),
        any_variant: bool = False,
    ):
        self.variant, self.instructor, self.reading = variant, instructor, reading
        self.any_variant = any_variant  # debate: any stored narrative will do
        self.guides: dict[str, Guide] = {}
        self.problems: dict[str, str] = {}

    def reusable(self, ctx: Any, qid: str, row: Optional[dict], model: str) -> bool:
        """An edited narrative always; else one of this variant and instructor, read the same
        way: ``docs=all`` wants the same reading of the same documents (a person's new label
        makes a new narrative), ``docs=N`` any narrative not read with ``docs=all``."""
        if not row or not str(row.get("narrative", "")).strip():
            return False
        if row.get("edited") or self.any_variant:
            return True
        if row.get("variant") != self.variant or row.get("model") != model:
            return False
        prov = row.get("provenance") or {}
        read_all = (prov.get("reading") or {}).get("docs") == EVERY
        if not self.reading.every:
            return not read_all
        if not read_all or prov["reading"] != self.reading.as_prov(model):
            return False
        return {d["docid"] for d in prov.get("docs") or ()} == self._docids(ctx, qid)

    def _docids(self, ctx: Any, qid: str) -> set[str]:
        labels = [h for h in ctx.for_topic(qid) if ctx.doc(h.docid) is not None]
        return {h.docid for h in every_document(labels, self.variant, self.reading.seed, qid)}

    async def ensure(self, ctx: Any, client: Client, force: bool = False) -> Any:
        """Make sure every pending topic has a guide (or a reason why not); returns a Learned."""
        separate = self.instructor.spec != SAME
        instructor = client
        if separate:
            from qrelkit.llm.spec import make_client

            instructor = make_client(self.instructor.spec, store=ctx.store)
        stored = ctx.store.narratives()
        todo, reused = [], []
        for qid in ctx.pending_qids:
            if qid not in ctx.topics:
                continue  # the runner reports the missing topic on each of its cases
            row = stored.get(qid)
            if not force and self.reusable(ctx, qid, row, instructor.model_id):
                self.guides[qid] = from_stored(qid, row)
                reused.append(qid)
            else:
                todo.append(qid)
        try:
            results = await asyncio.gather(*(induce(ctx, q, instructor, self.variant, self.reading) for q in todo))
        finally:
            if separate:
                await instructor.aclose()
        return self._learned(ctx, results, reused, instructor.model_id, separate)

    def _learned(self, ctx: Any, results: Sequence[Induced], reused: list, model: str, separate: bool) -> Learned:
        meter = Meter()
        failed, fell_back = {}, []
        for r in results:
            meter.add_usage(r.usage)
            if r.ok:
                self.guides[r.qid] = Guide(r.qid, r.narrative, r.instructions, "induced", self.variant, model,
                                           r.docs, r.batches)
                continue
            fb = fallback(ctx.topics[r.qid]) if r.error == NO_DOCS else None
            if fb is not None:
                self.guides[r.qid] = fb
                fell_back.append(r.qid)
            else:
                self.problems[r.qid] = failed[r.qid] = self._problem(r)
        info = {
            "narratives": {
                "variant": self.variant,
                "instructor": model,
                "generated": sorted(r.qid for r in results if r.ok),
                "reused": reused,
                "fallback": sorted(fell_back),
                "failed": failed,
                "calls": meter.usage.calls,
                "cost_usd": round(meter.usage.cost_usd, 8),
            }
        }
        return Learned(info=info, separate_client=separate, usage=meter.usage)

    def _problem(self, r: Induced) -> str:
        if r.error == NO_DOCS:
            which = {ALL: "", RELEVANT: "relevant ", NONRELEVANT: "non-relevant "}[self.variant]
            return (
                f"no narrative for topic {r.qid}: it has no {which}human-judged documents to learn from "
                "and no narrative or description of its own"
            )
        return f"no narrative for topic {r.qid}: {r.error}"

    def get(self, qid: str) -> Optional[Guide]:
        return self.guides.get(qid)

    def problem(self, qid: str) -> str:
        return self.problems.get(
            qid, f"no narrative for topic {qid}: the judge was not prepared by the runner"
        )


@register
class Narrative(LearningJudge):
    NAME = "narrative"
    PARAMS = {
        "variant": Param(ALL, choice(*VARIANTS), "which judged documents the instructor reads"),
        "instructor": Param(ModelRef(SAME), model_ref, "model spec that writes narratives, or same"),
        "icl": Param(0, integer(0, 3), "examples added to each prompt (RICL)"),
        "select": Param(RANDOM, choice(RANDOM, RELEVANT_ONLY), "which examples, with icl"),
        "seed": Param(0, integer(0), "order of the instructor's documents and sampling of examples"),
        "docs": Param(EVERY, docs_count, "all: every judged document of the variant, in batches that fit "
                      "budget; N: a sample of N (the reading before docs=all)", legacy=LEGACY_DOCS),
        "budget": Param(AUTO, budget_value, "docs=all: tokens of one instructor prompt (auto: 1400 for the "
                        "embedded model, 6000 for others)", omit_default=True),
        "doc_tokens": Param(prompts.DEFAULT_DOC_TOKENS, integer(16), "document token budget"),
        "example_tokens": Param(DEFAULT_EXAMPLE_TOKENS, integer(16),
                                "token budget of each example (icl) and, with docs=N, of each document read"),
        "output": Param(JSON, choice(*OUTPUTS), 'json: reason and decision; label: "Relevant"/"Not Relevant"',
                        omit_default=True),
        **sampling.PARAMS,
    }
    requires = frozenset({CHAT, JSON_SCHEMA})  # the assessor's; the instructor only needs CHAT

    def __init__(self, spec: Any):
        self.spec = str(spec)
        self.doc_tokens: int = spec["doc_tokens"]
        self.k: int = spec["icl"]
        self.output: str = spec["output"]
        self.sampling = sampling.Sampling.of(spec)
        if spec["docs"] != EVERY and spec["budget"] != AUTO:
            raise UsageError(f"method spec {self.spec!r}: budget applies to docs=all, not docs={spec['docs']}")
        reading = Reading(spec["docs"], spec["example_tokens"], spec["seed"], spec["budget"], self.doc_tokens)
        self.book = NarrativeBook(spec["variant"], spec["instructor"], reading)
        self.pool = (
            ExamplePool(self.k, spec["select"], spec["seed"], spec["example_tokens"]) if self.k else None
        )

    def templates_for(self, task_name: str) -> tuple[str, ...]:
        names = ("narrative_judge", "narrative_guide", f"task_{task_name}")
        return names + ("icl",) if self.k else names

    async def learn(self, ctx: LearningContext, client: Client) -> Learned:
        learned = await self.book.ensure(ctx, client)
        if self.pool is not None:
            learned.info["examples"] = self.pool.learn(ctx)
        return learned

    async def __call__(self, inp: JudgeInput, client: Client) -> Verdict:
        versions = template_versions(*self.templates_for(inp.task.name))
        guide = self.book.get(inp.topic.qid)
        if guide is None:
            return error_verdict(self.book.problem(inp.topic.qid), Meter(), {"templates": versions})
        extra: dict = {"narrative": guide.as_prov()}
        examples = ""
        if self.pool is not None:
            examples, extra["examples"] = self.pool.block(inp, self.pool.pick(inp))
        return await self.sampling.run(
            lambda temperature, sample: judge_with(
                inp, client, StructuredCall("narrative_judge", self.doc_tokens, versions, extra, output=self.output,
                                            sections={"guide": guide.render(), "examples": examples}),
                temperature, sample,
            ),
            inp.task,
        )


# ---- scripts: regenerate (people edit in qrelkit.judges.narrative_edits) ---------------------------
async def induce_narratives(
    store: Store,
    client: Client,
    task: Task,
    qids: Optional[Sequence[str]] = None,
    variant: str = ALL,
    force: bool = False,
    reading: Reading = Reading(EVERY),
) -> dict:
    """Stage 1 for whole topics, outside a judging run (``qrelkit narratives generate``).

    Topics default to those with human labels; the reuse rule is the judge's,
    and ``force`` regenerates every chosen topic, edited narratives included."""
    topics = store.topics()
    from qrelkit.judging.labels import human_labels  # the pipeline reads the workspace

    labels = human_labels(store, task)
    if qids:
        unknown = sorted(set(qids) - set(topics))
        if unknown:
            raise UsageError(f"no topic {', '.join(unknown)} in {store.workspace}")
        chosen = sorted(set(qids))
    else:
        chosen = sorted({q for q, _ in labels})
    ctx = LearningContext(store, task, topics, tuple(chosen), tuple(labels[k] for k in sorted(labels)))
    book = NarrativeBook(variant, ModelRef(SAME), reading)
    learned = await book.ensure(ctx, client, force=force)
    out = dict(learned.info["narratives"])
    out["topics"] = chosen
    out["prompt_tokens"], out["completion_tokens"] = learned.usage.prompt_tokens, learned.usage.completion_tokens
    return out
