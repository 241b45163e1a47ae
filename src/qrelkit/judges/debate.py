"""Agents with opposing initial stances debate; agreement is accepted (DREAM).

Beyond the two-agent protocol below (the DREAM paper's, with prompt v2 by default; see
:mod:`qrelkit.judges.debate_turn` for the prompt versions and context limits): ``agents=N`` or
``stances=[...]`` run more agents (agreement = all agree; calls = agents x rounds when nobody
agrees), ``models=[...]`` gives each agent its own model client, ``temperature=`` one value or
one per agent, and ``stop=never`` keeps debating after consensus, storing every round's labels
as ``labels_by_round`` (the final round decides). A v2 verdict's provenance also has
``prompt``, ``limits``, ``agents`` (stance, temperature, model), ``stop`` and
``adjudicator_sees``; with more than two agents each history entry carries its ``agent`` index.

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
     "budget": {...}}                                          # see qrelkit.judging.budget
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
from typing import TYPE_CHECKING, Any, Optional

from qrelkit import prompts
from qrelkit.errors import UsageError
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
    template_versions,
)
from qrelkit.judges.debate_turn import IRRELEVANT, RELEVANT, Agent, Debated, Turn, limits, take_turn
from qrelkit.judges.learning import Learned, LearningContext
from qrelkit.judges.narrative import SAME, model_ref
from qrelkit.llm.base import CHAT, JSON_SCHEMA
from qrelkit.specs import listing, number

if TYPE_CHECKING:
    from qrelkit.llm.client import Client

__all__ = ["Debate", "Turn", "round_half_up_mean", "RELEVANT", "IRRELEVANT"]

# Context limits large enough for a whole MS MARCO passage or BEIR chunk (1024 tokens ~ 4096
# characters covers 99 % of LLMJudge-dev passages); v1's were sized for a 2048-token context.
DOC_TOKENS = 1024


def round_half_up_mean(*grades: int) -> int:
    """Mean rounded half up: (2, 3) -> 3, (0, 1) -> 1; for two agents (a + b + 1) // 2."""
    n = len(grades)
    return (2 * sum(grades) + n) // (2 * n)


def _stance(text: str) -> str:
    return choice(RELEVANT, IRRELEVANT)(text)


@register
class Debate(AdjudicatingJudge):
    NAME = "debate"
    PARAMS = {
        "rounds": Param(2, integer(1, 10), "rounds before escalating"),
        "first": Param(RELEVANT, choice(RELEVANT, IRRELEVANT), "stance of agent A"),
        "adjudicator": Param("human", choice("human", "llm"), "who settles a persistent disagreement"),
        "doc_tokens": Param(DOC_TOKENS, integer(16), "document token budget", legacy=prompts.DEFAULT_DOC_TOKENS),
        "narrative": Param(False, boolean, "both agents read the topic's induced narrative", omit_default=True),
        "prompt": Param("v2", choice("v1", "v2"), "prompt version: v2 (the paper's agent rules) or v1 (the looser rules before, kept so old workspaces resume)",
                        legacy="v1", absent="v1"),
        "quotes": Param(5, integer(1, 20), "quotes an agent may give (v2)", omit_default=True),
        "reasoning_chars": Param(1200, integer(100), "characters of an agent's reasoning (v2)", omit_default=True),
        "adjudicator_sees": Param("final", choice("final", "all"), "rounds the LLM adjudicator reads (v2)",
                                  omit_default=True),
        "agents": Param(2, integer(2, 8), "debaters, split between the two stances", omit_default=True),
        "stances": Param((), listing(_stance, 0, 8), "initial stance per agent, e.g. [relevant,irrelevant]",
                         omit_default=True),
        "temperature": Param((0.0,), listing(number(0.0, 2.0), 1, 8), "one temperature or one per agent",
                             omit_default=True),
        "models": Param((), listing(model_ref, 0, 8), "one model spec per agent, 'same' for the job's model",
                        omit_default=True),
        "stop": Param("agree", choice("agree", "never"), "never: debate all rounds after consensus too",
                      omit_default=True),
    }
    # the parameters every id stored before prompt v2 wrote out (narrative only when true): such an
    # id reads back as the v1 debate it was judged with (see qrelkit.judges.spec._as_stored)
    STORED_FORM = frozenset({"adjudicator", "doc_tokens", "first", "rounds"})
    STORED_OPTIONAL = frozenset({"narrative"})
    requires = frozenset({CHAT, JSON_SCHEMA})

    def __init__(self, spec: Any, defer_adjudication: bool = False):
        super().__init__(defer_adjudication)
        self.spec = str(spec)
        self.rounds: int = spec["rounds"]
        self.first: str = spec["first"]
        self.adjudicator: str = spec["adjudicator"]
        self.doc_tokens: int = spec["doc_tokens"]
        self.prompt: str = spec["prompt"]
        self.adjudicator_sees: str = spec["adjudicator_sees"]
        self.stop: str = spec["stop"]
        self.limits = limits(self.prompt, self.doc_tokens, spec["quotes"], spec["reasoning_chars"])
        self.agents = _agents(spec)
        self.stances = tuple(a.stance for a in self.agents)
        if self.prompt == "v1":
            _check_v1(spec)
        self.narrative: bool = spec["narrative"]
        self.learns = self.narrative
        self.book: Any = None
        self.clients: dict[str, Any] = {}  # per-agent model clients (debate(models=[...])), see bind_clients
        if self.narrative:
            from qrelkit.judges.narrative import NarrativeBook

            self.book = NarrativeBook(any_variant=True)

    async def learn(self, ctx: LearningContext, client: Client) -> Learned:
        """Induce missing narratives (narrative=true); see the module docstring."""
        return await self.book.ensure(ctx, client)

    def templates_for(self, task_name: str) -> tuple[str, ...]:
        names: tuple[str, ...] = (f"debate_agent.{self.prompt}", f"task_{task_name}")
        if self.narrative:
            names += ("narrative_guide",)
        return names + (f"adjudicator.{self.prompt}",) if self.adjudicator == "llm" else names

    def _provenance(self, versions: dict, tr: Any, history: list) -> dict:
        prov: dict = {
            "templates": versions,
            "truncation": tr.as_dict(),
            "first": self.first,
            "rounds": self.rounds,
            "adjudicator": self.adjudicator,
            "history": history,
        }
        if self.prompt != "v1":
            prov["prompt"] = self.prompt
            prov["limits"] = self.limits.as_dict()
            prov["agents"] = [{"stance": a.stance, "temperature": a.temperature,
                               "model": str(a.model) if a.model is not None else SAME} for a in self.agents]
            prov["stop"] = self.stop
            prov["adjudicator_sees"] = self.adjudicator_sees
        return prov

    def _version(self, versions: dict, task: Task, agent: Agent) -> str:
        v = f"{versions['debate_agent']}|{versions[f'task_{task.name}']}"
        if self.narrative:
            v += f"|{versions['narrative_guide']}"
        # agents sharing a stance would share a prompt, hence a cache entry: number them
        return v + (f"|agent={agent.index}" if len(self.agents) > 2 else "")

    def open_clients(self, client: Client) -> None:
        """Make each agent's own client (``models=[...]``) before any call, caching in the job's
        store: every model has its own cache keys and its own rows in the cost accounting."""
        from qrelkit.llm.spec import make_client

        for a in self.agents:
            spec = a.model.spec if a.model is not None else SAME
            if spec != SAME and spec not in self.clients:
                own = make_client(spec, store=getattr(client, "store", None))
                own.require(*sorted(self.requires))
                self.clients[spec] = own

    def extra_usage(self) -> Any:
        from qrelkit.types import Usage

        total = Usage()
        for own in self.clients.values():
            total = total + own.usage
        return total

    async def aclose(self) -> None:
        """Close the agents' own clients (their connections, their backends); the job's client is
        the caller's to close."""
        for own in self.clients.values():
            await own.aclose()

    def _client(self, agent: Agent, client: Client) -> Any:
        spec = agent.model.spec if agent.model is not None else SAME
        return client if spec == SAME else self.clients[spec]

    async def __call__(self, inp: JudgeInput, client: Client) -> Verdict:
        meter = Meter()
        task = inp.task
        versions = template_versions(*self.templates_for(task.name))
        block, tr = prompts.document_block(inp.text, self.doc_tokens)
        history: list[dict] = []
        prov = self._provenance(versions, tr, history)
        guide_text = ""
        if self.narrative:
            guide = self.book.get(inp.topic.qid)
            if guide is None:
                return error_verdict(self.book.problem(inp.topic.qid), meter, prov)
            prov["narrative"] = guide.as_prov()
            guide_text = "\n\n" + guide.render()
        n, numbered = len(self.agents), len(self.agents) > 2
        case = Debated(inp, block, self.limits, guide_text, n)
        prev: Optional[tuple[Turn, ...]] = None
        agreed: Optional[tuple[int, tuple[Turn, ...]]] = None
        for rnd in range(1, self.rounds + 1):
            results = await asyncio.gather(*(
                take_turn(a, rnd, prev, case, self._client(a, client), self._version(versions, task, a))
                for a in self.agents
            ))
            for _, c in results:
                meter.add(c)
            turns = tuple(turn for turn, _ in results)
            history.append({"round": rnd, "agents": [x.as_dict(task, numbered) for x in turns]})
            failed = [x for x in _by_stance(turns) if x.error]
            if failed:
                why = "; ".join(f"{x.stance} agent: {x.error}" for x in failed)
                return error_verdict(f"round {rnd}: {why}", meter, prov, round=rnd)
            if len({x.label for x in turns}) == 1:
                agreed = (rnd, turns)
                if self.stop == "agree":
                    break
            else:
                agreed = None
            prev = turns
        if self.stop == "never":
            prov["labels_by_round"] = [[a["label"] for a in h["agents"]] for h in history]
        if agreed is not None:
            rnd, turns = agreed
            return self._consensus(turns, rnd, task, prov, meter)
        return await self._disagreement(prev, inp, prov, client, meter)

    def _consensus(self, turns: tuple[Turn, ...], rnd: int, task: Task, prov: dict, meter: Meter) -> Verdict:
        label = turns[0].label
        grade = round_half_up_mean(*(x.value for x in turns)) if task.graded else label
        return Verdict(status=CONSENSUS, label=label, grade=grade, round=rnd, rationale=_rationale(turns),
                       evidence=_found(turns), provenance=prov, usage=meter.usage)

    async def _disagreement(self, last: Any, inp: JudgeInput, prov: dict, client: Client, meter: Meter) -> Verdict:
        task = inp.task
        turns = _by_stance(last)
        values = [x.value for x in turns]
        gap = max(values) - min(values) if task.graded else 1
        prov["disagreement"] = {"grade_gap": gap, "rounds": self.rounds}
        if self.adjudicator == "llm" and not self.defer_adjudication:
            return await self.settle(inp, prov, client, meter, _found(turns))
        if self.adjudicator == "llm":
            prov["adjudication"] = "deferred"  # the runner's --budget decides: people or the adjudicator
        says = ", ".join(f"{x.stance} agent says {task.describe(x.value)}" for x in turns)
        reason = f"the agents still disagree after {self.rounds} round{'s' if self.rounds > 1 else ''}: {says}"
        return Verdict(status=ESCALATE, label=None, grade=None, round=self.rounds, reason=reason,
                       rationale=_rationale(turns), evidence=_found(turns), provenance=prov, usage=meter.usage)

    async def settle(
        self,
        inp: JudgeInput,
        prov: dict,
        client: Client,
        meter: Optional[Meter] = None,
        evidence: tuple[str, ...] = (),
    ) -> Verdict:
        """Let the LLM adjudicator decide a disagreement from its stored history."""
        meter = meter or Meter()
        prov = dict(prov)
        prov.pop("adjudication", None)
        task = inp.task
        ruling = await adjudicate(inp, prov.get("history") or [], client, meter, self.limits, self.adjudicator_sees)
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


def _agents(spec: Any) -> tuple[Agent, ...]:
    """The debaters: ``stances`` as given, else ``agents`` alternating from ``first``."""
    other = IRRELEVANT if spec["first"] == RELEVANT else RELEVANT
    stances = spec["stances"] or tuple(spec["first"] if i % 2 == 0 else other for i in range(spec["agents"]))
    n = len(stances)
    if spec["stances"] and spec["agents"] not in (2, n):
        raise UsageError(f"method spec {spec}: agents={spec['agents']} but {n} stances")
    if n < 2:
        raise UsageError(f"method spec {spec}: a debate needs at least two agents")
    temps, models = spec["temperature"], spec["models"]
    for what, values in (("temperature", temps), ("models", models)):
        if len(values) not in (0, 1, n):
            raise UsageError(f"method spec {spec}: {what} needs one value or one per agent ({n}), got {len(values)}")
    return tuple(
        Agent(i, s, temps[i] if len(temps) == n else temps[0],
              (models[i] if len(models) == n else models[0]) if models else None)
        for i, s in enumerate(stances)
    )


def _check_v1(spec: Any) -> None:
    """v1 is the old protocol as it was; parameters it never had would silently do nothing."""
    for key in ("quotes", "reasoning_chars", "adjudicator_sees", "agents", "stances", "temperature", "models", "stop"):
        if key in spec.given:
            raise UsageError(f"method spec {spec}: {key} needs prompt=v2 (v1 keeps its own limits)")


def _by_stance(turns: Any) -> tuple[Turn, ...]:
    """Relevant-stance agents first: texts built from all never depend on ``first``."""
    return tuple(sorted(turns, key=lambda x: (x.stance != RELEVANT, x.agent)))


def _rationale(turns: Any) -> str:
    return " | ".join(f"[{x.stance} agent] {x.reasoning}" for x in _by_stance(turns) if x.reasoning)


def _found(turns: Any) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for x in _by_stance(turns):
        for q in x.evidence:
            if q.found:
                seen.setdefault(q.quote, None)
    return tuple(seen)
