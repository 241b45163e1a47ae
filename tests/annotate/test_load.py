"""50 simulated annotators voting at once against a real server over HTTP.

Every accepted vote must be stored exactly once, every refused one not at
all, and every case must end with exactly N votes and a decision, even though
each annotator double-submits every vote and also fires votes at cases that
are not theirs.
"""
from __future__ import annotations

import asyncio
import random
from collections import Counter

import httpx
import pytest

from qrelkit.annotate import create_app, sync_tasks
from qrelkit.annotate.auth import SESSION_COOKIE
from qrelkit.store import Store

from .helpers import ServerThread, add_login, build_load_workspace

N_ANNOTATORS = 50
N_CASES = 40
VOTES = 3


@pytest.fixture
def live(tmp_path):
    ws = build_load_workspace(tmp_path / "ws", N_CASES)
    with Store.open(ws) as s:
        r = sync_tasks(s, votes_needed=VOTES, attention_share=0.0)
        assert r.people == N_CASES
        tokens = [add_login(s, f"sim{i:02d}") for i in range(N_ANNOTATORS)]
    server = ServerThread(create_app(ws)).start()
    try:
        yield ws, server.url, tokens
    finally:
        server.stop()


async def annotator(url: str, token: str, seed: int, case_ids: list[tuple[str, str]], log: list) -> int:
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=url, timeout=120) as anon:
        r = await anon.post("/login", data={"token": token}, follow_redirects=False)
        assert r.status_code == 303, r.text
        sid = r.cookies[SESSION_COOKIE]
    # httpx keeps Secure cookies for https only: hand the session cookie over explicitly
    async with httpx.AsyncClient(base_url=url, timeout=120, cookies={SESSION_COOKIE: sid}) as c:
        csrf = (await c.get("/api/session")).json()["csrf"]
        h = {"X-CSRF-Token": csrf}
        for _ in range(4 * N_CASES):  # bounded: an annotator can vote at most once per case
            case = (await c.get("/api/next")).json()
            if case["done"]:
                return 0
            qid, docid = case["qid"], case["docid"]
            grades = [g["grade"] for g in case["grades"]]
            a, b = rng.choice(grades), rng.choice(grades)
            # the same vote sent twice at once (double click, retry): one must win, one must be refused
            r1, r2 = await asyncio.gather(
                c.post("/api/vote", json={"qid": qid, "docid": docid, "grade": a}, headers=h),
                c.post("/api/vote", json={"qid": qid, "docid": docid, "grade": b}, headers=h),
            )
            log.append((seed, qid, docid, (r1.status_code, a), (r2.status_code, b)))
            if rng.random() < 0.3:  # a vote at somebody else's case
                fq, fd = rng.choice(case_ids)
                r = await c.post("/api/vote", json={"qid": fq, "docid": fd, "grade": 0}, headers=h)
                assert r.status_code in (200, 409), r.text
                log.append((seed, fq, fd, (r.status_code, 0), None))
        return 1  # ran out of iterations: a bug


def test_fifty_concurrent_annotators(live):
    ws, url, tokens = live
    with Store.open(ws) as s:
        case_ids = [(q, d) for q, d in s.query("SELECT qid, docid FROM annot_tasks ORDER BY qid, docid")]
        users = dict(s.query("SELECT name, id FROM annot_users"))
    log: list = []

    async def main():
        return await asyncio.gather(*(annotator(url, t, i, case_ids, log) for i, t in enumerate(tokens)))

    stuck = asyncio.run(asyncio.wait_for(main(), timeout=600))
    assert sum(stuck) == 0

    accepted = Counter()
    for seed, qid, docid, first, second in log:
        codes = [first[0]] + ([second[0]] if second else [])
        if second is not None:
            assert sorted(codes) == [200, 409], (qid, docid, codes)  # exactly one of the pair
        for code, grade in (first, second) if second else (first,):
            assert code in (200, 409)
            if code == 200:
                accepted[(seed, qid, docid, grade)] += 1

    with Store.open(ws) as s:
        rows = s.query("SELECT u.name, v.qid, v.docid, v.grade FROM annot_votes v JOIN annot_users u ON u.id=v.user_id")
        per_case = Counter((q, d) for _, q, d, _ in rows)
        decided = s.query("SELECT COUNT(*) FROM annot_tasks WHERE decided=1")[0][0]
        labels = s.query("SELECT COUNT(*) FROM judgments WHERE method='people' AND status='human'")[0][0]
        needed = {n for (n,) in s.query("SELECT votes_needed FROM annot_tasks")}
        leases = s.query("SELECT COUNT(*) FROM annot_leases")[0][0]
    stored = Counter((int(n[3:]), q, d, g) for n, q, d, g in rows)
    assert stored == accepted  # every accepted vote stored once, nothing else stored
    assert len(rows) == N_CASES * VOTES
    assert set(per_case.values()) == {VOTES} and len(per_case) == N_CASES
    assert len({(n, q, d) for n, q, d, _ in rows}) == len(rows)  # one vote per annotator and case
    assert decided == labels == N_CASES and needed == {VOTES}
    assert leases == 0
    assert len(users) == N_ANNOTATORS
