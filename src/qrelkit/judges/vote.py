"""Judges that vote: several judges decide each case, a rule turns their verdicts into one (UMBRELA's ensemble).

``vote(judges=[zero-shot,zero-shot(narrative=topic)], agree=majority)`` runs every member on the
case concurrently and counts their binary labels (:mod:`qrelkit.judges.tally`): ``majority`` needs
more than half of the members, ``all`` every one. A decided vote has status ``consensus`` and the
agreeing members' most frequent grade (the lowest on a tie, as UMBRELA's ``EnsembleJudge``). Below
the rule the case escalates as a debate's disagreement does (status ``escalate``, ``disagreement``
in provenance, so ``--budget`` ranks it); members' agreement is an uncertainty signal in the spirit
of DREAM's. Calls per case: the sum of the members' calls (two zero-shot members: 2).

Members are any judges that decide one case at a time (a debate, likelihood, zero-shot with
``samples=K``, another vote); not a prefilter chain or a batch judge (confidence). The list is one
spec value: bare, ``judges=[a,b(x=1)]``, or quoted when a member holds a list of its own,
``judges="[zero-shot,debate(temperature=[0,0.7])]"``. Each member is written canonically in the
vote's id, so equal configurations share one id. A member listed twice would hit the same cache
entry, hence refused (sample one judge with ``zero-shot(samples=K,temperature=T)`` instead).

Provenance: ``templates`` (all members'), ``vote`` = ``{"rule", "needed", "counts"
(binary label -> members), "members": [{"judge", "status", "label", "grade", "calls", "reason",
"rationale", "provenance"}]}``, and ``disagreement`` = ``{"grade_gap", "rounds": 1}`` when the
members did not agree. The runner adds ``method``, ``model``, ``task``, ``status``.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Sequence

from qrelkit.errors import UsageError
from qrelkit.judges import Param, choice, register
from qrelkit.judges.base import CONSENSUS, Judge, JudgeInput, Verdict, template_versions
from qrelkit.judges.learning import Learned, LearningContext
from qrelkit.judges.tally import MAJORITY, RULES, count, total_usage
from qrelkit.specs import split_list
from qrelkit.types import Usage

if TYPE_CHECKING:
    from qrelkit.llm.client import Client


def members_param(text: str) -> str:
    """``[a,b(x=1)]`` -> the members' canonical specs, as the id writes them (quoted when nested)."""
    from qrelkit.judges.spec import parse_spec

    inner = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    items = split_list(inner)
    out = []
    for item in items:
        try:
            spec = parse_spec(item.strip("'\""))
        except UsageError as e:
            raise ValueError(f"member {item!r}: {e}") from None
        out.append(str(spec))
    if len(out) != len(set(out)):
        raise ValueError("a member is listed twice (same prompt, same cache entry); use samples=K to sample one judge")
    listed = "[" + ",".join(out) + "]"
    return f'"{listed}"' if "]" in listed[1:-1] or '"' in listed else listed


@register
class Vote(Judge):
    NAME = "vote"
    PARAMS = {
        "judges": Param("[]", members_param, "member judges, e.g. [zero-shot,zero-shot(narrative=topic)]"),
        "agree": Param(MAJORITY, choice(*RULES), "majority: more than half of the members; all: every member"),
    }

    def __init__(self, spec: Any):
        from qrelkit.judges import build

        self.spec = str(spec)
        self.rule: str = spec["agree"]
        names = split_list(spec["judges"].strip('"')[1:-1])
        if len(names) < 2:
            raise UsageError(f"method spec {spec}: a vote needs at least two judges, e.g. "
                             "vote(judges=[zero-shot,zero-shot(narrative=topic)])")
        self.names = tuple(names)
        self.members: tuple[Judge, ...] = tuple(build(n) for n in names)
        for n, m in zip(names, self.members):
            if m.CHAINS or m.BATCH or len(m.chain()) > 1:
                raise UsageError(f"method spec {spec}: member {n} must decide one case at a time "
                                 "(not a prefilter chain or a batch judge)")
        self.requires = frozenset().union(*(m.requires for m in self.members))
        self.learns = any(m.learns for m in self.members)
        self.calib_n = max(m.calib_n for m in self.members)

    @property
    def needs_labels(self) -> bool:  # type: ignore[override]
        return any(m.needs_labels for m in self.members)

    def templates_for(self, task_name: str) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for m in self.members:
            seen.update(dict.fromkeys(m.templates_for(task_name)))
        return tuple(seen)

    def check_client(self, client: Client) -> None:
        for m in self.members:
            m.check_client(client)

    def open_clients(self, client: Client) -> None:
        for m in self.members:
            m.open_clients(client)

    def extra_usage(self) -> Any:
        total = Usage()
        for m in self.members:
            total = total + m.extra_usage()
        return total

    async def aclose(self) -> None:
        for m in self.members:
            await m.aclose()

    async def learn(self, ctx: LearningContext, client: Client) -> Learned:
        info, usage, separate = {}, Usage(), False
        for n, m in zip(self.names, self.members):
            if m.learns:
                got = await m.learn(ctx, client)
                info[n], usage, separate = got.info, usage + got.usage, separate or got.separate_client
        return Learned(info=info, usage=usage, separate_client=separate)

    async def prepare(self, labelled: Sequence[tuple[JudgeInput, int]], client: Client) -> dict:
        return {n: await m.prepare(labelled, client) for n, m in zip(self.names, self.members) if m.needs_labels}

    async def __call__(self, inp: JudgeInput, client: Client) -> Verdict:
        verdicts = await asyncio.gather(*(m(inp, client) for m in self.members))
        t = count(verdicts, self.names, inp.task, self.rule, CONSENSUS)
        prov: dict = {
            "templates": template_versions(*self.templates_for(inp.task.name)),
            "vote": {"rule": self.rule, "needed": t.needed, "counts": t.counts,
                     "members": [member_record(n, v) for n, v in zip(self.names, verdicts)]},
        }
        if t.label is None:
            prov["disagreement"] = {"grade_gap": t.grade_gap, "rounds": 1}
        rationale = " | ".join(f"[{n}] {v.rationale}" for n, v in zip(self.names, verdicts) if v.rationale)
        evidence = tuple(dict.fromkeys(q for v in verdicts if v.label == t.label for q in v.evidence))
        return Verdict(status=t.status, label=t.label, grade=t.grade, rationale=rationale, evidence=evidence,
                       round=1, reason=t.reason, usage=total_usage(verdicts), provenance=prov)


def member_record(name: str, v: Verdict) -> dict:
    """One member's verdict as provenance keeps it (enough to re-derive the vote)."""
    return {"judge": name, "status": v.status, "label": v.label, "grade": v.grade, "calls": v.usage.calls,
            "reason": v.reason, "rationale": v.rationale, "provenance": v.provenance}
