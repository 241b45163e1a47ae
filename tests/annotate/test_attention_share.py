"""Attention checks hold their configured share for every annotator, not only overall.

Thirty simulated annotators share 100 people's cases (3 votes each) with the
default 10 % setting. Every check used to be served to every annotator, so
one who judged ten cases also answered all eleven checks (over 50 %); a check
is now served only while the annotator's checks stay within the setting
(rounded half up, and one from the start).
"""
from __future__ import annotations

import math

import pytest

from qrelkit.annotate import sync_tasks
from qrelkit.annotate.settings import load_settings
from qrelkit.annotate.tasks import next_assignment
from qrelkit.annotate.votes import cast_vote
from qrelkit.store import Store
from qrelkit.types import Qrel

from .helpers import add_login, build_load_workspace

N_ANNOTATORS = 30
N_CASES = 100
SHARE = 0.1


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """{annotator: (items answered, checks among them)} after the queue ran dry."""
    ws = build_load_workspace(tmp_path_factory.mktemp("att") / "ws", N_CASES + 60)
    with Store.open(ws) as s:
        # 60 documents with known labels, outside the pool: the attention checks are drawn from them
        s.remove_cases_except({(c.qid, c.docid) for c in s.cases() if int(c.docid[1:]) < N_CASES})
        s.upsert_qrels(Qrel("t1", f"L{i}", 3 * (i % 2)) for i in range(N_CASES, N_CASES + 60))
        sync_tasks(s, votes_needed=3, attention_share=SHARE)
        settings = load_settings(s)
        for i in range(N_ANNOTATORS):
            add_login(s, f"sim{i:02d}")
        users = [a.id for a in s.annotators()]
        counts = {u: [0, 0] for u in users}
        active = set(users)
        while active:
            for uid in sorted(active):
                a = next_assignment(s, settings, uid, f"session-{uid}")
                if a is None:
                    active.discard(uid)
                    continue
                task = s.task(a.qid, a.docid)
                grade = task.expected_grade if task.kind == "attention" else 1
                cast_vote(s, settings, uid, a.qid, a.docid, grade)
                counts[uid][0] += 1
                counts[uid][1] += task.kind == "attention"
        yield {u: tuple(c) for u, c in counts.items()}


def test_every_case_was_decided(served):
    assert sum(v - c for v, c in served.values()) == 3 * N_CASES


def test_checks_stay_within_the_setting_for_every_annotator(served):
    over = {u: (v, c) for u, (v, c) in served.items() if c > max(1, math.floor(SHARE * v + 0.5))}
    assert over == {}


def test_checks_overall_stay_near_the_setting(served):
    items = sum(v for v, _ in served.values())
    checks = sum(c for _, c in served.values())
    assert checks / items <= SHARE + 0.02


def test_every_annotator_met_a_check(served):
    assert all(c >= 1 for _, c in served.values())
