"""Few-shot judging with examples people judged for the same topic.

The people's labels of a hybrid pool (or the escalations they settled) show
what *this* topic's assessors count as relevant better than any generic scale
description, so ``icl(k=2, select=random, seed=0)`` puts ``k`` (1–3) of the
topic's human-judged documents, with their labels, in front of the document
to judge, and otherwise asks what zero-shot asks.

Selection is per topic, so that every case of a topic sees the same examples
(and a server's prefix cache can reuse them): the topic's labelled documents
(original qrels and people's labels, as the runner's learning context gives
them) in a seeded shuffle — ``random`` — or only the relevant ones in that
order — ``relevant-only`` — and the first ``k`` of them that are not the case's
own document. Fewer are shown when the topic has fewer; with none the prompt
says so and the judgment is, in effect, zero-shot (recorded, not hidden).
Examples are truncated like documents, to ``example_tokens`` each, and
delimited as data.

Provenance keys: ``templates``, ``truncation``, ``reply`` (as zero-shot) and
``examples`` = ``{"docids": [...], "select", "seed", "k", "available",
"items": [{"docid", "grade", "label", "source", "truncated"}]}``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Sequence

from qrelkit import prompts
from qrelkit.judges import Param, choice, integer, register
from qrelkit.judges.base import (
    JudgeInput,
    LearningJudge,
    Task,
    Verdict,
    template_versions,
)
from qrelkit.judges.labels import Learned, LearningContext
from qrelkit.judges.zeroshot import judge_with
from qrelkit.llm.base import CHAT, JSON_SCHEMA
from qrelkit.types import Doc

RANDOM, RELEVANT_ONLY = "random", "relevant-only"
DEFAULT_EXAMPLE_TOKENS = 150


@dataclass(frozen=True)
class Example:
    """A labelled document of the topic, ready to be shown."""

    docid: str
    grade: int
    label: int
    source: str
    doc: Doc


def describe(task: Task, grade: int, label: int) -> str:
    """How a person's judgment is told to the model: the grade and what it means in binary."""
    if not task.graded:
        return task.describe(label)
    shown = min(max(grade, 0), task.max_grade)
    return f"{task.describe(shown)} ({'relevant' if label else 'not relevant'})"


class ExamplePool:
    """Per-topic example candidates in their seeded order; picks a case's examples."""

    def __init__(self, k: int, select: str, seed: int, tokens: int):
        self.k, self.select, self.seed, self.tokens = k, select, seed, tokens
        self.by_topic: dict[str, list[Example]] = {}
        self.available: dict[str, int] = {}

    def learn(self, ctx: Any) -> dict:
        """Keep, for every topic with pending cases, the first k+1 candidates that have text."""
        for qid in ctx.pending_qids:
            labels = sorted(ctx.for_topic(qid), key=lambda h: h.docid)
            if self.select == RELEVANT_ONLY:
                labels = [h for h in labels if h.label]
            random.Random(f"{self.seed}|{qid}").shuffle(labels)
            kept: list[Example] = []
            for h in labels:
                if len(kept) > self.k:
                    break
                doc = ctx.doc(h.docid)
                if doc is not None:
                    kept.append(Example(h.docid, h.grade, h.label, h.source, doc))
            self.by_topic[qid] = kept
            self.available[qid] = len(labels)
        return {
            "topics": len(self.by_topic),
            "without_examples": sorted(q for q, v in self.by_topic.items() if not v),
        }

    def pick(self, inp: JudgeInput) -> list[Example]:
        """The topic's first k candidates, never the case's own document."""
        own = inp.case.docid
        return [e for e in self.by_topic.get(inp.topic.qid, []) if e.docid != own][: self.k]

    def block(self, inp: JudgeInput, chosen: Sequence[Example]) -> tuple[str, dict]:
        """The examples as prompt text, and their provenance entry."""
        t = prompts.load("icl")
        items, recorded = [], []
        for n, e in enumerate(chosen, start=1):
            shown, tr = prompts.truncate(prompts.doc_text(e.doc.text, e.doc.title), self.tokens)
            items.append(
                t.render(
                    "example",
                    n=n,
                    decision=describe(inp.task, e.grade, e.label),
                    document=prompts.delimit(prompts.escape(shown), "EXAMPLE"),
                )
            )
            recorded.append(
                {
                    "docid": e.docid,
                    "grade": e.grade,
                    "label": e.label,
                    "source": e.source,
                    "truncated": tr.truncated,
                }
            )
        text = t.render("examples", items="\n\n".join(items)) if items else t.render("no_examples")
        prov = {
            "docids": [e.docid for e in chosen],
            "select": self.select,
            "seed": self.seed,
            "k": self.k,
            "available": self.available.get(inp.topic.qid, 0),
            "items": recorded,
        }
        return text + "\n", prov


@register
class ICL(LearningJudge):
    NAME = "icl"
    PARAMS = {
        "k": Param(2, integer(1, 3), "examples per case"),
        "select": Param(RANDOM, choice(RANDOM, RELEVANT_ONLY), "which labelled documents"),
        "seed": Param(0, integer(0), "order in which a topic's labelled documents are taken"),
        "doc_tokens": Param(prompts.DEFAULT_DOC_TOKENS, integer(16), "document token budget"),
        "example_tokens": Param(DEFAULT_EXAMPLE_TOKENS, integer(16), "token budget of each example"),
    }
    requires = frozenset({CHAT, JSON_SCHEMA})
    def __init__(self, spec: Any):
        self.spec = str(spec)
        self.doc_tokens: int = spec["doc_tokens"]
        self.pool = ExamplePool(spec["k"], spec["select"], spec["seed"], spec["example_tokens"])

    def templates_for(self, task_name: str) -> tuple[str, ...]:
        return ("icl", f"task_{task_name}")

    async def learn(self, ctx: LearningContext, client: Any) -> Learned:
        return Learned(info={"examples": self.pool.learn(ctx)})

    async def __call__(self, inp: JudgeInput, client: Any) -> Verdict:
        chosen = self.pool.pick(inp)
        text, prov = self.pool.block(inp, chosen)
        versions = template_versions(*self.templates_for(inp.task.name))
        return await judge_with(
            inp, client, "icl", self.doc_tokens, versions, {"examples": prov}, examples=text
        )
