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
import math
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
    # escalations meant for people (over-budget ones are not), then the people's share
    real, missing = _showable(store, store.meant_for_people())
    added = removed = 0
    with store.transaction():
        existing = {(t.qid, t.docid): t.kind for t in store.tasks()}
        for i, (qid, docid, kind) in enumerate(real):
            old = existing.get((qid, docid))
            if old is None:
                store.add_task(qid, docid, kind, i * STEP, votes_needed, now)
                added += 1
            elif old != "attention":  # a known-answer item that later also became a case stays a check
                # a people case that the LLM later escalated becomes an escalation while nobody voted yet
                store.requeue_task(qid, docid, i * STEP, kind)
        # an escalation that went away (an error retried into a label) needs no people, unless some already voted
        wanted = {(q, d) for q, d, _ in real}
        for qid, docid in store.unvoted_open_tasks():
            if (qid, docid) not in wanted:
                store.remove_task(qid, docid)
                removed += 1
        store.set_open_votes_needed(votes_needed)
        added += _place_attention(store, settings, attention_share, seed, now)
        refresh_decisions(store, settings, now=now)
        counts = store.task_kind_counts()
    return SyncResult(
        escalations=counts.get("escalation", 0), people=counts.get("people", 0),
        attention=counts.get("attention", 0), added=added, removed=removed, missing=missing,
    )


def _showable(store, wanted) -> tuple[list[tuple[str, str, str]], int]:
    """The cases whose topic and doc are present (others cannot be shown), and how many are not."""
    topics = store.topic_ids()
    real = [(w.qid, w.docid, w.kind) for w in wanted if w.qid in topics and store.has_doc(w.docid)]
    return real, len(wanted) - len(real)


def _place_attention(store, settings: AnnotateSettings, share: float, seed: int, now: float) -> int:
    """Top the checks up to ``share`` and spread them at seeded places among the real tasks; returns how many were added."""
    counts = store.task_kind_counts()
    n_att = counts.get("attention", 0)
    n_real = sum(counts.values()) - n_att
    target = _attention_target(n_real, share)
    added = _add_attention(store, settings, target - n_att, seed, now) if n_att < target else 0
    # recomputed so they stay spread as tasks grow
    for t in store.tasks(kind="attention"):
        store.set_task_priority(t.qid, t.docid, _attention_priority(seed, t.qid, t.docid, n_real))
    return added


def _attention_target(n_real: int, share: float) -> int:
    """Checks make up ``share`` of everything served: a / (a + n) = share."""
    if share <= 0 or n_real == 0:
        return 0
    return max(1, round(n_real * share / (1.0 - share)))


def _attention_priority(seed: int, qid: str, docid: str, n_real: int) -> int:
    h = int.from_bytes(hashlib.sha256(f"{seed}\x00{qid}\x00{docid}".encode()).digest()[:8], "big")
    return (h % max(n_real, 1)) * STEP + STEP // 2


def _add_attention(store, settings: AnnotateSettings, n: int, seed: int, now: float) -> int:
    """Known answers from the original qrels, drawn with ``seed``: relevant ones only (the paper's
    checks "must be labelled relevant"), or half relevant and half not with ``attention_labels=both``."""
    rows = store.attention_candidates()
    qthr = qrels_threshold(store, settings)
    rng = random.Random(seed)
    rel = [r for r in rows if r.grade >= qthr]
    non = [r for r in rows if r.grade < qthr] if settings.attention_labels == "both" else []
    rng.shuffle(rel)
    rng.shuffle(non)
    picked = []
    while len(picked) < n and (rel or non):
        for pool in (rel, non):
            if pool and len(picked) < n:
                picked.append(pool.pop())
    for item in picked:
        store.add_task(item.qid, item.docid, "attention", 0, 0, now, expected_grade=item.grade)
    return len(picked)


# ---- serving ---------------------------------------------------------------------
def next_assignment(
    store, settings: AnnotateSettings, user_id: int, session_hash: str, now: Optional[float] = None
) -> Optional[Assignment]:
    """The case this annotator should judge now (leased to them), or None when nothing is left for them.

    A case already leased to the user comes back (a reload shows the same
    case); otherwise the first open case in priority order, cases skipped in
    this session last. Attention items are only mixed in while real work is
    left, so a finished annotator is not kept busy with checks alone, and only
    while this annotator's checks stay within the setting (:func:`check_due`).
    """
    now = time.time() if now is None else now
    with store.transaction():
        excluded = excluded_users(store, settings)
        due = check_due(store, settings, user_id)
        real, att = [], []
        for c in store.candidates(user_id, session_hash, excluded, now):
            if c.kind == "attention":
                if due or c.mine:
                    att.append(c)
            elif c.votes < c.votes_needed and (c.mine or c.votes + c.leased_to_others < c.votes_needed):
                real.append(c)
        if not real:
            return None
        pool = real + att
        mine = [c for c in pool if c.mine]
        if mine:
            chosen = min(mine, key=lambda c: (c.priority, c.qid, c.docid))
        else:
            fresh = [c for c in pool if c.skipped_at is None]
            chosen = (
                min(fresh, key=lambda c: (c.priority, c.qid, c.docid))
                if fresh
                else min(pool, key=lambda c: (c.skipped_at, c.priority, c.qid, c.docid))
            )
        store.lease(user_id, chosen.qid, chosen.docid, now, now + settings.lease_minutes * 60.0)
    return Assignment(chosen.qid, chosen.docid, chosen.kind)


def check_due(store, settings: AnnotateSettings, user_id: int) -> bool:
    """May this annotator be served a check as their next item?

    The share must hold per annotator: serving every check to everybody made
    checks 42 % of one annotator's items at a 10 % setting. So an annotator's
    checks never exceed ``attention`` of their items, rounded half up, with one
    check allowed from the start (as the queue holds at least one).
    """
    if settings.attention <= 0:
        return False
    items = store.vote_count(user_id) + 1
    return store.check_count(user_id) + 1 <= max(1, math.floor(settings.attention * items + 0.5))


def skip(store, user_id: int, session_hash: str, qid: str, docid: str, now: Optional[float] = None) -> bool:
    """Send a case to the back of this session's queue and free it for others; False if it is no task."""
    now = time.time() if now is None else now
    with store.transaction():
        if store.task(qid, docid) is None:
            return False
        store.skip_task(user_id, session_hash, qid, docid, now)
    return True


def progress(store, settings: AnnotateSettings, user_id: int) -> Progress:
    totals = store.task_totals()
    return Progress(
        voted=store.vote_count(user_id),
        remaining=store.remaining_for(user_id, excluded_users(store, settings)),
        decided=totals.decided,
        total=totals.total,
    )
