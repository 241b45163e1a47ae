"""Answer-correctness grading: does a generated answer capture a gold answer?

Why this way (BRIDGE, appendix J): an LLM decides whether the generated answer
captures the core content of ANY of the topic's ground-truth answers, a binary
true/false with a one-sentence reason (the reason first, so the grader states
its grounds before it commits). Topics without gold answers cannot be graded:
they are reported and skipped, as are answers whose generation failed.

Identical answers to one topic (two systems that said the same thing) need one
grade, so items are grouped by (topic, answer text). A reply that cannot be
parsed after the client's retries becomes a grade with ``error`` set and
``correct`` None: it is counted, reported and retried next time, never turned
into a verdict. Grades are saved in the workspace as each call returns.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping, Optional, Sequence

from qrelkit import prompts
from qrelkit.llm.base import CHAT, JSON_SCHEMA
from qrelkit.rag.batch import paid, run_groups, usage_record
from qrelkit.store.rag import Answer, Grade
from qrelkit.types import Topic, Usage

if TYPE_CHECKING:
    from qrelkit.llm.client import Client
    from qrelkit.store import Store

TEMPLATE = "rag_grade"
ANSWER_TOKENS = 300  # what the grader sees of a (rambling) generated answer
MAX_TOKENS = 90  # > the reason's maxLength / 4 + the JSON around it
SCHEMA = {
    "type": "object",
    "properties": {"reason": {"type": "string", "maxLength": 200}, "correct": {"type": "boolean"}},
    "required": ["reason", "correct"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class GradeSummary:
    grader: str
    prompt: str
    answers: int  # answers read
    graded: int  # grades available (new or resumed)
    correct: int
    accuracy: Optional[float]
    resumed: int
    errors: int
    error_items: tuple[tuple[str, str, str], ...]  # (system, qid, error)
    no_gold: tuple[str, ...]  # topics skipped: no ground-truth answers (or not in the topics file)
    ungenerated: int  # answers skipped because generation had failed
    usage: Usage  # this command's client work: the client's totals after minus before
    seconds: float

    def as_dict(self) -> dict:
        out = {k: getattr(self, k) for k in self.__dataclass_fields__ if k not in ("usage", "error_items")}
        out["no_gold"] = list(self.no_gold)
        out["error_items"] = [{"system": s, "qid": q, "error": e} for s, q, e in self.error_items]
        return out | usage_record(self.usage)


def grade_messages(topic: Topic, answer: str) -> list:
    t = prompts.load(TEMPLATE)
    gold = "\n".join(t.render("gold_item", answer=a) for a in topic.answers)
    shown, _ = prompts.truncate(answer, ANSWER_TOKENS)
    return t.messages(query=topic.text, gold=gold, answer=prompts.delimit(prompts.escape(shown), "ANSWER"))


def _reusable(store: Store, grader: str, version: str, items: Sequence[Answer]) -> dict:
    if store is None:
        return {}
    want = {(a.system, a.qid, a.model): a.answer for a in items}
    return {
        (g.system, g.qid, g.generator): g
        for g in store.rag_grades(grader=grader)
        if g.ok and g.prompt == version and want.get((g.system, g.qid, g.generator)) == g.answer
    }


async def agrade(
    answers: Sequence[Answer],
    topics: Mapping[str, Topic],
    client: Client,
    *,
    store: Optional[Store] = None,
    concurrency: int = 8,
    progress: Optional[Callable[[int, int], None]] = None,
) -> tuple[tuple[Grade, ...], GradeSummary]:
    """Grades for every generated answer whose topic has gold answers; see the module doc."""
    client.require(CHAT, JSON_SCHEMA)
    t0, before = time.perf_counter(), client.usage
    grader, version = client.model_id, prompts.load(TEMPLATE).version
    no_gold = sorted({a.qid for a in answers if a.qid not in topics or not topics[a.qid].answers})
    items = [a for a in answers if a.ok and a.qid not in no_gold]
    done = _reusable(store, grader, version, items)
    groups: dict[tuple[str, str], list[Answer]] = {}
    for a in items:
        if (a.system, a.qid, a.model) not in done:
            groups.setdefault((a.qid, a.answer or ""), []).append(a)

    async def call(key: Any, group: Sequence[Answer]) -> list[Grade]:
        qid, text = key
        c = await client.complete(grade_messages(topics[qid], text), schema=SCHEMA, max_tokens=MAX_TOKENS,
                                  version=version)
        correct = bool(c.parsed["correct"]) if c.ok else None
        reason = str(c.parsed.get("reason", "")) if c.ok else ""
        usage = paid(c)
        return [
            Grade(a.system, qid, a.model, grader, version, text, correct, reason, c.error,
                  usage if i == 0 else Usage())
            for i, a in enumerate(group)
        ]

    save = store.put_grades if store is not None else None
    fresh = await run_groups(groups, call, save, concurrency, progress)
    grades = tuple(sorted((*done.values(), *fresh), key=lambda g: (g.generator, g.system, g.qid)))
    ok = [g for g in grades if g.ok]
    summary = GradeSummary(
        grader=grader, prompt=version, answers=len(answers), graded=len(ok), correct=sum(g.correct for g in ok),
        accuracy=(sum(g.correct for g in ok) / len(ok)) if ok else None, resumed=len(done),
        errors=len(grades) - len(ok),
        error_items=tuple((g.system, g.qid, g.error or "failed") for g in grades if not g.ok),
        no_gold=tuple(no_gold), ungenerated=sum(not a.ok for a in answers),
        usage=client.usage - before, seconds=round(time.perf_counter() - t0, 3),
    )
    return grades, summary
