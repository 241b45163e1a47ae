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

import json
import sqlite3
import statistics
import time
from dataclasses import dataclass
from typing import Optional

from qrelkit.annotate.content import escalation_history, people_label, task_of, valid_grades
from qrelkit.annotate.settings import AnnotateSettings

METHOD = "people"
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
    top = store.query("SELECT MAX(grade) FROM qrels")[0][0]
    return settings.threshold if top is not None and top >= settings.threshold else 1


def attention_passed(grade: int, expected: int, task: str, settings: AnnotateSettings, qthr: int) -> bool:
    """Agreement on relevance (not on the exact grade): a check tests attention, not calibration."""
    return bool(people_label(grade, task, settings)) == (expected >= qthr)


def attention_results(store, settings: AnnotateSettings) -> dict[int, AttentionResult]:
    qthr = qrels_threshold(store, settings)
    tasks: dict[str, str] = {}
    counts: dict[int, list] = {}
    for uid, name in store.query("SELECT id, name FROM annot_users"):
        counts[uid] = [name, 0, 0]
    rows = store.query(
        "SELECT v.user_id, v.qid, v.grade, t.expected_grade FROM annot_votes v JOIN annot_tasks t "
        "ON t.qid=v.qid AND t.docid=v.docid WHERE t.kind='attention' AND t.expected_grade IS NOT NULL"
    )
    for uid, qid, grade, expected in rows:
        if qid not in tasks:
            tasks[qid] = task_of(store, settings, qid)
        c = counts.setdefault(uid, ["?", 0, 0])
        c[1] += 1
        c[2] += attention_passed(grade, expected, tasks[qid], settings, qthr)
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


def _placeholders(ids: frozenset[int]) -> str:
    return ",".join("?" * len(ids))


def valid_vote_count(c: sqlite3.Connection, qid: str, docid: str, excluded: frozenset[int]) -> int:
    sql = "SELECT COUNT(*) FROM annot_votes WHERE qid=? AND docid=?"
    if excluded:
        sql += f" AND user_id NOT IN ({_placeholders(excluded)})"
    return c.execute(sql, (qid, docid, *sorted(excluded))).fetchone()[0]


def cast_vote(
    store,
    settings: AnnotateSettings,
    user_id: int,
    qid: str,
    docid: str,
    grade: int,
    comment: str = "",
    seconds: Optional[float] = None,
    now: Optional[float] = None,
) -> VoteOutcome:
    """Record one vote if the case is open to this annotator, and decide the case when it is complete."""
    now = time.time() if now is None else now
    comment = (comment or "").strip()
    if len(comment) > MAX_COMMENT:
        raise VoteRejected(400, f"comment longer than {MAX_COMMENT} characters")
    if isinstance(grade, bool) or not isinstance(grade, int):
        raise VoteRejected(400, "grade must be an integer")
    task = task_of(store, settings, qid)
    if grade not in valid_grades(task):
        raise VoteRejected(400, f"grade {grade} is not on the {task} task's scale")
    history = None
    with store.transaction() as c:
        row = c.execute(
            "SELECT kind, votes_needed, decided FROM annot_tasks WHERE qid=? AND docid=?", (qid, docid)
        ).fetchone()
        if row is None:
            raise VoteRejected(404, "no such case")
        kind, needed, decided = row
        if c.execute(
            "SELECT 1 FROM annot_votes WHERE user_id=? AND qid=? AND docid=?", (user_id, qid, docid)
        ).fetchone():
            raise VoteRejected(409, "you already voted on this case")
        lease = c.execute(
            "SELECT served_at FROM annot_leases WHERE user_id=? AND qid=? AND docid=? AND expires_at>?",
            (user_id, qid, docid, now),
        ).fetchone()
        excluded = excluded_users(store, settings)
        if kind != "attention":
            if decided:
                raise VoteRejected(409, "this case is already decided")
            have = valid_vote_count(c, qid, docid, excluded)
            if have >= needed:
                raise VoteRejected(409, "this case already has its votes")
            if lease is None:
                held = c.execute(
                    "SELECT COUNT(*) FROM annot_leases WHERE qid=? AND docid=? AND user_id!=? AND expires_at>?",
                    (qid, docid, user_id, now),
                ).fetchone()[0]
                if have + held >= needed:
                    raise VoteRejected(409, "this case is assigned to other annotators")
            if not settings.hide_history:
                history = escalation_history(store, qid, docid) if kind == "escalation" else ()
        if seconds is None:
            seconds = now - lease[0] if lease else 0.0
        seconds = min(max(float(seconds), 0.0), MAX_SECONDS)
        try:
            c.execute(
                "INSERT INTO annot_votes(user_id, qid, docid, grade, comment, seconds, history_shown, created_at) "
                "VALUES(?,?,?,?,?,?,?,?)",
                (user_id, qid, docid, grade, comment, seconds, int(bool(history)), now),
            )
        except sqlite3.IntegrityError:
            raise VoteRejected(409, "you already voted on this case") from None
        c.execute("DELETE FROM annot_leases WHERE user_id=? AND qid=? AND docid=?", (user_id, qid, docid))
        if kind == "attention":
            # a check answered may change who is excluded, hence every decision
            if excluded_users(store, settings) != excluded:
                refresh_decisions(store, settings, _conn=c, now=now)
            return VoteOutcome(qid, docid, False, None)
        decided_grade = _decide_case(c, store, settings, qid, docid, excluded, now)
    return VoteOutcome(qid, docid, decided_grade is not None, decided_grade)


def refresh_decisions(store, settings: AnnotateSettings, _conn=None, now: Optional[float] = None) -> int:
    """Re-derive every case from its valid votes; returns how many cases changed state."""
    now = time.time() if now is None else now
    if _conn is None:
        with store.transaction() as c:
            return refresh_decisions(store, settings, _conn=c, now=now)
    c = _conn
    excluded = excluded_users(store, settings)
    changed = 0
    rows = c.execute(
        "SELECT qid, docid, decided FROM annot_tasks WHERE kind != 'attention' ORDER BY qid, docid"
    ).fetchall()
    for qid, docid, was in rows:
        now_decided = _decide_case(c, store, settings, qid, docid, excluded, now) is not None
        changed += int(now_decided != bool(was))
    return changed


def _decide_case(c, store, settings, qid, docid, excluded, now) -> Optional[int]:
    """Write (or withdraw) the people's label of one case from its valid votes."""
    needed = c.execute("SELECT votes_needed FROM annot_tasks WHERE qid=? AND docid=?", (qid, docid)).fetchone()[0]
    votes = c.execute(
        "SELECT u.name, v.user_id, v.grade, v.seconds, v.history_shown, v.comment FROM annot_votes v "
        "JOIN annot_users u ON u.id=v.user_id WHERE v.qid=? AND v.docid=? ORDER BY v.created_at, v.id",
        (qid, docid),
    ).fetchall()
    valid = [v for v in votes if v[1] not in excluded]
    task = task_of(store, settings, qid)
    grade = decide([v[2] for v in valid], task) if len(valid) >= needed else None
    if grade is None:
        if len(valid) >= needed:  # a tie: one more vote breaks it
            c.execute(
                "UPDATE annot_tasks SET votes_needed=? WHERE qid=? AND docid=?", (len(valid) + 1, qid, docid)
            )
        c.execute("UPDATE annot_tasks SET decided=0 WHERE qid=? AND docid=?", (qid, docid))
        c.execute("DELETE FROM judgments WHERE qid=? AND docid=? AND method=? AND model=''", (qid, docid, METHOD))
        return None
    kind = c.execute("SELECT kind FROM annot_tasks WHERE qid=? AND docid=?", (qid, docid)).fetchone()[0]
    prov = {
        "votes": [
            {"annotator": name, "grade": g, "seconds": round(s, 3), "history_shown": bool(h), "comment": cm}
            for name, _, g, s, h, cm in valid
        ],
        "rule": "majority" if task == "answer" else "median",
        "excluded_annotators": sorted({v[0] for v in votes if v[1] in excluded}),
        "history_shown": any(bool(v[4]) for v in valid),
        "seconds_total": round(sum(v[3] for v in valid), 3),
        "kind": kind,
        "task": task,
        "votes_needed": needed,
    }
    label = people_label(grade, task, settings)
    rationale = f"people: {prov['rule']} of {len(valid)} votes"
    c.execute(
        "INSERT INTO judgments(qid, docid, method, model, label, grade, status, source, round, rationale, "
        "evidence, provenance, calls, prompt_tokens, completion_tokens, cost_usd, created_at, updated_at) "
        "VALUES(?,?,?,'',?,?,'human','human',0,?,'[]',?,0,0,0,0,?,?) "
        "ON CONFLICT(qid, docid, method, model) DO UPDATE SET label=excluded.label, grade=excluded.grade, "
        "status=excluded.status, source=excluded.source, rationale=excluded.rationale, "
        "provenance=excluded.provenance, updated_at=excluded.updated_at "
        "WHERE judgments.provenance != excluded.provenance OR judgments.grade IS NOT excluded.grade "
        "OR judgments.label IS NOT excluded.label OR judgments.status != excluded.status",
        (qid, docid, METHOD, label, grade, rationale, json.dumps(prov, sort_keys=True), now, now),
    )
    c.execute("UPDATE annot_tasks SET decided=1 WHERE qid=? AND docid=?", (qid, docid))
    return grade


def median_or_none(values: list[float]) -> Optional[float]:
    return statistics.median(values) if values else None
