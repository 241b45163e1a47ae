"""Two agents with opposing initial stances debate; agreement is accepted.

Agent *relevant* is told it starts out believing the document is relevant,
agent *irrelevant* that it is not; ``first`` says which of them is agent A
(listed first in the history, launched first). Each agent's prompt depends
only on its own stance and on the debate so far — never on whether it is A or
B — so the verdict does not depend on ``first``.

Protocol, with R = ``rounds`` (default 2):
- round 1: both agents, concurrently and independently, argue and answer
  ``{evidence: [verbatim quotes], reasoning, label|grade}``;
- agreement (on the binary label; for the graded task on ``grade >= threshold``)
  at round r -> accepted, status ``consensus``, ``round = r``;
- otherwise, in round r+1 each agent sees both agents' round-r outputs (its
  own first), must answer the opponent's argument, and may change its label;
- disagreement after R rounds -> ``escalate`` with the history for the person
  who settles it, or with ``adjudicator=llm`` a third agent reads the history
  and decides (status ``adjudicated``, one more call).
Calls per case: 2·r when the debate ends at round r (+1 with the adjudicator).
A failed or unparseable agent call (after the client's retries) ends the
debate at once as ``error`` (label None) with the history so far.

Graded task: the final grade of a consensus is the mean of the two agents'
grades rounded half up (2 and 3 -> 3; 0 and 1 -> 1); on the binary side this
always agrees with both agents. The answer task has grade == label.

Evidence quotes are checked against the whole document (see
:mod:`qrelkit.judges.evidence`); a quote that is not found keeps
``"found": false`` in the history, and only found quotes go to the
judgment's ``evidence`` column.

Provenance JSON (the people's web app reads ``history`` from here)::

    {"templates": {"debate_agent": "debate_agent.v1+1a2b3c4d", "task_graded": "..."},
     "truncation": {"budget_tokens": 400, "doc_chars": 2301, "kept_chars": 1598,
                    "approx_tokens": 576, "truncated": true, "rule": "..."},
     "first": "relevant", "rounds": 2, "adjudicator": "human",
     "history": [
       {"round": 1, "agents": [
          {"stance": "relevant", "label": 1, "grade": 2,          # grade null for the answer task
           "evidence": [{"quote": "...", "found": true}],
           "reasoning": "...", "error": null},                   # error: why the call failed, else null
          {"stance": "irrelevant", "label": 0, "grade": 1, ...}]},
       {"round": 2, "agents": [...]}],
     "disagreement": {"grade_gap": 1, "rounds": 2},             # only when the agents never agreed
     "adjudication": "deferred",                               # adjudicator=llm under a --budget
     "ruling": {"grade": 2, "reason": "...", "template": "..."},  # only when the LLM adjudicator ruled
     "budget": {...}}                                          # see qrelkit.judges.budget
The runner adds ``method``, ``model``, ``task`` ({"name", "threshold"}),
``status`` and, for undecided verdicts, ``reason``; ``prefilter`` when one ran.
The answer task writes ``label`` instead of ``grade`` in ``ruling``.

Narrative-guided debate (``narrative=true``): both agents also read the
topic's relevance narrative and judging instructions, induced from people's
labels as for the ``narrative`` method (see :mod:`qrelkit.judges.narrative`;
any stored narrative is used, a missing one is induced once per topic by the
same client). Provenance then has ``narrative`` (source, variant, model,
digest) and ``templates`` has ``narrative_guide``; a topic without a
narrative gets error verdicts saying why. The adjudicator does not see it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Optional

from qrelkit import prompts
from qrelkit.judges import Param, boolean, choice, integer, register
from qrelkit.judges.adjudicator import adjudicate
from qrelkit.judges.base import (
    ADJUDICATED,
    CONSENSUS,
    ESCALATE,
    AdjudicatingJudge,
    JudgeInput,
    Meter,
    Task,
    Verdict,
    error_verdict,
    parsed_decision,
    template_versions,
)
from qrelkit.judges.evidence import QuoteCheck, check_quotes
from qrelkit.judges.labels import Learned, LearningContext
from qrelkit.llm.base import CHAT, JSON_SCHEMA

RELEVANT, IRRELEVANT = "relevant", "irrelevant"
MAX_TOKENS = 360
MAX_QUOTES = 3
# what one agent's output may take in the next round's prompt (keeps a round in 2048 tokens)
HISTORY_QUOTE_CHARS = 160
HISTORY_REASONING_CHARS = 400
# Bounded so that a reply always fits MAX_TOKENS (grammar-constrained backends
# enforce the bounds; the client's validator checks maxItems, not maxLength).
EVIDENCE = (
    "evidence",
    {"type": "array", "items": {"type": "string", "maxLength": 150}, "maxItems": MAX_QUOTES},
)
REASONING = ("reasoning", {"type": "string", "maxLength": 400})


@dataclass(frozen=True)
class Turn:
    """One agent's answer in one round."""

    stance: str
    value: Optional[int]  # grade (graded) or label (answer); None when the call failed
    label: Optional[int]
    evidence: tuple[QuoteCheck, ...]
    reasoning: str
    error: Optional[str] = None

    def as_dict(self, task: Task) -> dict:
        return {
            "stance": self.stance,
            "label": self.label,
            "grade": self.value if task.graded else None,
            "evidence": [q.as_dict() for q in self.evidence],
            "reasoning": self.reasoning,
            "error": self.error,
        }


def round_half_up_mean(a: int, b: int) -> int:
    return (a + b + 1) // 2


@register
class Debate(AdjudicatingJudge):
    NAME = "debate"
    PARAMS = {
        "rounds": Param(2, integer(1, 10), "rounds before escalating"),
        "first": Param(RELEVANT, choice(RELEVANT, IRRELEVANT), "stance of agent A"),
        "adjudicator": Param("human", choice("human", "llm"), "who settles a persistent disagreement"),
        "doc_tokens": Param(prompts.DEFAULT_DOC_TOKENS, integer(16), "document token budget"),
        "narrative": Param(False, boolean, "both agents read the topic's induced narrative", omit_default=True),
    }
    requires = frozenset({CHAT, JSON_SCHEMA})

    def __init__(self, spec: Any, defer_adjudication: bool = False):
        super().__init__(defer_adjudication)
        self.spec = str(spec)
        self.rounds: int = spec["rounds"]
        self.first: str = spec["first"]
        self.adjudicator: str = spec["adjudicator"]
        self.doc_tokens: int = spec["doc_tokens"]
        self.stances = (RELEVANT, IRRELEVANT) if self.first == RELEVANT else (IRRELEVANT, RELEVANT)
        self.narrative: bool = spec["narrative"]
        self.learns = self.narrative
        self.book: Any = None
        if self.narrative:
            from qrelkit.judges.narrative import NarrativeBook

            self.book = NarrativeBook(any_variant=True)

    async def learn(self, ctx: LearningContext, client: Any) -> Learned:
        """Induce missing narratives (narrative=true); see the module docstring."""
        return await self.book.ensure(ctx, client)

    def templates_for(self, task_name: str) -> tuple[str, ...]:
        names: tuple[str, ...] = ("debate_agent", f"task_{task_name}")
        if self.narrative:
            names += ("narrative_guide",)
        return names + ("adjudicator",) if self.adjudicator == "llm" else names

    async def _turn(
        self,
        stance: str,
        rnd: int,
        prev: Optional[tuple[Turn, Turn]],
        inp: JudgeInput,
        block: str,
        client: Any,
        version: str,
        guide: str = "",
    ) -> tuple[Turn, Any]:
        t = prompts.load("debate_agent")
        task_t = inp.task.template()
        history = ""
        if prev is not None:
            mine = next(x for x in prev if x.stance == stance)
            theirs = next(x for x in prev if x.stance != stance)
            entries = "\n\n".join(
                t.render(
                    "history_entry",
                    who=t.render(who),
                    decision=inp.task.describe(x.value),
                    quotes=_quotes(x.evidence),
                    reasoning=prompts.clip(x.reasoning, HISTORY_REASONING_CHARS),
                )
                for who, x in (("you", mine), ("opponent", theirs))
            )
            history = "\n" + prompts.delimit(
                prompts.escape(t.render("history", round=rnd - 1, entries=entries)), "DEBATE"
            )
        instructions = t.render("round1") if rnd == 1 else t.render("later", round=rnd)
        messages = [
            prompts.Message("system", t.render("system", stance=t.render(f"stance_{stance}"))),
            prompts.Message(
                "user",
                t.render(
                    "user",
                    criteria=task_t.render("criteria"),
                    query_block=inp.query_block() + guide,
                    document=block,
                    history=history,
                    instructions=instructions,
                    format=task_t.render("agent_format"),
                ),
            ),
        ]
        c = await client.complete(
            messages,
            schema=inp.task.decision_schema(EVIDENCE, REASONING),
            max_tokens=MAX_TOKENS,
            version=version,
        )
        value, problem = parsed_decision(c, inp.task)
        if value is None:
            return Turn(stance, None, None, (), "", problem or "no decision"), c
        quotes = [q for q in c.parsed.get("evidence", []) if isinstance(q, str)][:MAX_QUOTES]
        return Turn(
            stance,
            value,
            inp.task.binary(value),
            check_quotes(quotes, inp.text),
            str(c.parsed.get("reasoning", "")),
        ), c

    async def __call__(self, inp: JudgeInput, client: Any) -> Verdict:
        meter = Meter()
        task = inp.task
        versions = template_versions(*self.templates_for(task.name))
        agent_version = f"{versions['debate_agent']}|{versions[f'task_{task.name}']}"
        block, tr = prompts.document_block(inp.text, self.doc_tokens)
        history: list[dict] = []
        prov: dict = {
            "templates": versions,
            "truncation": tr.as_dict(),
            "first": self.first,
            "rounds": self.rounds,
            "adjudicator": self.adjudicator,
            "history": history,
        }
        guide_text = ""
        if self.narrative:
            guide = self.book.get(inp.topic.qid)
            if guide is None:
                return error_verdict(self.book.problem(inp.topic.qid), meter, prov)
            prov["narrative"] = guide.as_prov()
            guide_text = "\n\n" + guide.render()
            agent_version += f"|{versions['narrative_guide']}"
        prev: Optional[tuple[Turn, Turn]] = None
        for rnd in range(1, self.rounds + 1):
            results = await asyncio.gather(
                *(self._turn(s, rnd, prev, inp, block, client, agent_version, guide_text) for s in self.stances)
            )
            for _, c in results:
                meter.add(c)
            a, b = (turn for turn, _ in results)
            history.append({"round": rnd, "agents": [a.as_dict(task), b.as_dict(task)]})
            failed = [x for x in _by_stance(a, b) if x.error]
            if failed:
                why = "; ".join(f"{x.stance} agent: {x.error}" for x in failed)
                return error_verdict(f"round {rnd}: {why}", meter, prov, round=rnd)
            if a.label == b.label:
                grade = round_half_up_mean(a.value, b.value) if task.graded else a.label
                return Verdict(
                    status=CONSENSUS,
                    label=a.label,
                    grade=grade,
                    round=rnd,
                    rationale=_rationale(a, b),
                    evidence=_found(a, b),
                    provenance=prov,
                    usage=meter.usage,
                )
            prev = (a, b)
        assert prev is not None
        a, b = _by_stance(*prev)
        gap = abs(a.value - b.value) if task.graded else 1
        prov["disagreement"] = {"grade_gap": gap, "rounds": self.rounds}
        if self.adjudicator == "llm" and not self.defer_adjudication:
            return await self.settle(inp, prov, client, meter, _found(a, b))
        if self.adjudicator == "llm":
            prov["adjudication"] = "deferred"  # the runner's --budget decides: people or the adjudicator
        reason = (
            f"the agents still disagree after {self.rounds} round{'s' if self.rounds > 1 else ''}: "
            f"{a.stance} agent says {task.describe(a.value)}, {b.stance} agent says {task.describe(b.value)}"
        )
        return Verdict(
            status=ESCALATE,
            label=None,
            grade=None,
            round=self.rounds,
            reason=reason,
            rationale=_rationale(a, b),
            evidence=_found(a, b),
            provenance=prov,
            usage=meter.usage,
        )

    async def settle(
        self,
        inp: JudgeInput,
        prov: dict,
        client: Any,
        meter: Optional[Meter] = None,
        evidence: tuple[str, ...] = (),
    ) -> Verdict:
        """Let the LLM adjudicator decide a disagreement from its stored history."""
        meter = meter or Meter()
        prov = dict(prov)
        prov.pop("adjudication", None)
        task = inp.task
        ruling = await adjudicate(inp, prov.get("history") or [], client, meter, self.doc_tokens)
        prov["ruling"] = ruling.as_dict(task.field)
        rounds = len(prov.get("history") or []) or self.rounds
        if ruling.value is None:
            return error_verdict(f"adjudicator: {ruling.error}", meter, prov, round=rounds)
        label = task.binary(ruling.value)
        return Verdict(
            status=ADJUDICATED,
            label=label,
            grade=ruling.value if task.graded else label,
            round=rounds,
            rationale=ruling.reason,
            evidence=evidence,
            provenance=prov,
            usage=meter.usage,
        )


def _quotes(evidence: tuple[QuoteCheck, ...]) -> str:
    return (
        "; ".join(
            f'"{prompts.clip(q.quote, HISTORY_QUOTE_CHARS)}"'
            + ("" if q.found else " (not found in the document)")
            for q in evidence
        )
        or "none"
    )


def _by_stance(a: Turn, b: Turn) -> tuple[Turn, Turn]:
    """The relevant-stance agent first: texts built from both never depend on ``first``."""
    return (a, b) if a.stance == RELEVANT else (b, a)


def _rationale(a: Turn, b: Turn) -> str:
    return " | ".join(f"[{x.stance} agent] {x.reasoning}" for x in _by_stance(a, b) if x.reasoning)


def _found(a: Turn, b: Turn) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for x in _by_stance(a, b):
        for q in x.evidence:
            if q.found:
                seen.setdefault(q.quote, None)
    return tuple(seen)
