"""Relevance Context Learning: judge with a narrative induced from people's labels.

People's labels on part of a topic's pool say what *they* mean by relevant for
that topic; a generic scale description does not. Two stages:

1. Once per topic, an *instructor* model reads the topic's human-judged
   documents — ``variant=all`` (relevant and not, balanced), ``relevant`` or
   ``nonrelevant``; at most ``docs`` of them, seeded, each truncated to
   ``example_tokens`` — and writes a relevance narrative (what makes a
   document relevant or not for this topic) and judging instructions. It is
   stored in the workspace's narratives table, where ``qrelkit narratives``
   shows it and a person may edit it, and reused by every later call: an
   edited narrative is never replaced by a judge (only by ``qrelkit narratives
   generate --force``); an unedited one is replaced only when a run asks for
   another variant or instructor. ``instructor=openai:BIG@URL`` lets a larger
   model write narratives for a small assessor (a second client on the same
   store, so its calls are cached too); by default the assessor writes them.
   The generation cost goes into the narrative's provenance and, for the run
   that paid it, the summary's ``narrative_calls`` / ``narrative_cost``.
2. The assessor judges each case zero-shot with the narrative and the
   instructions in the prompt; ``icl=k`` (RICL) adds ``k`` of the topic's
   judged documents as examples, chosen as by :mod:`qrelkit.judges.icl`.

A topic without human-judged documents (of the variant) falls back to its own
narrative or description, when it has one (``source: topic``, not stored);
otherwise its cases are error verdicts saying so — a narrative is never made
up from nothing. An instructor call that fails leaves the topic's cases as
errors; the next run tries again.

The same narratives guide ``debate(narrative=true)``: both debaters see them.

Provenance keys: ``templates``, ``truncation``, ``reply`` (as zero-shot),
``narrative`` = ``{"source": "induced"|"edited"|"topic", "variant", "model",
"digest", "docs", "clipped"}`` and, with ``icl``, ``examples`` (see icl). A
prompt shows at most 800 characters of narrative and 400 of instructions
(``clipped`` says when a narrative was longer).
Stored narrative provenance: ``{"template", "instructor", "variant", "seed",
"truncated", "docs": [{"docid", "grade", "label", "source"}], "calls",
"cache_hits", "prompt_tokens", "completion_tokens", "cost_usd"}`` (and
``edits`` once a person edited it). The instructor answers in plain text
(``Narrative: ...`` / ``Instructions: ...``), so it needs no JSON mode.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import re
from dataclasses import dataclass
from typing import Any, Optional, Sequence

from qrelkit import prompts
from qrelkit.errors import UsageError
from qrelkit.judges import Param, choice, integer, register
from qrelkit.judges.base import (
    JudgeInput,
    LearningJudge,
    Meter,
    Task,
    Verdict,
    error_verdict,
    template_versions,
)
from qrelkit.judges.icl import RANDOM, RELEVANT_ONLY, ExamplePool, describe
from qrelkit.judges.labels import Learned, LearningContext, human_labels
from qrelkit.judges.zeroshot import judge_with
from qrelkit.llm.base import CHAT, JSON_SCHEMA, Usage
from qrelkit.types import Case

ALL, RELEVANT, NONRELEVANT = "all", "relevant", "nonrelevant"
VARIANTS = (ALL, RELEVANT, NONRELEVANT)
SAME = "same"
NO_DOCS = "no human-judged documents"
DEFAULT_DOCS = 6
DEFAULT_EXAMPLE_TOKENS = 120
# A narrative is prose: the instructor answers in plain text ("Narrative: ...",
# "Instructions: ..."), read leniently, so no model fails on JSON escaping; a
# reply cut at MAX_TOKENS is kept and marked ``truncated`` in provenance.
MAX_TOKENS = 300
# What of a narrative enters an assessor's prompt (~200 + 100 tokens): a long edit or a
# rambling instructor must not push the document and the answer out of a 2048-token context.
GUIDE_CHARS, INSTRUCTION_CHARS = 800, 400
_REPLY = re.compile(
    r"^\s*(?:[*#\s]*narrative[*\s]*:\**)?\s*(?P<narrative>.*?)"
    r"(?:\n[*#\s]*(?:judging\s+)?instructions[*\s]*:\**\s*(?P<instructions>.*))?\s*$",
    re.I | re.S,
)


def read_reply(text: str) -> tuple[str, str]:
    """(narrative, instructions) from the instructor's plain-text reply."""
    m = _REPLY.match(text or "")
    if not m:  # pragma: no cover - the pattern matches any text
        return (text or "").strip(), ""
    return (m["narrative"] or "").strip(), (m["instructions"] or "").strip()


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
    from qrelkit.llm.spec import parse_spec as parse_model

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
    )


def fallback(topic: Any) -> Optional[Guide]:
    """The topic's own narrative or description, when it has one."""
    text = (getattr(topic, "narrative", None) or getattr(topic, "description", None) or "").strip()
    return Guide(topic.qid, text, "", "topic", "topic", "", 0) if text else None


def shown_documents(labels: Sequence[Any], variant: str, n: int, seed: int, qid: str) -> list[Any]:
    """Which judged documents the instructor reads: seeded, balanced for ``all``."""
    ordered = sorted(labels, key=lambda h: h.docid)
    rng = random.Random(f"{seed}|{qid}")
    pos = [h for h in ordered if h.label]
    neg = [h for h in ordered if not h.label]
    rng.shuffle(pos)
    rng.shuffle(neg)
    if variant == RELEVANT:
        return pos[:n]
    if variant == NONRELEVANT:
        return neg[:n]
    k_pos = min(len(pos), max(n // 2 + n % 2, n - len(neg)))
    chosen = pos[:k_pos] + neg[: n - k_pos]
    rng.shuffle(chosen)  # interleave, so the instructor does not read all positives first
    return chosen


@dataclass(frozen=True)
class Induced:
    """One instructor call's outcome for one topic."""

    qid: str
    guide: Optional[Guide]
    error: Optional[str] = None
    usage: Usage = Usage()


async def induce(
    ctx: Any,
    qid: str,
    client: Any,
    variant: str = ALL,
    docs: int = DEFAULT_DOCS,
    example_tokens: int = DEFAULT_EXAMPLE_TOKENS,
    seed: int = 0,
) -> Induced:
    """Stage 1 for one topic: ask the instructor and store the narrative (nothing is stored on failure)."""
    topic = ctx.topics[qid]
    labels = [h for h in ctx.for_topic(qid) if ctx.doc(h.docid) is not None]
    chosen = shown_documents(labels, variant, docs, seed, qid)
    if not chosen:
        return Induced(qid, None, NO_DOCS)
    t = prompts.load("narrative_instructor")
    task: Task = ctx.task
    items = []
    for n, h in enumerate(chosen, start=1):
        d = ctx.doc(h.docid)
        shown, _ = prompts.truncate(prompts.doc_text(d.text, d.title), example_tokens)
        items.append(
            t.render(
                "item",
                n=n,
                decision=describe(task, h.grade, h.label),
                document=prompts.delimit(prompts.escape(shown), "EXAMPLE"),
            )
        )
    task_t = task.template()
    messages = t.messages(
        criteria=task_t.render("criteria"),
        query_block=JudgeInput(Case(qid, ""), topic, None, task).query_block(),
        scope=t.render(f"scope_{variant}"),
        items="\n\n".join(items),
    )
    meter = Meter()
    c = meter.add(
        await client.complete(messages, max_tokens=MAX_TOKENS, version=f"{t.version}|{task_t.version}")
    )
    usage = meter.usage
    if not c.ok:
        return Induced(qid, None, f"instructor call failed: {c.error}", usage)
    narrative, instructions = read_reply(c.text)
    if not narrative:
        return Induced(qid, None, "the instructor wrote an empty narrative", usage)
    prov = {
        "template": t.version,
        "instructor": client.model_id,
        "variant": variant,
        "seed": seed,
        "truncated": bool(c.completion_tokens and c.completion_tokens >= MAX_TOKENS),
        "docs": [{"docid": h.docid, "grade": h.grade, "label": h.label, "source": h.source} for h in chosen],
        **usage.as_dict(),
    }
    ctx.store.put_narrative(
        qid, narrative, instructions, variant=variant, model=client.model_id, edited=False, provenance=prov
    )
    return Induced(
        qid,
        Guide(qid, narrative, instructions, "induced", variant, client.model_id, len(chosen)),
        None,
        usage,
    )


class NarrativeBook:
    """The narratives a run judges with: stored ones reused, missing ones induced once."""

    def __init__(
        self,
        variant: str = ALL,
        instructor: ModelRef = ModelRef(SAME),
        docs: int = DEFAULT_DOCS,
        example_tokens: int = DEFAULT_EXAMPLE_TOKENS,
        seed: int = 0,
        any_variant: bool = False,
    ):
        self.variant, self.instructor = variant, instructor
        self.docs, self.example_tokens, self.seed = docs, example_tokens, seed
        self.any_variant = any_variant  # debate: any stored narrative will do
        self.guides: dict[str, Guide] = {}
        self.problems: dict[str, str] = {}

    def reusable(self, row: Optional[dict], model: str) -> bool:
        if not row or not str(row.get("narrative", "")).strip():
            return False
        if row.get("edited") or self.any_variant:
            return True
        return row.get("variant") == self.variant and row.get("model") == model

    async def ensure(self, ctx: Any, client: Any, force: bool = False) -> Any:
        """Make sure every pending topic has a guide (or a reason why not); returns a Learned."""
        separate = self.instructor.spec != SAME
        instructor = client
        if separate:
            from qrelkit.llm.spec import make_client

            instructor = make_client(self.instructor.spec, store=ctx.store)
        stored = ctx.store.narratives()
        todo, reused, fell_back = [], [], []
        for qid in ctx.pending_qids:
            if qid not in ctx.topics:
                continue  # the runner reports the missing topic on each of its cases
            row = stored.get(qid)
            if not force and self.reusable(row, instructor.model_id):
                self.guides[qid] = from_stored(qid, row)
                reused.append(qid)
            else:
                todo.append(qid)
        try:
            results = await asyncio.gather(
                *(
                    induce(ctx, q, instructor, self.variant, self.docs, self.example_tokens, self.seed)
                    for q in todo
                )
            )
        finally:
            if separate:
                await instructor.aclose()
        meter = Meter()
        failed = {}
        for r in results:
            meter.add_usage(r.usage)
            if r.guide is not None:
                self.guides[r.qid] = r.guide
                continue
            fb = fallback(ctx.topics[r.qid]) if r.error == NO_DOCS else None
            if fb is not None:
                self.guides[r.qid] = fb
                fell_back.append(r.qid)
            else:
                self.problems[r.qid] = self._problem(r)
                failed[r.qid] = self.problems[r.qid]
        info = {
            "narratives": {
                "variant": self.variant,
                "instructor": instructor.model_id,
                "generated": sorted(r.qid for r in results if r.guide is not None),
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
        "seed": Param(0, integer(0), "sampling of the instructor's documents and of examples"),
        "docs": Param(DEFAULT_DOCS, integer(1, 20), "judged documents the instructor reads"),
        "doc_tokens": Param(prompts.DEFAULT_DOC_TOKENS, integer(16), "document token budget"),
        "example_tokens": Param(DEFAULT_EXAMPLE_TOKENS, integer(16), "token budget of each shown document"),
    }
    requires = frozenset({CHAT, JSON_SCHEMA})  # the assessor's; the instructor only needs CHAT
    def __init__(self, spec: Any):
        self.spec = str(spec)
        self.doc_tokens: int = spec["doc_tokens"]
        self.k: int = spec["icl"]
        self.book = NarrativeBook(
            spec["variant"], spec["instructor"], spec["docs"], spec["example_tokens"], spec["seed"]
        )
        self.pool = (
            ExamplePool(self.k, spec["select"], spec["seed"], spec["example_tokens"]) if self.k else None
        )

    def templates_for(self, task_name: str) -> tuple[str, ...]:
        names = ("narrative_judge", "narrative_guide", f"task_{task_name}")
        return names + ("icl",) if self.k else names

    async def learn(self, ctx: LearningContext, client: Any) -> Learned:
        learned = await self.book.ensure(ctx, client)
        if self.pool is not None:
            learned.info["examples"] = self.pool.learn(ctx)
        return learned

    async def __call__(self, inp: JudgeInput, client: Any) -> Verdict:
        versions = template_versions(*self.templates_for(inp.task.name))
        guide = self.book.get(inp.topic.qid)
        if guide is None:
            return error_verdict(self.book.problem(inp.topic.qid), Meter(), {"templates": versions})
        extra: dict = {"narrative": guide.as_prov()}
        examples = ""
        if self.pool is not None:
            examples, extra["examples"] = self.pool.block(inp, self.pool.pick(inp))
        return await judge_with(
            inp,
            client,
            "narrative_judge",
            self.doc_tokens,
            versions,
            extra,
            guide=guide.render(),
            examples=examples,
        )


# ---- people and scripts: edit, regenerate ------------------------------------------------------
EDIT_HELP = (
    "# Lines starting with '#' are ignored. Edit the narrative and the instructions below,\n"
    "# then save and close the editor; an empty narrative cancels the edit.\n"
)


def edit_text(qid: str, query: str, row: Optional[dict]) -> str:
    """The text a person edits: the current narrative and instructions under two headings."""
    row = row or {}
    return (
        f"# Relevance narrative for topic {qid}: {query}\n{EDIT_HELP}"
        f"## narrative\n{row.get('narrative', '')}\n\n## instructions\n{row.get('instructions', '')}\n"
    )


def parse_edit(text: str) -> tuple[str, Optional[str]]:
    """(narrative, instructions or None when the text has no instructions heading)."""
    lines = [
        ln
        for ln in text.splitlines()
        if not ln.startswith("#") or ln.strip() in ("## narrative", "## instructions")
    ]
    parts: dict[str, list[str]] = {}
    current = None
    for ln in lines:
        head = ln.strip()
        if head in ("## narrative", "## instructions"):
            current = head[3:]
            parts[current] = []
            continue
        parts.setdefault(current or "narrative", []).append(ln)
    narrative = "\n".join(parts.get("narrative", [])).strip()
    instructions = "\n".join(parts["instructions"]).strip() if "instructions" in parts else None
    return narrative, instructions


def save_edit(
    store: Any, qid: str, narrative: str, instructions: Optional[str] = None, via: str = "editor"
) -> dict:
    """Store a person's narrative as edited (so no judge replaces it); returns the stored row.

    The induced narrative's provenance is kept, with the edit appended under ``edits``."""
    import time

    if qid not in store.topics():
        raise UsageError(f"no topic {qid!r} in {store.workspace}")
    narrative = narrative.strip()
    if not narrative:
        raise UsageError("the narrative is empty; nothing was saved")
    row = store.narratives().get(qid) or {}
    old = Guide(qid, row.get("narrative", ""), row.get("instructions", ""), "", "", "")
    prov = dict(row.get("provenance") or {})
    prov["edits"] = list(prov.get("edits") or []) + [
        {"at": round(time.time(), 3), "via": via, "previous_digest": old.digest if row else None}
    ]
    store.put_narrative(
        qid,
        narrative,
        row.get("instructions", "") if instructions is None else instructions.strip(),
        variant=row.get("variant", "manual"),
        model=row.get("model", ""),
        edited=True,
        provenance=prov,
    )
    return store.narratives()[qid]


async def induce_narratives(
    store: Any,
    client: Any,
    task: Task,
    qids: Optional[Sequence[str]] = None,
    variant: str = ALL,
    force: bool = False,
    docs: int = DEFAULT_DOCS,
    example_tokens: int = DEFAULT_EXAMPLE_TOKENS,
    seed: int = 0,
) -> dict:
    """Stage 1 for whole topics, outside a judging run (``qrelkit narratives generate``).

    Topics default to those with human labels; the reuse rule is the judge's,
    and ``force`` regenerates every chosen topic, edited narratives included."""
    topics = store.topics()
    labels = human_labels(store, task)
    if qids:
        unknown = sorted(set(qids) - set(topics))
        if unknown:
            raise UsageError(f"no topic {', '.join(unknown)} in {store.workspace}")
        chosen = sorted(set(qids))
    else:
        chosen = sorted({q for q, _ in labels})
    ctx = LearningContext(store, task, topics, tuple(chosen), tuple(labels[k] for k in sorted(labels)))
    book = NarrativeBook(variant, ModelRef(SAME), docs, example_tokens, seed)
    learned = await book.ensure(ctx, client, force=force)
    out = dict(learned.info["narratives"])
    out["topics"] = chosen
    out["prompt_tokens"], out["completion_tokens"] = learned.usage.prompt_tokens, learned.usage.completion_tokens
    return out
