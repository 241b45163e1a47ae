"""Few-shot judging with examples people judged for the same topic.

The people's labels of a hybrid pool (or the escalations they settled) show
what *this* topic's assessors count as relevant better than any generic scale
description, so ``icl(k=2, select=random, seed=0)`` puts ``k`` (1–3) of the
topic's human-judged documents, with their labels, in front of the document
to judge, and otherwise asks what zero-shot asks.

Candidates are the topic's labelled documents (original qrels and people's
labels, as the runner's learning context gives them): all of them —
``random`` (the paper's ICL) —, only the relevant ones — ``relevant`` (spelled
``relevant-only`` in ids; the paper's ICL Relevant) — or only the non-relevant
ones — ``nonrelevant``. Never the case's own document.

``per=topic`` (the default): every case of a topic sees the same examples (a
server's prefix cache can reuse them), the first ``k`` of a seeded shuffle.
``per=document`` (the RCL paper's protocol, Algorithm 1): each case draws its
own ``k`` with a generator seeded by ``(seed, qid, docid)``, so a re-run draws
the same examples and another seed draws others.

Fewer are shown when the topic has fewer; with none the prompt says so and the
judgment is, in effect, zero-shot (recorded, not hidden). Examples are
truncated like documents, to ``example_tokens`` each, and delimited as data.
The default stays 150 tokens because stored method ids must keep their
meaning; ``example_tokens=doc`` gives each example the document budget
(``doc_tokens``), as the RCL paper's prompts do — the benchmark's ICL rows use it.

Provenance keys: ``templates``, ``truncation``, ``reply`` (as zero-shot) and
``examples`` = ``{"docids": [...], "select", "seed", "k", "available",
"items": [{"docid", "grade", "label", "source", "truncated"}]}``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from qrelkit import prompts
from qrelkit.judges import Param, choice, integer, register, sampling
from qrelkit.judges.base import (
    JudgeInput,
    LearningJudge,
    Task,
    Verdict,
    template_versions,
)
from qrelkit.judges.learning import Learned, LearningContext
from qrelkit.judges.output import JSON, OUTPUTS
from qrelkit.judges.zeroshot import StructuredCall, judge_with
from qrelkit.llm.base import CHAT, JSON_SCHEMA
from qrelkit.types import Doc

if TYPE_CHECKING:
    from qrelkit.llm.client import Client

RANDOM, RELEVANT_ONLY, NONRELEVANT = "random", "relevant-only", "nonrelevant"
TOPIC, DOCUMENT = "topic", "document"
DEFAULT_EXAMPLE_TOKENS = 150
DOC = "doc"  # example_tokens=doc: as many as the document budget


def example_budget(text: str) -> Any:
    """A token count (>= 16), or ``doc``: the document budget."""
    return DOC if text == DOC else integer(16)(text)


def selection(text: str) -> str:
    """``random``, ``relevant`` (= ``relevant-only``, one id for both) or ``nonrelevant``."""
    text = RELEVANT_ONLY if text == "relevant" else text
    return choice(RANDOM, RELEVANT_ONLY, NONRELEVANT)(text)


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

    def __init__(self, k: int, select: str, seed: int, tokens: int, per: str = TOPIC):
        self.k, self.select, self.seed, self.tokens, self.per = k, select, seed, tokens, per
        self.by_topic: dict[str, list[Example]] = {}
        self.available: dict[str, int] = {}

    def learn(self, ctx: Any) -> dict:
        """Keep, for every topic with pending cases, the candidates that have text: per topic
        the first k+1 of the seeded shuffle, per document all of them (in docid order)."""
        for qid in ctx.pending_qids:
            labels = sorted(ctx.for_topic(qid), key=lambda h: h.docid)
            if self.select == RELEVANT_ONLY:
                labels = [h for h in labels if h.label]
            elif self.select == NONRELEVANT:
                labels = [h for h in labels if not h.label]
            if self.per == TOPIC:
                random.Random(f"{self.seed}|{qid}").shuffle(labels)
            kept: list[Example] = []
            for h in labels:
                if self.per == TOPIC and len(kept) > self.k:
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
        """k candidates, never the case's own document: the topic's first k, or per document a
        seeded sample drawn for this case."""
        own = inp.case.docid
        others = [e for e in self.by_topic.get(inp.topic.qid, []) if e.docid != own]
        if self.per == TOPIC:
            return others[: self.k]
        rng = random.Random(f"{self.seed}|{inp.topic.qid}|{own}")
        return rng.sample(others, min(self.k, len(others)))

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
            **({"per": self.per} if self.per != TOPIC else {}),
            "available": self.available.get(inp.topic.qid, 0),
            "items": recorded,
        }
        return text + "\n", prov


@register
class ICL(LearningJudge):
    NAME = "icl"
    PARAMS = {
        "k": Param(2, integer(1, 3), "examples per case"),
        "select": Param(RANDOM, selection, "which labelled documents: random, relevant, nonrelevant"),
        "per": Param(TOPIC, choice(TOPIC, DOCUMENT), "the same examples for a whole topic, or drawn per document",
                     omit_default=True),
        "seed": Param(0, integer(0), "seed of the order (per topic) or the draw (per document)"),
        "doc_tokens": Param(prompts.DEFAULT_DOC_TOKENS, integer(16), "document token budget"),
        "example_tokens": Param(DEFAULT_EXAMPLE_TOKENS, example_budget,
                                "token budget of each example; doc: the document budget"),
        "output": Param(JSON, choice(*OUTPUTS), 'json: reason and decision; label: "Relevant"/"Not Relevant"',
                        omit_default=True),
        **sampling.PARAMS,
    }
    requires = frozenset({CHAT, JSON_SCHEMA})
    def __init__(self, spec: Any):
        self.spec = str(spec)
        self.doc_tokens: int = spec["doc_tokens"]
        tokens = self.doc_tokens if spec["example_tokens"] == DOC else spec["example_tokens"]
        self.pool = ExamplePool(spec["k"], spec["select"], spec["seed"], tokens, spec["per"])
        self.output: str = spec["output"]
        self.sampling = sampling.Sampling.of(spec)

    def templates_for(self, task_name: str) -> tuple[str, ...]:
        return ("icl", f"task_{task_name}")

    async def learn(self, ctx: LearningContext, client: Client) -> Learned:
        return Learned(info={"examples": self.pool.learn(ctx)})

    async def __call__(self, inp: JudgeInput, client: Client) -> Verdict:
        chosen = self.pool.pick(inp)
        text, prov = self.pool.block(inp, chosen)
        versions = template_versions(*self.templates_for(inp.task.name))
        return await self.sampling.run(
            lambda temperature, sample: judge_with(
                inp, client, StructuredCall("icl", self.doc_tokens, versions, {"examples": prov}, output=self.output,
                                            sections={"examples": text}),
                temperature, sample),
            inp.task,
        )
