"""People's votes and the decided labels they imply.

A vote is one annotator's grade for one task; the decision (majority or
median of the valid votes, see :mod:`qrelkit.annotate.votes`) is written as a
judgment of method ``people`` with source ``human``. The unique constraint on
(user, case) is the last line of defence against a double vote.
"""
from __future__ import annotations

import sqlite3
from typing import NamedTuple, Optional

from qrelkit.store.core import placeholders
from qrelkit.store.waiting import PEOPLE_METHOD


class CaseVote(NamedTuple):
    name: str
    user_id: int
    grade: int
    seconds: float
    history_shown: bool
    comment: str


class AttentionVote(NamedTuple):
    user_id: int
    qid: str
    grade: int
    expected_grade: int


class VoteRecord(NamedTuple):
    """One vote with its annotator and task, as `annotate export` writes it."""

    name: str
    user_id: int
    qid: str
    docid: str
    grade: int
    comment: str
    seconds: float
    history_shown: bool
    created_at: float
    kind: Optional[str]
    expected_grade: Optional[int]


class KindProgress(NamedTuple):
    kind: str
    tasks: int
    decided: int
    votes: int


class TaskTotals(NamedTuple):
    """Real tasks (attention checks aside): how many, how many decided, votes cast on them."""

    total: int
    decided: int
    votes: int


class DecidedTask(NamedTuple):
    qid: str
    docid: str
    kind: str
    grade: Optional[int]
    label: Optional[int]


class VoteStore:
    """Votes and people's decisions (mixin of :class:`qrelkit.store.Store`)."""

    def add_vote(self, user_id: int, qid: str, docid: str, grade: int, comment: str, seconds: float,
                 history_shown: bool, now: float) -> bool:
        """Record a vote; False when this annotator already voted on the case."""
        try:
            self.execute(
                "INSERT INTO annot_votes(user_id, qid, docid, grade, comment, seconds, history_shown, created_at) "
                "VALUES(?,?,?,?,?,?,?,?)",
                (user_id, qid, docid, grade, comment, seconds, int(history_shown), now),
            )
        except sqlite3.IntegrityError:
            return False
        return True

    def has_voted(self, user_id: int, qid: str, docid: str) -> bool:
        return bool(self.query("SELECT 1 FROM annot_votes WHERE user_id=? AND qid=? AND docid=?", (user_id, qid, docid)))

    def vote_count(self, user_id: Optional[int] = None) -> int:
        if user_id is None:
            return self.scalar("SELECT COUNT(*) FROM annot_votes")
        return self.scalar("SELECT COUNT(*) FROM annot_votes WHERE user_id=?", (user_id,))

    def check_count(self, user_id: int) -> int:
        """Attention checks this annotator has answered."""
        return self.scalar(
            "SELECT COUNT(*) FROM annot_votes v JOIN annot_tasks t ON t.qid=v.qid AND t.docid=v.docid "
            "WHERE v.user_id=? AND t.kind='attention'",
            (user_id,),
        )

    def votes_per_user(self) -> dict[int, int]:
        return dict(self.query("SELECT user_id, COUNT(*) FROM annot_votes GROUP BY user_id"))

    def vote_seconds(self, user_id: int) -> list[float]:
        return [s for (s,) in self.query("SELECT seconds FROM annot_votes WHERE user_id=?", (user_id,))]

    def valid_vote_count(self, qid: str, docid: str, excluded: frozenset[int]) -> int:
        """Votes on a case, not counting excluded annotators'."""
        sql = "SELECT COUNT(*) FROM annot_votes WHERE qid=? AND docid=?"
        if excluded:
            sql += f" AND user_id NOT IN ({placeholders(len(excluded))})"
        return self.scalar(sql, (qid, docid, *sorted(excluded)))

    def votes_for(self, qid: str, docid: str) -> list[CaseVote]:
        """Every vote on a case, in the order cast."""
        return [
            CaseVote(n, u, g, s, bool(h), c)
            for n, u, g, s, h, c in self.query(
                "SELECT u.name, v.user_id, v.grade, v.seconds, v.history_shown, v.comment FROM annot_votes v "
                "JOIN annot_users u ON u.id=v.user_id WHERE v.qid=? AND v.docid=? ORDER BY v.created_at, v.id",
                (qid, docid),
            )
        ]

    def attention_votes(self) -> list[AttentionVote]:
        """Answers to attention checks, with the known answer."""
        return [
            AttentionVote(*r)
            for r in self.query(
                "SELECT v.user_id, v.qid, v.grade, t.expected_grade FROM annot_votes v JOIN annot_tasks t "
                "ON t.qid=v.qid AND t.docid=v.docid WHERE t.kind='attention' AND t.expected_grade IS NOT NULL "
                "ORDER BY v.created_at, v.id"
            )
        ]

    def vote_records(self) -> list[VoteRecord]:
        return [
            VoteRecord(n, u, q, d, g, c, s, bool(h), t, k, e)
            for n, u, q, d, g, c, s, h, t, k, e in self.query(
                "SELECT u.name, v.user_id, v.qid, v.docid, v.grade, v.comment, v.seconds, v.history_shown, "
                "v.created_at, t.kind, t.expected_grade FROM annot_votes v JOIN annot_users u ON u.id=v.user_id "
                "LEFT JOIN annot_tasks t ON t.qid=v.qid AND t.docid=v.docid ORDER BY v.created_at, v.id"
            )
        ]

    def progress_by_kind(self) -> list[KindProgress]:
        """Tasks, decided tasks and votes per task kind: escalations, people's share, attention."""
        return [
            KindProgress(k, n, d or 0, v)
            for k, n, d, v in self.query(
                "SELECT t.kind, COUNT(*), SUM(t.decided), (SELECT COUNT(*) FROM annot_votes v JOIN annot_tasks t2 "
                "ON t2.qid=v.qid AND t2.docid=v.docid WHERE t2.kind=t.kind) FROM annot_tasks t GROUP BY t.kind "
                "ORDER BY CASE t.kind WHEN 'escalation' THEN 0 WHEN 'people' THEN 1 ELSE 2 END"
            )
        ]

    def task_totals(self) -> TaskTotals:
        return TaskTotals(*self.query(
            "SELECT COUNT(*), COALESCE(SUM(decided), 0), (SELECT COUNT(*) FROM annot_votes v JOIN annot_tasks t2 "
            "ON t2.qid=v.qid AND t2.docid=v.docid WHERE t2.kind != 'attention') FROM annot_tasks "
            "WHERE kind != 'attention'"
        )[0])

    def decided_tasks(self) -> list[DecidedTask]:
        """Decided real tasks with their people's label, in serving order."""
        return [
            DecidedTask(*r)
            for r in self.query(
                "SELECT t.qid, t.docid, t.kind, j.grade, j.label FROM annot_tasks t JOIN judgments j ON j.qid=t.qid "
                "AND j.docid=t.docid AND j.method=? AND j.model='' WHERE t.decided=1 AND t.kind != 'attention' "
                "ORDER BY t.priority, t.qid, t.docid",
                (PEOPLE_METHOD,),
            )
        ]

    # ---- decisions ---------------------------------------------------------------
    def record_decision(self, qid: str, docid: str, label: Optional[int], grade: int, rationale: str,
                        provenance: str, now: float) -> None:
        """Write the people's label of a case (unchanged rows keep their timestamps) and mark it decided."""
        with self.transaction() as c:
            c.execute(
                "INSERT INTO judgments(qid, docid, method, model, label, grade, status, source, round, rationale, "
                "evidence, provenance, calls, prompt_tokens, completion_tokens, cost_usd, created_at, updated_at) "
                "VALUES(?,?,?,'',?,?,'human','human',0,?,'[]',?,0,0,0,0,?,?) "
                "ON CONFLICT(qid, docid, method, model) DO UPDATE SET label=excluded.label, grade=excluded.grade, "
                "status=excluded.status, source=excluded.source, rationale=excluded.rationale, "
                "provenance=excluded.provenance, updated_at=excluded.updated_at "
                "WHERE judgments.provenance != excluded.provenance OR judgments.grade IS NOT excluded.grade "
                "OR judgments.label IS NOT excluded.label OR judgments.status != excluded.status",
                (qid, docid, PEOPLE_METHOD, label, grade, rationale, provenance, now, now),
            )
            c.execute("UPDATE annot_tasks SET decided=1 WHERE qid=? AND docid=?", (qid, docid))

    def withdraw_decision(self, qid: str, docid: str) -> None:
        """Re-open a case: its people's label goes until its valid votes decide it again."""
        with self.transaction() as c:
            c.execute("UPDATE annot_tasks SET decided=0 WHERE qid=? AND docid=?", (qid, docid))
            c.execute(
                "DELETE FROM judgments WHERE qid=? AND docid=? AND method=? AND model=''", (qid, docid, PEOPLE_METHOD)
            )
