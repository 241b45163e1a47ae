"""The annotation task queue: tasks, the short leases that spread annotators
over them, and per-session skips.

The queue's rules (which tasks exist, in which order they are served) live in
:mod:`qrelkit.annotate.tasks`; this module only reads and writes the rows.
Callers that need several of these steps to be atomic wrap them in
``with store.transaction():``.
"""
from __future__ import annotations

from typing import NamedTuple, Optional

from qrelkit.store.core import placeholders

Pair = tuple[str, str]


class AnnotationTask(NamedTuple):
    qid: str
    docid: str
    kind: str  # escalation | people | attention
    priority: int
    votes_needed: int
    expected_grade: Optional[int]  # attention checks only
    decided: bool


class Candidate(NamedTuple):
    """An undecided task this annotator has not voted on, with what serving needs to know."""

    qid: str
    docid: str
    kind: str
    priority: int
    votes_needed: int
    votes: int  # valid votes so far (excluded annotators' votes do not count)
    leased_to_others: int  # live leases of other annotators
    mine: bool  # leased to this annotator right now
    skipped_at: Optional[float]  # when this session skipped it, if it did


class AttentionItem(NamedTuple):
    qid: str
    docid: str
    grade: int  # the known answer


class TaskStore:
    """Tasks, leases and skips (mixin of :class:`qrelkit.store.Store`)."""

    _TCOLS = "qid, docid, kind, priority, votes_needed, expected_grade, decided"

    def task(self, qid: str, docid: str) -> Optional[AnnotationTask]:
        rows = self.query(f"SELECT {self._TCOLS} FROM annot_tasks WHERE qid=? AND docid=?", (qid, docid))
        return _task_row(rows[0]) if rows else None

    def tasks(self, kind: Optional[str] = None) -> list[AnnotationTask]:
        """Tasks by (qid, docid); ``kind`` ``real`` means every kind but attention."""
        sql = f"SELECT {self._TCOLS} FROM annot_tasks"
        params: tuple = ()
        if kind == "real":
            sql += " WHERE kind != 'attention'"
        elif kind is not None:
            sql += " WHERE kind=?"
            params = (kind,)
        return [_task_row(r) for r in self.query(sql + " ORDER BY qid, docid", params)]

    def task_count(self) -> int:
        return self.scalar("SELECT COUNT(*) FROM annot_tasks")

    def task_kind_counts(self) -> dict[str, int]:
        return dict(self.query("SELECT kind, COUNT(*) FROM annot_tasks GROUP BY kind"))

    def add_task(self, qid: str, docid: str, kind: str, priority: int, votes_needed: int, now: float,
                 expected_grade: Optional[int] = None) -> None:
        self.execute(
            "INSERT INTO annot_tasks(qid, docid, kind, priority, votes_needed, expected_grade, decided, "
            "created_at) VALUES(?,?,?,?,?,?,0,?)",
            (qid, docid, kind, priority, votes_needed, expected_grade, now),
        )

    def requeue_task(self, qid: str, docid: str, priority: int, kind: str) -> None:
        """New priority; the kind changes only while nobody has voted (a vote was cast on what was shown)."""
        self.execute(
            "UPDATE annot_tasks SET priority=?, kind=CASE WHEN EXISTS (SELECT 1 FROM annot_votes v "
            "WHERE v.qid=annot_tasks.qid AND v.docid=annot_tasks.docid) THEN kind ELSE ? END "
            "WHERE qid=? AND docid=?",
            (priority, kind, qid, docid),
        )

    def set_task_priority(self, qid: str, docid: str, priority: int) -> None:
        self.execute("UPDATE annot_tasks SET priority=? WHERE qid=? AND docid=?", (priority, qid, docid))

    def unvoted_open_tasks(self) -> list[Pair]:
        """Undecided real tasks nobody has voted on (the ones that may be withdrawn)."""
        return self.query(
            "SELECT qid, docid FROM annot_tasks t WHERE kind != 'attention' AND decided=0 AND NOT EXISTS "
            "(SELECT 1 FROM annot_votes v WHERE v.qid=t.qid AND v.docid=t.docid) ORDER BY qid, docid"
        )

    def remove_task(self, qid: str, docid: str) -> None:
        """A task and its leases go (votes are never deleted)."""
        with self.transaction() as c:
            c.execute("DELETE FROM annot_tasks WHERE qid=? AND docid=?", (qid, docid))
            c.execute("DELETE FROM annot_leases WHERE qid=? AND docid=?", (qid, docid))

    def set_open_votes_needed(self, votes_needed: int) -> None:
        """Apply the project's votes-per-case to every undecided real task."""
        self.execute("UPDATE annot_tasks SET votes_needed=? WHERE decided=0 AND kind != 'attention'", (votes_needed,))

    def set_votes_needed(self, qid: str, docid: str, votes_needed: int) -> None:
        self.execute("UPDATE annot_tasks SET votes_needed=? WHERE qid=? AND docid=?", (votes_needed, qid, docid))

    def attention_candidates(self) -> list[AttentionItem]:
        """Original qrels whose topic and doc are present and that are no task yet."""
        return [
            AttentionItem(*r)
            for r in self.query(
                "SELECT q.qid, q.docid, q.grade FROM qrels q JOIN topics t ON t.qid=q.qid "
                "JOIN docs d ON d.docid=q.docid WHERE q.source='original' AND NOT EXISTS "
                "(SELECT 1 FROM annot_tasks a WHERE a.qid=q.qid AND a.docid=q.docid) ORDER BY q.qid, q.docid"
            )
        ]

    # ---- serving ---------------------------------------------------------------
    def candidates(self, user_id: int, session_hash: str, excluded: frozenset[int], now: float) -> list[Candidate]:
        """Undecided tasks this annotator has not voted on, in priority order."""
        excl = f" AND v.user_id NOT IN ({placeholders(len(excluded))})" if excluded else ""
        sql = (
            "SELECT t.qid, t.docid, t.kind, t.priority, t.votes_needed, "
            f"(SELECT COUNT(*) FROM annot_votes v WHERE v.qid=t.qid AND v.docid=t.docid{excl}) AS nv, "
            "(SELECT COUNT(*) FROM annot_leases l WHERE l.qid=t.qid AND l.docid=t.docid AND l.user_id!=? "
            " AND l.expires_at>?) AS nl, "
            "(SELECT COUNT(*) FROM annot_leases l WHERE l.qid=t.qid AND l.docid=t.docid AND l.user_id=? "
            " AND l.expires_at>?) AS mine, "
            "(SELECT s.skipped_at FROM annot_skips s WHERE s.session_hash=? AND s.qid=t.qid AND s.docid=t.docid) "
            "FROM annot_tasks t WHERE t.decided=0 AND NOT EXISTS "
            "(SELECT 1 FROM annot_votes v2 WHERE v2.user_id=? AND v2.qid=t.qid AND v2.docid=t.docid) "
            "ORDER BY t.priority, t.qid, t.docid"
        )
        params = (*sorted(excluded), user_id, now, user_id, now, session_hash, user_id)
        return [
            Candidate(q, d, k, p, n, nv, nl, bool(mine), sk) for q, d, k, p, n, nv, nl, mine, sk in self.query(sql, params)
        ]

    def remaining_for(self, user_id: int, excluded: frozenset[int]) -> int:
        """Real tasks still short of valid votes that this annotator has not voted on."""
        excl = f" AND v.user_id NOT IN ({placeholders(len(excluded))})" if excluded else ""
        return self.scalar(
            "SELECT COUNT(*) FROM annot_tasks t WHERE t.kind != 'attention' AND t.decided=0 "
            f"AND (SELECT COUNT(*) FROM annot_votes v WHERE v.qid=t.qid AND v.docid=t.docid{excl}) < t.votes_needed "
            "AND NOT EXISTS (SELECT 1 FROM annot_votes v2 WHERE v2.user_id=? AND v2.qid=t.qid AND v2.docid=t.docid)",
            (*sorted(excluded), user_id),
        )

    def lease(self, user_id: int, qid: str, docid: str, now: float, expires_at: float) -> None:
        """Lease a case to an annotator (a live lease keeps its start time) and drop expired leases."""
        with self.transaction() as c:
            c.execute(
                "INSERT INTO annot_leases(user_id, qid, docid, served_at, expires_at) VALUES(?,?,?,?,?) "
                "ON CONFLICT(user_id, qid, docid) DO UPDATE SET expires_at=excluded.expires_at, "
                "served_at=CASE WHEN annot_leases.expires_at > ? THEN annot_leases.served_at "
                "ELSE excluded.served_at END",
                (user_id, qid, docid, now, expires_at, now),
            )
            c.execute("DELETE FROM annot_leases WHERE expires_at <= ?", (now,))

    def lease_served_at(self, user_id: int, qid: str, docid: str, now: float) -> Optional[float]:
        """When this annotator's live lease on a case began (None without one)."""
        return self.scalar(
            "SELECT served_at FROM annot_leases WHERE user_id=? AND qid=? AND docid=? AND expires_at>?",
            (user_id, qid, docid, now),
        )

    def leases_held_by_others(self, qid: str, docid: str, user_id: int, now: float) -> int:
        return self.scalar(
            "SELECT COUNT(*) FROM annot_leases WHERE qid=? AND docid=? AND user_id!=? AND expires_at>?",
            (qid, docid, user_id, now),
        )

    def release_lease(self, user_id: int, qid: str, docid: str) -> None:
        self.execute("DELETE FROM annot_leases WHERE user_id=? AND qid=? AND docid=?", (user_id, qid, docid))

    def skip_task(self, user_id: int, session_hash: str, qid: str, docid: str, now: float) -> None:
        """Free the case for others and send it to the back of this session's queue."""
        with self.transaction() as c:
            c.execute("DELETE FROM annot_leases WHERE user_id=? AND qid=? AND docid=?", (user_id, qid, docid))
            c.execute(
                "INSERT INTO annot_skips(session_hash, qid, docid, skipped_at) VALUES(?,?,?,?) "
                "ON CONFLICT(session_hash, qid, docid) DO UPDATE SET skipped_at=excluded.skipped_at",
                (session_hash, qid, docid, now),
            )


def _task_row(r: tuple) -> AnnotationTask:
    qid, docid, kind, prio, needed, expected, decided = r
    return AnnotationTask(qid, docid, kind, prio, needed, expected, bool(decided))
