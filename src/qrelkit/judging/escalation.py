"""What waits for people after a run: the ``--budget`` cut, the LLM adjudicator, the oracle.

After the cases of a run are judged, the escalations of its selection are
ranked by the strength of their disagreement (:mod:`qrelkit.judging.budget`);
the strongest ``cap`` stay with people, the overflow goes to the LLM adjudicator
(a debate with ``adjudicator=llm``) or stays undecided and is marked
``"for_people": false``. Errors (failed calls) always wait for people and are
retried on the next run. In simulation an ``oracle`` answers escalations from
reference labels: the answer is noted in provenance as ``oracle`` and no label
is written.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Mapping, Optional

from qrelkit.errors import UsageError
from qrelkit.judges.base import ERROR, ESCALATE, AdjudicatingJudge, JudgeInput, Task
from qrelkit.judging.budget import Budget, rank, strength
from qrelkit.store.waiting import wants_people
from qrelkit.types import Case, Judgment, Provenance

if TYPE_CHECKING:
    from qrelkit.llm.client import Client
    from qrelkit.store import Store

Pair = tuple[str, str]
COMMON_KEYS = ("method", "model", "task", "status", "reason")  # written by the runner, not by judges


def for_people(j: Judgment) -> bool:
    """Does this judgment wait for people? (the one definition: :func:`qrelkit.store.waiting.wants_people`)."""
    return wants_people(j.status, j.provenance)


def check_budget(spec: Any, budget: Optional[str | Budget]) -> None:
    """A batch judge spends its own human budget (a spec parameter); ``--budget`` would be a second one.
    ``spec`` is a JudgeSpec (the CLI checks before it builds anything)."""
    from qrelkit.judges import judge_class

    if budget is not None and str(budget).strip() and judge_class(spec.name).BATCH:
        raise UsageError(
            f"--budget does not apply to {spec.name}: its human budget is part of the method spec, "
            f"e.g. {spec.name}(budget=12.5%)"
        )


def with_prov(j: Judgment, prov: Provenance) -> Judgment:
    return dataclasses.replace(j, provenance=prov.to_json())


def answer_from_oracle(
    store: Store, selection: Any, method: str, model: str, oracle: Mapping[Pair, int]
) -> None:
    """Simulation: note the reference grade on each escalation of the selection (a
    :class:`qrelkit.store.Selection`); the label stays undecided."""
    for j in selection.judgments(method, model, status=ESCALATE):
        g = oracle.get((j.qid, j.docid))
        if g is None:
            continue
        if j.prov.oracle != int(g):
            store.put_judgments([with_prov(j, j.prov.with_(oracle=int(g)))])


def budget_mark(bud: Budget, cap: int, i: int, prov: Provenance, llm: bool) -> dict:
    """The ``budget`` entry of the ``i``-th strongest escalation (see qrelkit.judging.budget)."""
    keep = i < cap
    return {
        "budget": str(bud),
        "cap": cap,
        "rank": i + 1,
        "strength": list(strength(dict(prov.data))),
        "for_people": keep,
        "action": "people" if keep else ("llm-adjudicator" if llm else "undecided"),
    }


async def apply_budget(
    store: Store,
    selection: Any,
    bud: Budget,
    adjudicating: Optional[AdjudicatingJudge],
    client: Client,
    method: str,
    model: str,
    task: Task,
) -> None:
    """Mark each escalation of the selection (a :class:`qrelkit.store.Selection`) with the
    budget's decision; settle the overflow with the LLM adjudicator when the judge has one."""
    # a guarded case always waits for people: the cut ranks the judge's own escalations only
    esc = [j for j in selection.judgments(method, model, status=ESCALATE) if j.prov.get("guard") is None]
    cap = bud.cap(len(selection))
    by_key = {(j.qid, j.docid): j for j in esc}
    ranked = rank([(j.qid, j.docid, dict(j.prov.data)) for j in esc])
    llm = adjudicating is not None and adjudicating.adjudicator == "llm"
    topics = store.topics()
    for i, (qid, docid, data) in enumerate(ranked):
        prov = Provenance(data)
        mark = budget_mark(bud, cap, i, prov, llm)
        if prov.budget == mark:
            continue
        old, prov = by_key[(qid, docid)], prov.with_(budget=mark)
        if mark["for_people"] or not llm:
            store.put_judgments([with_prov(old, prov)])
            continue
        case = Case(qid, docid)
        inp = JudgeInput(case, topics[qid], store.doc(docid), task)
        v = await adjudicating.settle(inp, dict(prov.data), client)
        v = dataclasses.replace(
            v,
            provenance=dict(Provenance(v.provenance).without(*COMMON_KEYS).data),
            usage=v.usage + old.usage,
            evidence=old.evidence,
        )
        store.put_judgments([v.to_judgment(case, method, model, task)])


def list_escalations(
    store: Store, method: Optional[str] = None, include_over_budget: bool = False
) -> list[dict]:
    """What waits for people (status escalate/error), oldest method first, with the debate history."""
    topics = store.topics()
    out = []
    for status in (ESCALATE, ERROR):
        for j in store.judgments(method=method, status=status):
            if not include_over_budget and not for_people(j):
                continue
            prov = j.prov
            topic = topics.get(j.qid)
            out.append(
                {
                    "qid": j.qid,
                    "docid": j.docid,
                    "query": topic.text if topic else "",
                    "method": j.method,
                    "model": j.model,
                    "status": j.status,
                    "reason": prov.reason,
                    "history": prov.get("history"),
                    "guard": prov.get("guard"),  # {"rule", "reason", "span"} when the guard sent it
                    "for_people": for_people(j),
                }
            )
    out.sort(key=lambda e: (e["qid"], e["docid"], e["method"], e["model"]))
    return out

