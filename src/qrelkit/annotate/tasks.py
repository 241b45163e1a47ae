"""The task queue: which cases people judge, in which order, and who gets which next.

Tasks are derived from the workspace (escalated judgments, the people's share
of a hybrid pool, known labels for attention checks) by `sync_tasks`, which is
idempotent so that `serve` can run it every time it starts and after every
`judge` run without duplicating work.

Serving order is one stable priority order for everybody (escalations first,
then the people's share, attention items at seeded random places), so results
come in where they matter most. Each served case is leased to its annotator
for a while: concurrent annotators spread over cases instead of all piling on
the first one and having their votes refused as surplus.
"""
from __future__ import annotations

import hashlib
import random
import time
from dataclasses import dataclass
from typing import Optional

from qrelkit.annotate.settings import AnnotateSettings, load_settings
from qrelkit.annotate.votes import excluded_users, qrels_threshold, refresh_decisions

STEP = 10  # priority gap between consecutive real tasks; attention items sit in the gaps


@dataclass(frozen=True)
class SyncResult:
    escalations: int  # tasks of each kind after the sync
    people: int
    attention: int
    added: int  # tasks created by this sync
    removed: int  # tasks no longer needed (their escalation went away before anybody voted)
    missing: int  # escalations / people cases whose topic or doc is absent (cannot be shown)


@dataclass(frozen=True)
class Assignment:
    qid: str
    docid: str
    kind: str


@dataclass(frozen=True)
class Progress:
    voted: int  # votes this annotator has cast (attention items included: they look like any case)
    remaining: int  # cases still open to this annotator
    decided: int  # cases decided, all annotators together
    total: int  # cases to decide (escalations and people's share)

    def to_json(self) -> dict:
        return {"voted": self.voted, "remaining": self.remaining, "decided": self.decided, "total": self.total}


def sync_tasks(store, votes_needed: int = 3, attention_share: float = 0.1, seed: int = 0) -> SyncResult:
    """Create the tasks the workspace implies and re-derive decisions; safe to repeat."""
    if votes_needed < 1:
        raise ValueError("votes_needed must be >= 1")
    if not 0.0 <= attention_share < 1.0:
        raise ValueError("attention_share must be in [0, 1)")
    now = time.time()
    settings = load_settings(store)
    esc = store.query(
        "SELECT DISTINCT j.qid, j.docid, COALESCE(c.best_rank, 1000000000) AS r FROM judgments j "
        "LEFT JOIN cases c ON c.qid=j.qid AND c.docid=j.docid "
        "WHERE j.status IN ('escalate', 'error') AND j.method != 'people' "
        # escalations over the --budget cap are not for people (see judges.budget)
        "AND COALESCE(json_extract(j.provenance, '$.budget.for_people'), 1) != 0 "
        "ORDER BY j.qid, r, j.docid"
    )
    people = store.query(
        "SELECT qid, docid FROM cases WHERE share='people' AND judged=0 ORDER BY qid, best_rank, docid"
    )
    topics = {r[0] for r in store.query("SELECT qid FROM topics")}

    def showable(qid: str, docid: str) -> bool:
        return qid in topics and bool(store.query("SELECT 1 FROM docs WHERE docid=?", (docid,)))

    real: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    missing = 0
    for kind, rows in (("escalation", [(q, d) for q, d, _ in esc]), ("people", people)):
        for qid, docid in rows:
            if (qid, docid) in seen:
                continue
            seen.add((qid, docid))
            if not showable(qid, docid):
                missing += 1
                continue
            real.append((qid, docid, kind))

    added = removed = 0
    with store.transaction() as c:
        existing = {(q, d): k for q, d, k in c.execute("SELECT qid, docid, kind FROM annot_tasks").fetchall()}
        for i, (qid, docid, kind) in enumerate(real):
            prio = i * STEP
            old = existing.get((qid, docid))
            if old is None:
                c.execute(
                    "INSERT INTO annot_tasks(qid, docid, kind, priority, votes_needed, expected_grade, decided, "
                    "created_at) VALUES(?,?,?,?,?,NULL,0,?)",
                    (qid, docid, kind, prio, votes_needed, now),
                )
                added += 1
            elif old == "attention":
                continue  # a known-answer item that later also became a case stays a check
            else:
                # a people case that the LLM later escalated becomes an escalation while nobody voted yet
                c.execute(
                    "UPDATE annot_tasks SET priority=?, kind=CASE WHEN EXISTS (SELECT 1 FROM annot_votes v "
                    "WHERE v.qid=annot_tasks.qid AND v.docid=annot_tasks.docid) THEN kind ELSE ? END "
                    "WHERE qid=? AND docid=?",
                    (prio, kind, qid, docid),
                )
        # an escalation that went away (an error retried into a label) needs no people, unless some already voted
        wanted = {(q, d) for q, d, _ in real}
        for qid, docid in c.execute(
            "SELECT qid, docid FROM annot_tasks t WHERE kind != 'attention' AND decided=0 AND NOT EXISTS "
            "(SELECT 1 FROM annot_votes v WHERE v.qid=t.qid AND v.docid=t.docid)"
        ).fetchall():
            if (qid, docid) not in wanted:
                c.execute("DELETE FROM annot_tasks WHERE qid=? AND docid=?", (qid, docid))
                removed += 1
                c.execute("DELETE FROM annot_leases WHERE qid=? AND docid=?", (qid, docid))
        c.execute(
            "UPDATE annot_tasks SET votes_needed=? WHERE decided=0 AND kind != 'attention'", (votes_needed,)
        )
        n_real = c.execute("SELECT COUNT(*) FROM annot_tasks WHERE kind != 'attention'").fetchone()[0]
        n_att = c.execute("SELECT COUNT(*) FROM annot_tasks WHERE kind='attention'").fetchone()[0]
        target = _attention_target(n_real, attention_share)
        if n_att < target:
            added += _add_attention(c, store, settings, target - n_att, seed, now)
        # attention items sit at seeded places among the real ones; recomputed so they stay spread as tasks grow
        for qid, docid in c.execute("SELECT qid, docid FROM annot_tasks WHERE kind='attention'").fetchall():
            c.execute(
                "UPDATE annot_tasks SET priority=? WHERE qid=? AND docid=?",
                (_attention_priority(seed, qid, docid, n_real), qid, docid),
            )
        refresh_decisions(store, settings, _conn=c, now=now)
        counts = dict(c.execute("SELECT kind, COUNT(*) FROM annot_tasks GROUP BY kind").fetchall())
    return SyncResult(
        escalations=counts.get("escalation", 0), people=counts.get("people", 0),
        attention=counts.get("attention", 0), added=added, removed=removed, missing=missing,
    )


def _attention_target(n_real: int, share: float) -> int:
    """Checks make up ``share`` of everything served: a / (a + n) = share."""
    if share <= 0 or n_real == 0:
        return 0
    return max(1, round(n_real * share / (1.0 - share)))


def _attention_priority(seed: int, qid: str, docid: str, n_real: int) -> int:
    h = int.from_bytes(hashlib.sha256(f"{seed}\x00{qid}\x00{docid}".encode()).digest()[:8], "big")
    return (h % max(n_real, 1)) * STEP + STEP // 2


def _add_attention(c, store, settings: AnnotateSettings, n: int, seed: int, now: float) -> int:
    """Known answers from the original qrels, half relevant and half not where possible, drawn with ``seed``."""
    rows = c.execute(
        "SELECT q.qid, q.docid, q.grade FROM qrels q JOIN topics t ON t.qid=q.qid JOIN docs d ON d.docid=q.docid "
        "WHERE q.source='original' AND NOT EXISTS (SELECT 1 FROM annot_tasks a WHERE a.qid=q.qid AND a.docid=q.docid) "
        "ORDER BY q.qid, q.docid"
    ).fetchall()
    qthr = qrels_threshold(store, settings)
    rng = random.Random(seed)
    rel = [r for r in rows if r[2] >= qthr]
    non = [r for r in rows if r[2] < qthr]
    rng.shuffle(rel)
    rng.shuffle(non)
    picked = []
    while len(picked) < n and (rel or non):
        for pool in (rel, non):
            if pool and len(picked) < n:
                picked.append(pool.pop())
    for qid, docid, grade in picked:
        c.execute(
            "INSERT INTO annot_tasks(qid, docid, kind, priority, votes_needed, expected_grade, decided, created_at) "
            "VALUES(?,?,'attention',0,0,?,0,?)",
            (qid, docid, grade, now),
        )
    return len(picked)


# ---- serving ---------------------------------------------------------------------
def _candidates(c, user_id: int, session_hash: str, excluded: frozenset[int], now: float) -> list[tuple]:
    excl = f" AND v.user_id NOT IN ({','.join('?' * len(excluded))})" if excluded else ""
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
    return c.execute(sql, (*sorted(excluded), user_id, now, user_id, now, session_hash, user_id)).fetchall()


def next_assignment(
    store, settings: AnnotateSettings, user_id: int, session_hash: str, now: Optional[float] = None
) -> Optional[Assignment]:
    """The case this annotator should judge now (leased to them), or None when nothing is left for them.

    A case already leased to the user comes back (a reload shows the same
    case); otherwise the first open case in priority order, cases skipped in
    this session last. Attention items are only mixed in while real work is
    left, so a finished annotator is not kept busy with checks alone.
    """
    now = time.time() if now is None else now
    with store.transaction() as c:
        excluded = excluded_users(store, settings)
        real, att = [], []
        for qid, docid, kind, prio, needed, nv, nl, mine, skipped in _candidates(
            c, user_id, session_hash, excluded, now
        ):
            item = (qid, docid, kind, prio, mine, skipped)
            if kind == "attention":
                att.append(item)
            elif nv < needed and (mine or nv + nl < needed):
                real.append(item)
        if not real:
            return None
        pool = real + att
        mine = [x for x in pool if x[4]]
        if mine:
            chosen = min(mine, key=lambda x: (x[3], x[0], x[1]))
        else:
            fresh = [x for x in pool if x[5] is None]
            chosen = (
                min(fresh, key=lambda x: (x[3], x[0], x[1]))
                if fresh
                else min(pool, key=lambda x: (x[5], x[3], x[0], x[1]))
            )
        c.execute(
            "INSERT INTO annot_leases(user_id, qid, docid, served_at, expires_at) VALUES(?,?,?,?,?) "
            "ON CONFLICT(user_id, qid, docid) DO UPDATE SET expires_at=excluded.expires_at, "
            "served_at=CASE WHEN annot_leases.expires_at > ? THEN annot_leases.served_at ELSE excluded.served_at END",
            (user_id, chosen[0], chosen[1], now, now + settings.lease_minutes * 60.0, now),
        )
        c.execute("DELETE FROM annot_leases WHERE expires_at <= ?", (now,))
    return Assignment(chosen[0], chosen[1], chosen[2])


def skip(store, user_id: int, session_hash: str, qid: str, docid: str, now: Optional[float] = None) -> bool:
    """Send a case to the back of this session's queue and free it for others; False if it is no task."""
    now = time.time() if now is None else now
    with store.transaction() as c:
        if not c.execute("SELECT 1 FROM annot_tasks WHERE qid=? AND docid=?", (qid, docid)).fetchone():
            return False
        c.execute("DELETE FROM annot_leases WHERE user_id=? AND qid=? AND docid=?", (user_id, qid, docid))
        c.execute(
            "INSERT INTO annot_skips(session_hash, qid, docid, skipped_at) VALUES(?,?,?,?) "
            "ON CONFLICT(session_hash, qid, docid) DO UPDATE SET skipped_at=excluded.skipped_at",
            (session_hash, qid, docid, now),
        )
    return True


def task_kind(store, qid: str, docid: str) -> Optional[str]:
    rows = store.query("SELECT kind FROM annot_tasks WHERE qid=? AND docid=?", (qid, docid))
    return rows[0][0] if rows else None


def progress(store, settings: AnnotateSettings, user_id: int) -> Progress:
    excluded = excluded_users(store, settings)
    excl = f" AND v.user_id NOT IN ({','.join('?' * len(excluded))})" if excluded else ""
    remaining = store.query(
        "SELECT COUNT(*) FROM annot_tasks t WHERE t.kind != 'attention' AND t.decided=0 "
        f"AND (SELECT COUNT(*) FROM annot_votes v WHERE v.qid=t.qid AND v.docid=t.docid{excl}) < t.votes_needed "
        "AND NOT EXISTS (SELECT 1 FROM annot_votes v2 WHERE v2.user_id=? AND v2.qid=t.qid AND v2.docid=t.docid)",
        (*sorted(excluded), user_id),
    )[0][0]
    voted = store.query("SELECT COUNT(*) FROM annot_votes WHERE user_id=?", (user_id,))[0][0]
    decided, total = store.query(
        "SELECT COALESCE(SUM(decided), 0), COUNT(*) FROM annot_tasks WHERE kind != 'attention'"
    )[0]
    return Progress(voted=voted, remaining=remaining, decided=decided, total=total)
