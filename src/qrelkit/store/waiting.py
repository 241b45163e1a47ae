"""What people are asked to judge, and what of it still waits for them.

This is the one definition of "waiting for people", read by `status`, by the
resumable jobs (`fill` stops when people have work) and by the annotation
app's task queue:

- an **escalation** is a judge's verdict ``escalate`` or ``error`` that is for
  people: errors always, escalations unless the ``--budget`` cap marked them
  over budget (provenance ``$.budget.for_people`` false; default true);
- the **people's share** is the unjudged cases the pool gave people by design;
- a case **waits** while people have not decided it (no judgment with source ``human``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from qrelkit.relevance import ERROR, ESCALATE
from qrelkit.types import Provenance

Pair = tuple[str, str]

ESCALATION = "escalation"
PEOPLE = "people"
PEOPLE_METHOD = "people"  # the method under which the annotation app writes people's decided labels


def wants_people(status: str, provenance: str) -> bool:
    """Is a judgment with this status and provenance (JSON) for people?"""
    if status == ERROR:
        # a pair whose topic or document text is missing was never judgeable: people cannot
        # settle it in the app either (a workspace from before recorded it as an error)
        return '"missing"' not in provenance
    if status != ESCALATE:
        return False
    try:
        budget = Provenance.parse(provenance).budget or {}
    except (ValueError, AttributeError):
        return True
    return bool(budget.get("for_people", True))


@dataclass(frozen=True)
class ForPeople:
    """One case people are asked to judge; ``kind`` is ``escalation`` or ``people`` (their share)."""

    qid: str
    docid: str
    kind: str


@dataclass(frozen=True)
class PeopleWaiting:
    """Cases meant for people that people have not decided yet."""

    escalations: frozenset[Pair]
    people_share: frozenset[Pair]

    @property
    def pairs(self) -> frozenset[Pair]:
        return self.escalations | self.people_share

    def __len__(self) -> int:
        return len(self.pairs)

    def to_json(self) -> dict:
        return {"escalations": len(self.escalations), "people_share": len(self.people_share), "waiting": len(self)}


class WaitingStore:
    """The people's queue as the workspace implies it (mixin of :class:`qrelkit.store.Store`)."""

    def escalations_for_people(self, method: Optional[str] = None, model: Optional[str] = None) -> list[Pair]:
        """Escalated pairs meant for people, decided or not, by topic, best rank, docid; with
        ``method`` and ``model``, only that judge's (a job's, not the ones a --rejudge replaced)."""
        only = " AND j.method = ? AND j.model = ?" if method is not None else ""
        rows = self.query(
            "SELECT j.qid, j.docid, j.status, j.provenance, COALESCE(c.best_rank, 1000000000) AS r "
            "FROM judgments j LEFT JOIN cases c ON c.qid=j.qid AND c.docid=j.docid "
            f"WHERE j.status IN ('{ESCALATE}', '{ERROR}') AND j.method != ?{only} ORDER BY j.qid, r, j.docid",
            (PEOPLE_METHOD, *((method, model) if method is not None else ())),
        )
        out: dict[Pair, None] = {}
        for qid, docid, status, prov, _ in rows:
            if wants_people(status, prov):
                out.setdefault((qid, docid))
        return list(out)

    def meant_for_people(self) -> list[ForPeople]:
        """Every case meant for people, decided or not: escalations first, then the
        people's share, each once (a shared case that also escalated counts as an escalation)."""
        seen: set[Pair] = set()
        out: list[ForPeople] = []
        share = [(c.qid, c.docid) for c in self.cases(share="people", judged=False)]
        for kind, pairs in ((ESCALATION, self.escalations_for_people()), (PEOPLE, share)):
            for pair in pairs:
                if pair not in seen:
                    seen.add(pair)
                    out.append(ForPeople(pair[0], pair[1], kind))
        return out

    def waiting_for_people(self, method: Optional[str] = None, model: Optional[str] = None) -> PeopleWaiting:
        """Escalations for people and the people's share, without a people's label yet; with
        ``method`` and ``model``, the escalations of that judge only."""
        human = self.human_pairs()
        share = {(c.qid, c.docid) for c in self.cases(share="people", judged=False)}
        return PeopleWaiting(
            escalations=frozenset(set(self.escalations_for_people(method, model)) - human),
            people_share=frozenset(share - human),
        )
