"""Behaviour that only a real server shows: streamed bodies, cookies over plain HTTP."""
from __future__ import annotations

import httpx
import pytest

from qrelkit.annotate import create_app, sync_tasks
from qrelkit.annotate.auth import SESSION_COOKIE
from qrelkit.store import Store

from .helpers import ServerThread, add_login, build_workspace


@pytest.fixture
def live(tmp_path):
    ws = build_workspace(tmp_path / "ws")
    with Store.open(ws) as s:
        sync_tasks(s)
        token = add_login(s, "ann")
    server = ServerThread(create_app(ws)).start()
    try:
        yield ws, server.url, token
    finally:
        server.stop()


def test_streamed_body_over_the_limit_is_refused_by_uvicorn(live):
    ws, url, token = live
    with httpx.Client(base_url=url, timeout=60) as anon:
        r = anon.post("/login", data={"token": token}, follow_redirects=False)
        assert r.status_code == 303
        sid = r.cookies[SESSION_COOKIE]
    with httpx.Client(base_url=url, timeout=60, cookies={SESSION_COOKIE: sid}) as c:
        csrf = c.get("/api/session").json()["csrf"]

        def chunks():
            for _ in range(40):
                yield b" " * 4096

        r = c.post("/api/vote", content=chunks(), headers={"X-CSRF-Token": csrf, "Content-Type": "application/json"})
        assert r.status_code == 413
        assert "content-length" not in {k.lower() for k in r.request.headers}  # really streamed
        r = c.post("/api/vote", content=b"0" * 70_000,
                   headers={"X-CSRF-Token": csrf, "Content-Type": "application/json"})
        assert r.status_code == 413
        # the server is still fine afterwards
        c.get("/api/next")
        r = c.post("/api/vote", json={"qid": "q1", "docid": "d1", "grade": 2}, headers={"X-CSRF-Token": csrf})
        assert r.status_code == 200, r.text
    with Store.open(ws) as s:
        assert s.query("SELECT COUNT(*) FROM annot_votes")[0][0] == 1


def test_secure_cookie_is_not_sent_back_by_plain_http_clients(live):
    """Why scripts hand the cookie over themselves (see app.py): httpx keeps Secure cookies for https."""
    _, url, token = live
    with httpx.Client(base_url=url, timeout=60, follow_redirects=True) as c:
        r = c.post("/login", data={"token": token})
        assert r.status_code == 401  # redirected to / without the cookie
        assert "secure" in r.history[0].headers["set-cookie"].lower()


def test_annotator_client_drives_people_over_plain_http(live):
    from qrelkit.annotate.client import AnnotatorClient
    from qrelkit.errors import BackendError

    ws, url, token = live
    with AnnotatorClient(url, token) as ann:
        assert (ann.user, ann.is_admin) == ("ann", False)
        case = ann.next()
        assert (case["qid"], case["docid"], case["kind"]) == ("q1", "d1", "escalation")
        assert ann.vote("q1", "d1", 2, comment="sim", seconds=3.0).status_code == 200
        assert ann.vote("q1", "d1", 2).status_code == 409
        assert ann.skip("q2", "d2").status_code == 200
        assert ann.progress()["voted"] == 1
        n = 0
        while (case := ann.next()) is not None and n < 20:
            n += 1
            assert ann.vote(case["qid"], case["docid"], case["grades"][0]["grade"]).status_code == 200
        assert ann.next() is None
    with pytest.raises(BackendError, match="login refused"):
        AnnotatorClient(url, token)  # the link was used
    with pytest.raises(BackendError, match="unreachable"):
        AnnotatorClient("http://127.0.0.1:9", "x")
