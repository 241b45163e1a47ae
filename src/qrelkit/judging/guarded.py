"""The guard in the judging path: a flagged case becomes an escalation to people, never a call.

The runner asks :func:`guard_case` about each case's document before the judge sees it
(DESIGN.md: cases -> guard -> judge). A flagged case is recorded as an ``escalate`` verdict
whose reason starts with ``guard:`` and whose provenance carries ``guard`` =
``{"rule", "reason", "span"}``; it costs no call, the ``--budget`` cut never drops it (people
must see it), and `status`, the report, `qrelkit escalations` and the people's app read it
from that provenance (:func:`guarded_cases`, :func:`why_guarded`). People's label of the case
carries the same entry (:func:`guard_entry`), and with it ``qrelkit export``'s provenance.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Sequence

from qrelkit.judging.guard import GuardVerdict, check, check_many
from qrelkit.relevance import ESCALATE

if TYPE_CHECKING:
    from qrelkit.judges.base import Verdict
    from qrelkit.store import Store
    from qrelkit.types import Doc

PREFIX = "guard: "


def guard_case(doc: "Doc") -> Optional["Verdict"]:
    """The escalation for a document that addresses the judge, or None for a clean one."""
    return _escalation(check(doc.text, doc.title))


def guard_docs(docs: Sequence["Doc"]) -> dict[str, Optional["Verdict"]]:
    """:func:`guard_case` of each document by docid, the documents checked together (the windows
    that reach the guard's embedding stage go to e5 in one call; the verdicts are the same)."""
    verdicts = check_many([(d.text, d.title) for d in docs])
    return {d.docid: _escalation(v) for d, v in zip(docs, verdicts)}


def _escalation(v: GuardVerdict) -> Optional["Verdict"]:
    from qrelkit.judges.base import Verdict

    if not v.flagged:
        return None
    return Verdict(status=ESCALATE, label=None, grade=None, reason=PREFIX + v.reason,
                   provenance={"guard": {"rule": v.rule, "reason": v.reason, "span": v.span}})


def guard_of(provenance: Any) -> Optional[dict]:
    """The ``guard`` entry of a judgment's provenance (a Provenance, a dict or None)."""
    data = getattr(provenance, "data", provenance)
    entry = data.get("guard") if isinstance(data, dict) or hasattr(data, "get") else None
    return entry if isinstance(entry, dict) else None


def guard_entry(store: "Store", qid: str, docid: str) -> Optional[dict]:
    """The ``guard`` entry of the escalation that sent a pair to people, or None. The people's
    label of the pair carries it in its own provenance, so an exported label says that the guard,
    not a judge's doubt, put the case before people, and which text it flagged."""
    from qrelkit.types import Provenance

    for text in store.escalation_provenances(qid, docid):
        try:
            g = guard_of(Provenance.parse(text).data if text else None)
        except (ValueError, TypeError):
            continue  # an unreadable provenance is no guard's
        if g is not None:
            return {k: str(g.get(k) or "") for k in ("rule", "reason", "span")}
    return None


def why_guarded(provenance: Any) -> Optional[str]:
    """What people are told about a guarded case (None: the case was not guarded)."""
    g = guard_of(provenance)
    if g is None:
        return None
    span = str(g.get("span") or "")
    return (f"The guard kept this document from the AI judge: it {g.get('reason') or 'addresses the judge'}"
            f"{f' (“{span}”)' if span else ''}. Judge it as you would any other; the flagged text does not "
            "make it relevant.")


@dataclass(frozen=True)
class GuardedCase:
    """A case the guard sent to people: which, by which judge's run, why, and the flagged text."""

    qid: str
    docid: str
    method: str
    reason: str
    span: str


def guarded_cases(store: "Store", method: Optional[str] = None) -> tuple[GuardedCase, ...]:
    """The guarded escalations of the workspace (of one method id), by qid and docid."""
    out = []
    for j in store.judgments(method=method, status=ESCALATE):
        g = guard_of(j.prov)
        if g is not None:
            out.append(GuardedCase(j.qid, j.docid, j.method, str(g.get("reason") or ""), str(g.get("span") or "")))
    return tuple(sorted(out, key=lambda c: (c.qid, c.docid, c.method)))
