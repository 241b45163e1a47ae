"""Votes, attention checks and the decided labels they produce.

Checking that a vote is allowed, inserting it, and (re)deciding its case all
happen in one write transaction: concurrent submissions queue on SQLite's
write lock, so a case can neither lose a vote nor get more than it needs, and
the decided label in the judgments table is always the one its votes imply.
The unique constraint on (user, case) is the last line of defence.

A decision is a pure function of the valid votes; which votes are valid
depends on attention checks, which keep arriving. So whenever the set of
excluded annotators may change, every case is re-derived (`refresh_decisions`):
a case whose votes were partly excluded re-opens, and opens again to people.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Any, Optional

from qrelkit.annotate.content import escalation_history, people_label, task_of, valid_grades
from qrelkit.annotate.settings import AnnotateSettings
from qrelkit.judging.guarded import guard_entry
from qrelkit.store.waiting import PEOPLE_METHOD
from qrelkit.types import Provenance

METHOD = PEOPLE_METHOD  # the method of people's decided labels
MAX_COMMENT = 5000
MAX_SECONDS = 24 * 3600.0


class VoteRejected(Exception):
    """A vote that must not be recorded; ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass(frozen=True)
class VoteOutcome:
    qid: str
    docid: str
    decided: bool
    grade: Optional[int]


@dataclass(frozen=True)
class AttentionResult:
    user_id: int
    name: str
    checks: int
    passed: int

    @property
    def pass_rate(self) -> Optional[float]:
        return self.passed / self.checks if self.checks else None

    def failed(self, settings: AnnotateSettings) -> bool:
        """Failing needs evidence: at least ``min_checks`` answered checks."""
        return self.checks >= settings.min_checks and (self.pass_rate or 0.0) < settings.min_pass_rate


def qrels_threshold(store, settings: AnnotateSettings) -> int:
    """The relevance threshold of the original qrels: the project's, unless the
    qrels are binary (max grade 1), where anything above 0 is relevant."""
    if settings.qrels_threshold is not None:
        return settings.qrels_threshold
    top = store.max_qrel_grade()
    return settings.threshold if top is not None and top >= settings.threshold else 1


def attention_passed(grade: int, expected: int, task: str, settings: AnnotateSettings, qthr: int) -> bool:
    """Agreement on relevance (not on the exact grade): a check tests attention, not calibration."""
    return bool(people_label(grade, task, settings)) == (expected >= qthr)


def attention_results(store, settings: AnnotateSettings) -> dict[int, AttentionResult]:
    qthr = qrels_threshold(store, settings)
    tasks: dict[str, str] = {}
    counts: dict[int, list] = {a.id: [a.name, 0, 0] for a in store.annotators()}
    for v in store.attention_votes():
        if v.qid not in tasks:
            tasks[v.qid] = task_of(store, settings, v.qid)
        c = counts.setdefault(v.user_id, ["?", 0, 0])
        c[1] += 1
        c[2] += attention_passed(v.grade, v.expected_grade, tasks[v.qid], settings, qthr)
    return {uid: AttentionResult(uid, n, k, p) for uid, (n, k, p) in counts.items()}


def excluded_users(store, settings: AnnotateSettings) -> frozenset[int]:
    if not settings.exclude_failed:
        return frozenset()
    return frozenset(uid for uid, r in attention_results(store, settings).items() if r.failed(settings))


def decide(grades: list[int], task: str) -> Optional[int]:
    """Majority for the binary task, median for grades; None on a tie (the case then needs one more vote)."""
    if not grades:
        return None
    if task == "answer":
        yes = sum(1 for g in grades if g >= 1)
        no = len(grades) - yes
        return None if yes == no else int(yes > no)
    s = sorted(grades)
    n = len(s)
    if n % 2:
        return s[n // 2]
    a, b = s[n // 2 - 1], s[n // 2]
    return a if a == b else None


@dataclass(frozen=True)
class VoteDetails:
    """What a vote carries besides its grade (the keywords of :func:`cast_vote`)."""

    comment: str = ""
    seconds: Optional[float] = None
    now: Optional[float] = None


def cast_vote(
    store,
    settings: AnnotateSettings,
    user_id: int,
    qid: str,
    docid: str,
    grade: int,
    details: "Optional[VoteDetails]" = None,
    **given: Any,
) -> VoteOutcome:
    """Record one vote if the case is open to this annotator, and decide the case when it is complete."""
    s = details if details is not None else VoteDetails(**given)
    comment, seconds, now = s.comment, s.seconds, s.now
    now = time.time() if now is None else now
    comment = (comment or "").strip()
    if len(comment) > MAX_COMMENT:
        raise VoteRejected(400, f"comment longer than {MAX_COMMENT} characters")
    if isinstance(grade, bool) or not isinstance(grade, int):
        raise VoteRejected(400, "grade must be an integer")
    task = task_of(store, settings, qid)
    if grade not in valid_grades(task):
        raise VoteRejected(400, f"grade {grade} is not on the {task} task's scale")
    with store.transaction():
        t = store.task(qid, docid)
        if t is None:
            raise VoteRejected(404, "no such case")
        if store.has_voted(user_id, qid, docid):
            raise VoteRejected(409, "you already voted on this case")
        served_at = store.lease_served_at(user_id, qid, docid, now)
        excluded = excluded_users(store, settings)
        history = None if t.kind == "attention" else _check_open(store, settings, t, user_id, served_at, excluded, now)
        if seconds is None:
            seconds = now - served_at if served_at is not None else 0.0
        seconds = min(max(float(seconds), 0.0), MAX_SECONDS)
        if not store.add_vote(user_id, qid, docid, grade, comment, seconds, bool(history), now):
            raise VoteRejected(409, "you already voted on this case")
        store.release_lease(user_id, qid, docid)
        if t.kind == "attention":
            # a check answered may change who is excluded, hence every decision
            if excluded_users(store, settings) != excluded:
                refresh_decisions(store, settings, now=now)
            return VoteOutcome(qid, docid, False, None)
        decided_grade = _decide_case(store, settings, qid, docid, excluded, now)
    return VoteOutcome(qid, docid, decided_grade is not None, decided_grade)


def _check_open(store, settings, t, user_id: int, served_at: Optional[float], excluded, now: float):
    """Refuse a vote on a real case that is decided, full, or held by others; returns the history shown."""
    if t.decided:
        raise VoteRejected(409, "this case is already decided")
    have = store.valid_vote_count(t.qid, t.docid, excluded)
    if have >= t.votes_needed:
        raise VoteRejected(409, "this case already has its votes")
    if served_at is None and have + store.leases_held_by_others(t.qid, t.docid, user_id, now) >= t.votes_needed:
        raise VoteRejected(409, "this case is assigned to other annotators")
    if not settings.shows_history(t.qid, t.docid, user_id):
        return None
    return escalation_history(store, t.qid, t.docid) if t.kind == "escalation" else ()


def refresh_decisions(store, settings: AnnotateSettings, now: Optional[float] = None) -> int:
    """Re-derive every case from its valid votes; returns how many cases changed state."""
    now = time.time() if now is None else now
    changed = 0
    with store.transaction():
        excluded = excluded_users(store, settings)
        for t in store.tasks(kind="real"):
            now_decided = _decide_case(store, settings, t.qid, t.docid, excluded, now) is not None
            changed += int(now_decided != t.decided)
    return changed


def _decide_case(store, settings, qid, docid, excluded, now) -> Optional[int]:
    """Write (or withdraw) the people's label of one case from its valid votes."""
    t = store.task(qid, docid)
    votes = store.votes_for(qid, docid)
    valid = [v for v in votes if v.user_id not in excluded]
    task = task_of(store, settings, qid)
    grade = decide([v.grade for v in valid], task) if len(valid) >= t.votes_needed else None
    if grade is None:
        if len(valid) >= t.votes_needed:  # a tie: one more vote breaks it
            store.set_votes_needed(qid, docid, len(valid) + 1)
        store.withdraw_decision(qid, docid)
        return None
    prov = {
        "votes": [
            {"annotator": v.name, "grade": v.grade, "seconds": round(v.seconds, 3), "history_shown": v.history_shown,
             "comment": v.comment}
            for v in valid
        ],
        "rule": "majority" if task == "answer" else "median",
        "excluded_annotators": sorted({v.name for v in votes if v.user_id in excluded}),
        "history_shown": any(v.history_shown for v in valid),
        "seconds_total": round(sum(v.seconds for v in valid), 3),
        "kind": t.kind,
        "task": task,
        "votes_needed": t.votes_needed,
    }
    guard = guard_entry(store, qid, docid) if t.kind == "escalation" else None
    if guard is not None:  # the guard sent it: the reason and the flagged text go with the label
        prov["guard"] = guard
    label = people_label(grade, task, settings)
    rationale = f"people: {prov['rule']} of {len(valid)} votes"
    store.record_decision(qid, docid, label, grade, rationale, Provenance(prov).to_json(), now)
    return grade


def median_or_none(values: list[float]) -> Optional[float]:
    return statistics.median(values) if values else None
