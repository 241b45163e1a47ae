"""The instructor: how a topic's human-judged documents become one relevance narrative.

Stage 1 of :mod:`qrelkit.judges.narrative` (RCL/RICL). Which documents the instructor reads
is a :class:`Reading`:

- ``docs=all`` (the default): **every** human-judged document of the variant — relevant and
  not (``all``), or only ``relevant`` / ``nonrelevant`` ones — each shown as the assessor
  sees a document (up to ``doc_tokens``). When they do not fit one prompt of ``budget``
  tokens (estimated as characters / 4, the rule of :mod:`qrelkit.prompts`), they are split
  into batches that fit, in a seeded order that spreads relevant and non-relevant documents
  over the batches in proportion; the instructor writes a partial narrative per batch and one
  more call merges them (``narrative_merge``; partials that do not fit one merge prompt are
  merged in rounds). A document too long for a batch on its own is cut to fit, and said so.
- ``docs=N`` (1–20): the reading before ``docs=all`` became the default — a seeded sample of N (balanced for
  ``all``), each cut to ``example_tokens``, one call. ``narrative(docs=6, ...)`` ids stored
  then keep exactly this meaning; ``budget`` does not apply to it.

``budget=auto`` is 1,400 tokens for the embedded model (its context is 2,048 tokens,
:data:`qrelkit.llm.local.N_CTX`, and a reply may take :data:`MAX_TOKENS`; its tokenizer
gives 0.89 tokens per estimated token on TREC DL passages, so 1,400 leaves a margin for
denser text) and 6,000 for any other model (an 8k-context server with the same margin);
``budget=N`` sets it.

Every call goes through the client (cached, retried, errors recorded). Any failed or
empty call — a batch's or a merge's — leaves the topic without a narrative (its cases
become error verdicts) and stores nothing; the calls that succeeded are in the client's
cache, so the next run pays only for the one that failed.

Stored provenance of a ``docs=all`` narrative, beside the keys every narrative has
(``template``, ``instructor``, ``variant``, ``seed``, ``truncated``, ``docs``, usage):
``reading`` (``docs``, ``budget`` as given and ``budget_tokens`` as resolved,
``doc_tokens``), ``cut`` (``[{"docid", "tokens", "shown_tokens"}]``, empty when nothing was
cut), ``batches`` (``[{"docids", "digest", "narrative", "instructions", "truncated"}]``)
and, when there was more than one batch, ``merge_template`` and ``merges``
(``[{"inputs": [digest, ...], "digest"}]``, one per merge call).
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional, Sequence

from qrelkit import prompts
from qrelkit.judges.base import JudgeInput, Meter, Task
from qrelkit.judges.icl import describe
from qrelkit.llm.base import Usage
from qrelkit.types import Case

if TYPE_CHECKING:
    from qrelkit.llm.client import Client

ALL, RELEVANT, NONRELEVANT = "all", "relevant", "nonrelevant"
VARIANTS = (ALL, RELEVANT, NONRELEVANT)
EVERY = "all"  # docs=all
AUTO = "auto"  # budget=auto
NO_DOCS = "no human-judged documents"
LEGACY_DOCS = 6
DEFAULT_EXAMPLE_TOKENS = 120
# A narrative is prose: the instructor answers in plain text ("Narrative: ...",
# "Instructions: ..."), read leniently, so no model fails on JSON escaping; a
# reply cut at MAX_TOKENS is kept and marked ``truncated`` in provenance.
MAX_TOKENS = 300
LOCAL_BUDGET, SERVER_BUDGET = 1400, 6000
_REPLY = re.compile(
    r"^\s*(?:[*#\s]*narrative[*\s]*:\**)?\s*(?P<narrative>.*?)"
    r"(?:\n[*#\s]*(?:judging\s+)?instructions[*\s]*:\**\s*(?P<instructions>.*))?\s*$",
    re.I | re.S,
)


def read_reply(text: str) -> tuple[str, str]:
    """(narrative, instructions) from the instructor's plain-text reply, without the example
    delimiters a weak model echoes (``<<<EXAMPLE ...>>>``: :func:`qrelkit.prompts.strip_markers`)."""
    text = prompts.strip_markers(text or "")
    m = _REPLY.match(text)
    if not m:  # pragma: no cover - the pattern matches any text
        return text.strip(), ""
    return (m["narrative"] or "").strip(), (m["instructions"] or "").strip()


def docs_count(text: str) -> Any:
    """``docs=all`` or ``docs=N`` (1–20)."""
    if text == EVERY:
        return EVERY
    try:
        n = int(text)
    except ValueError:
        raise ValueError(f"expected all or an integer, got {text!r}") from None
    if not 1 <= n <= 20:
        raise ValueError(f"{n} is out of range [1, 20] (or all)")
    return n


def budget_value(text: str) -> Any:
    """``budget=auto`` or a number of prompt tokens (at least 512)."""
    if text == AUTO:
        return AUTO
    try:
        n = int(text)
    except ValueError:
        raise ValueError(f"expected auto or an integer, got {text!r}") from None
    if n < 512:
        raise ValueError(f"{n} is below 512 (a prompt needs room for the instructions and a document)")
    return n


def resolve_budget(budget: Any, model_id: str) -> int:
    """The prompt budget in tokens for this instructor (see the module docstring)."""
    if budget != AUTO:
        return int(budget)
    from qrelkit.judges.spec import is_local_model

    return LOCAL_BUDGET if is_local_model(model_id) else SERVER_BUDGET


@dataclass(frozen=True)
class Reading:
    """Which judged documents the instructor reads, and how much of each."""

    docs: Any = LEGACY_DOCS  # EVERY or a number (the pre-issue-16 sample)
    example_tokens: int = DEFAULT_EXAMPLE_TOKENS  # docs=N: tokens of each document
    seed: int = 0
    budget: Any = AUTO  # docs=all: prompt budget
    doc_tokens: int = prompts.DEFAULT_DOC_TOKENS  # docs=all: tokens of each document

    @property
    def every(self) -> bool:
        return self.docs == EVERY

    def as_prov(self, model_id: str) -> dict:
        return {"docs": EVERY, "budget": self.budget, "budget_tokens": resolve_budget(self.budget, model_id),
                "doc_tokens": self.doc_tokens}


def shown_documents(labels: Sequence[Any], variant: str, n: int, seed: int, qid: str) -> list[Any]:
    """``docs=N``: which judged documents the instructor reads: seeded, balanced for ``all``."""
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


def every_document(labels: Sequence[Any], variant: str, seed: int, qid: str) -> list[Any]:
    """``docs=all``: every judged document of the variant, seeded, the two kinds spread evenly
    (each at its share of the sequence), so that every batch sees both in proportion."""
    ordered = sorted(labels, key=lambda h: h.docid)
    rng = random.Random(f"{seed}|{qid}")
    pos = [h for h in ordered if h.label] if variant != NONRELEVANT else []
    neg = [h for h in ordered if not h.label] if variant != RELEVANT else []
    rng.shuffle(pos)
    rng.shuffle(neg)
    keyed = [((i + 0.5) / len(pos), 0, h) for i, h in enumerate(pos)]
    keyed += [((i + 0.5) / len(neg), 1, h) for i, h in enumerate(neg)]
    return [h for *_, h in sorted(keyed, key=lambda t: t[:2])]


def plan_batches(fixed: int, sizes: Sequence[int], budget: int) -> list[list[int]]:
    """Indices of ``sizes`` in order, packed greedily into prompts of at most ``budget``
    tokens with ``fixed`` tokens each; an item larger than the room is alone in its batch."""
    batches: list[list[int]] = []
    current: list[int] = []
    used = fixed
    for i, size in enumerate(sizes):
        if current and used + size > budget:
            batches.append(current)
            current, used = [], fixed
        current.append(i)
        used += size
    if current:
        batches.append(current)
    return batches


def prompt_tokens(messages: Sequence[Any]) -> int:
    """A prompt's size by the estimate every budget here uses (characters / 4)."""
    return sum(prompts.approx_tokens(m.content) for m in messages)


@dataclass(frozen=True)
class Induced:
    """One topic's stage-1 outcome: the narrative (stored already) or why there is none."""

    qid: str
    narrative: str = ""
    instructions: str = ""
    docs: int = 0
    batches: int = 0
    error: Optional[str] = None
    usage: Usage = Usage()

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class _Part:
    """A (partial) narrative and how many documents it was written from."""

    narrative: str
    instructions: str
    count: int
    truncated: bool = False
    digest: str = field(init=False, default="")

    def __post_init__(self) -> None:
        text = f"{self.narrative}\n{self.instructions}"
        object.__setattr__(self, "digest", hashlib.sha256(text.encode()).hexdigest()[:12])


class _Prompter:
    """Renders one topic's instructor and merge prompts (shared parts rendered once)."""

    def __init__(self, ctx: Any, qid: str, variant: str):
        task: Task = ctx.task
        self.task = task
        self.variant = variant
        self.task_t = task.template()
        self.shared = {
            "criteria": self.task_t.render("criteria"),
            "query_block": JudgeInput(Case(qid, ""), ctx.topics[qid], None, task).query_block(),
        }

    def messages(self, name: str, items: Sequence[str]) -> tuple[list, str]:
        t = prompts.load(name)
        msgs = t.messages(scope=t.render(f"scope_{self.variant}"), items="\n\n".join(items), **self.shared)
        return msgs, f"{t.version}|{self.task_t.version}"

    def item(self, n: int, h: Any, text: str) -> str:
        t = prompts.load("narrative_instructor")
        return t.render("item", n=n, decision=describe(self.task, h.grade, h.label),
                        document=prompts.delimit(prompts.escape(text), "EXAMPLE"))

    def part(self, n: int, p: _Part) -> str:
        text = f"Narrative: {p.narrative}\nInstructions: {p.instructions}"
        partial = prompts.delimit(prompts.escape(prompts.clip(text, 4 * MAX_TOKENS + 400)), "PARTIAL")
        return prompts.load("narrative_merge").render("item", n=n, count=p.count, partial=partial)


async def _ask(client: Client, messages: list, version: str, meter: Meter,
               what: str = "") -> tuple[Optional[_Part], str]:
    """One instructor call read as a narrative; (part, "") or (None, why not)."""
    c = meter.add(await client.complete(messages, max_tokens=MAX_TOKENS, version=version))
    where = f" ({what})" if what else ""
    if not c.ok:
        return None, f"instructor call failed{where}: {c.error}"
    narrative, instructions = read_reply(c.text)
    if not narrative:
        return None, f"the instructor wrote an empty narrative{where}"
    truncated = bool(c.completion_tokens and c.completion_tokens >= MAX_TOKENS)
    return _Part(narrative, instructions, 0, truncated), ""


def _label_prov(chosen: Sequence[Any]) -> list[dict]:
    return [{"docid": h.docid, "grade": h.grade, "label": h.label, "source": h.source} for h in chosen]


async def induce(ctx: Any, qid: str, client: Client, variant: str = ALL, reading: Reading = Reading()) -> Induced:
    """Stage 1 for one topic: ask the instructor and store the narrative (nothing is stored on failure)."""
    labels = [h for h in ctx.for_topic(qid) if ctx.doc(h.docid) is not None]
    if reading.every:
        chosen = every_document(labels, variant, reading.seed, qid)
    else:
        chosen = shown_documents(labels, variant, reading.docs, reading.seed, qid)
    if not chosen:
        return Induced(qid, error=NO_DOCS)
    meter = Meter()
    if reading.every:
        part, prov, error = await _read_all(ctx, qid, client, variant, reading, chosen, meter)
    else:
        part, prov, error = await _read_sample(ctx, qid, client, variant, reading, chosen, meter)
    if part is None:
        return Induced(qid, error=error, usage=meter.usage)
    prov = {"template": prompts.load("narrative_instructor").version, "instructor": client.model_id,
            "variant": variant, "seed": reading.seed, **prov, "docs": _label_prov(chosen), **meter.usage.as_dict()}
    ctx.store.put_narrative(qid, part.narrative, part.instructions, variant=variant, model=client.model_id,
                            edited=False, provenance=prov)
    return Induced(qid, part.narrative, part.instructions, len(chosen), len(prov.get("batches") or ()),
                   usage=meter.usage)


async def _read_sample(ctx: Any, qid: str, client: Client, variant: str, reading: Reading, chosen: Sequence[Any],
                       meter: Meter) -> tuple[Optional[_Part], dict, str]:
    """``docs=N``: one call over the sample, each document cut to ``example_tokens`` (as the
    sampled reading always did: the same prompt, so the same cache key)."""
    p = _Prompter(ctx, qid, variant)
    items = []
    for n, h in enumerate(chosen, start=1):
        d = ctx.doc(h.docid)
        shown, _ = prompts.truncate(prompts.doc_text(d.text, d.title), reading.example_tokens)
        items.append(p.item(n, h, shown))
    messages, version = p.messages("narrative_instructor", items)
    part, error = await _ask(client, messages, version, meter)
    return part, {"truncated": bool(part and part.truncated)}, error


def _shown(ctx: Any, p: _Prompter, h: Any, reading: Reading, room: int, n: int) -> tuple[str, Optional[dict]]:
    """What the instructor reads of one document: up to ``doc_tokens``, and cut further (head
    kept) until its item fits ``room`` tokens on its own; with a record when it was cut."""
    d = ctx.doc(h.docid)
    full = prompts.doc_text(d.text, d.title)
    limit = min(reading.doc_tokens, prompts.approx_tokens(full))
    shown, tr = prompts.truncate(full, limit)
    while prompts.approx_tokens(p.item(n, h, shown)) + 1 > room and limit > 16:
        limit = max(16, min(limit - 8, limit * 9 // 10))
        shown, tr = prompts.truncate(full, limit)
    cut = {"docid": h.docid, "tokens": prompts.approx_tokens(full), "shown_tokens": limit} if tr.truncated else None
    return shown, cut


async def _read_all(ctx: Any, qid: str, client: Client, variant: str, reading: Reading, chosen: Sequence[Any],
                    meter: Meter) -> tuple[Optional[_Part], dict, str]:
    """``docs=all``: batches that fit the budget, a partial narrative each, then merged."""
    p = _Prompter(ctx, qid, variant)
    budget = resolve_budget(reading.budget, client.model_id)
    fixed = prompt_tokens(p.messages("narrative_instructor", [])[0])
    n = len(chosen)  # items are sized with the widest number they can carry
    shown = [_shown(ctx, p, h, reading, budget - fixed, n) for h in chosen]
    texts, cut = [t for t, _ in shown], [c for _, c in shown if c]
    sizes = [prompts.approx_tokens(p.item(n, h, t)) + 1 for h, t in zip(chosen, texts)]
    batches = plan_batches(fixed, sizes, budget)
    asks = []
    for k, b in enumerate(batches, start=1):
        msgs, version = p.messages("narrative_instructor", [p.item(n, chosen[i], texts[i]) for n, i in enumerate(b, 1)])
        asks.append(_ask(client, msgs, version, meter, f"batch {k} of {len(batches)}"))
    answers = await asyncio.gather(*asks)
    failed = [why for part, why in answers if part is None]
    if failed:
        return None, {}, failed[0]
    parts = [_Part(a.narrative, a.instructions, len(b), a.truncated) for (a, _), b in zip(answers, batches)]
    prov: dict = {
        "reading": reading.as_prov(client.model_id),
        "cut": cut,
        "batches": [{"docids": [chosen[i].docid for i in b], "digest": x.digest, "narrative": x.narrative,
                     "instructions": x.instructions, "truncated": x.truncated} for b, x in zip(batches, parts)],
    }
    merged, merges, error = await _merge(p, client, parts, budget, meter)
    if merged is None:
        return None, {}, error
    if merges:
        prov["merge_template"], prov["merges"] = prompts.load("narrative_merge").version, merges
    prov["truncated"] = any(x.truncated for x in parts) or merged.truncated
    return merged, prov, ""


async def _merge(p: _Prompter, client: Client, parts: list[_Part], budget: int,
                 meter: Meter) -> tuple[Optional[_Part], list[dict], str]:
    """Merge partial narratives, as many per call as fit the budget, in rounds until one is left."""
    merges: list[dict] = []
    fixed = prompt_tokens(p.messages("narrative_merge", [])[0])
    while len(parts) > 1:
        sizes = [prompts.approx_tokens(p.part(len(parts), x)) + 1 for x in parts]
        groups = plan_batches(fixed, sizes, budget)
        if len(groups) == len(parts):
            return None, merges, f"budget {budget} is too small to merge two partial narratives"
        calls = []
        for g in (g for g in groups if len(g) > 1):
            msgs, version = p.messages("narrative_merge", [p.part(n, parts[i]) for n, i in enumerate(g, 1)])
            calls.append(_ask(client, msgs, version, meter, f"merge of {len(g)} partial narratives"))
        answers = iter(await asyncio.gather(*calls))
        merged_parts = []
        for g in groups:
            if len(g) == 1:
                merged_parts.append(parts[g[0]])
                continue
            x, why = next(answers)
            if x is None:
                return None, merges, why
            x = _Part(x.narrative, x.instructions, sum(parts[i].count for i in g), x.truncated)
            merges.append({"inputs": [parts[i].digest for i in g], "digest": x.digest})
            merged_parts.append(x)
        parts = merged_parts
    return parts[0], merges, ""
