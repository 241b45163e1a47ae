"""One-shot judging: compare the case with documents people already judged relevant.

MacAvaney & Soldaini ("One-Shot Labeling for Automatic Relevance Estimation", SIGIR 2023) fill
holes in a test collection from a single known relevant document per topic; their DuoPrompt asks
a model whether an unjudged passage is as relevant as the known one. ``oneshot(k=1, seed=0)``
does that with a served model: the prompt shows ``k`` (1-3) of the topic's documents that people
judged relevant (original qrels or people's labels), delimited as data, next to the case, with
the task's scale, and asks whether the case answers the query as well as they do. The reply is
the task's usual decision (a grade, or relevant/not), parsed as zero-shot parses it.

Which documents: a seeded shuffle of the topic's relevant labelled documents that have text,
the first ``k`` of it for every case of the topic (``per=topic``, so a server's prefix cache
can reuse them) or ``k`` drawn per case with a generator seeded by ``(seed, qid, docid)``
(``per=document``); never the case's own document. Fewer are shown when the topic has fewer.
A topic with no known relevant document cannot be judged this way: its cases are escalated
(reason ``no known relevant document``), never guessed and never judged zero-shot in disguise.

Provenance keys: ``templates``, ``truncation``, ``reply`` (as zero-shot) and ``oneshot`` =
``{"docids", "seed", "k", "per", "available", "items": [{"docid", "grade", "source",
"truncated"}]}``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from qrelkit import prompts
from qrelkit.judges import Param, choice, integer, register
from qrelkit.judges.base import ESCALATE, JudgeInput, LearningJudge, Verdict, template_versions
from qrelkit.judges.icl import DOCUMENT, RELEVANT_ONLY, TOPIC, Example, ExamplePool, describe
from qrelkit.judges.learning import Learned, LearningContext
from qrelkit.judges.zeroshot import StructuredCall, judge_with
from qrelkit.llm.base import CHAT, JSON_SCHEMA

if TYPE_CHECKING:
    from qrelkit.llm.client import Client

TEMPLATE = "oneshot"
NO_REFERENCE = "no known relevant document for this topic (oneshot compares with one)"


@register
class OneShot(LearningJudge):
    NAME = "oneshot"
    PARAMS = {
        "k": Param(1, integer(1, 3), "known relevant documents shown next to the case"),
        "seed": Param(0, integer(0), "seed of the choice of known relevant documents"),
        "per": Param(TOPIC, choice(TOPIC, DOCUMENT), "the same references for a whole topic, or drawn per case"),
        "doc_tokens": Param(prompts.DEFAULT_DOC_TOKENS, integer(16), "token budget of the case and of each reference"),
    }
    requires = frozenset({CHAT, JSON_SCHEMA})

    def __init__(self, spec: Any):
        self.spec = str(spec)
        self.doc_tokens: int = spec["doc_tokens"]
        self.pool = ExamplePool(spec["k"], RELEVANT_ONLY, spec["seed"], self.doc_tokens, spec["per"])

    def templates_for(self, task_name: str) -> tuple[str, ...]:
        return (TEMPLATE, f"task_{task_name}")

    async def learn(self, ctx: LearningContext, client: Client) -> Learned:
        info = self.pool.learn(ctx)
        return Learned(info={"references": {"topics": info["topics"], "without_reference": info["without_examples"]}})

    async def __call__(self, inp: JudgeInput, client: Client) -> Verdict:
        chosen = self.pool.pick(inp)
        text, prov = self.block(inp, chosen)
        if not chosen:
            return Verdict(status=ESCALATE, label=None, grade=None, reason=NO_REFERENCE,
                           provenance={"oneshot": prov})
        versions = template_versions(*self.templates_for(inp.task.name))
        return await judge_with(inp, client, StructuredCall(TEMPLATE, self.doc_tokens, versions, {"oneshot": prov},
                                                            sections={"references": text}))

    def block(self, inp: JudgeInput, chosen: Sequence[Example]) -> tuple[str, dict]:
        """The references as prompt text, and their provenance entry."""
        t = prompts.load(TEMPLATE)
        items, recorded = [], []
        for n, e in enumerate(chosen, start=1):
            shown, tr = prompts.truncate(prompts.doc_text(e.doc.text, e.doc.title), self.pool.tokens)
            items.append(t.render("reference", n=n, decision=describe(inp.task, e.grade, e.label),
                                  document=prompts.delimit(prompts.escape(shown), "REFERENCE")))
            recorded.append({"docid": e.docid, "grade": e.grade, "source": e.source, "truncated": tr.truncated})
        prov = {"docids": [e.docid for e in chosen], "seed": self.pool.seed, "k": self.pool.k, "per": self.pool.per,
                "available": self.pool.available.get(inp.topic.qid, 0), "items": recorded}
        return t.render("references", items="\n\n".join(items)) + "\n", prov
