"""`qrelkit annotate ...` commands: users, settings, sync, export, serve."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import httpx
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from qrelkit.annotate import create_app, load_settings
from qrelkit.cli import app as cli
from qrelkit.store import Store

from .helpers import free_port

runner = CliRunner()


def run(*args: str) -> dict:
    r = runner.invoke(cli, ["annotate", *args, "--json"])
    assert r.exit_code == 0, (r.output, r.exception)
    return json.loads(r.stdout)


def qrelkit(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    r = subprocess.run([sys.executable, "-m", "qrelkit", *args], capture_output=True, text=True, timeout=timeout)
    r.stderr = " ".join(r.stderr.split())  # rich wraps long messages
    return r


def test_users_add_link_list_revoke(ws):
    out = run("users", "add", "ann", "--admin", "-w", str(ws), "--port", "8123")
    assert out["name"] == "ann" and out["login_url"] == f"http://127.0.0.1:8123/login?token={out['token']}"
    assert len(out["token"]) >= 40
    app = create_app(ws)
    try:
        c = TestClient(app, base_url="https://testserver")
        assert c.post("/login", data={"token": out["token"]}, follow_redirects=False).status_code == 303
        assert c.get("/api/session").json() == {"user": "ann", "is_admin": True, "csrf": c.get("/api/session").json()["csrf"]}
        again = run("users", "link", "ann", "-w", str(ws))
        c2 = TestClient(app, base_url="https://testserver")
        assert c2.post("/login", data={"token": again["token"]}, follow_redirects=False).status_code == 303
        users = run("users", "list", "-w", str(ws))["users"]
        assert users == [{"name": "ann", "is_admin": True, "revoked": False, "link_pending": False, "votes": 0}]
        assert run("users", "revoke", "ann", "-w", str(ws)) == {"name": "ann", "revoked": True}
        assert c.get("/api/session").status_code == 401 and c2.get("/api/session").status_code == 401
        assert run("users", "list", "-w", str(ws))["users"][0]["revoked"] is True
    finally:
        app.state.store.close()


def test_settings_change_and_resync(ws):
    s = run("settings", "-w", str(ws))
    assert (s["votes"], s["attention"], s["hide_history"], s["exclude_failed"]) == (3, 0.1, False, True)
    s = run("settings", "-w", str(ws), "--hide-history", "--votes", "5", "--attention", "0.2", "--keep-failed")
    assert (s["votes"], s["attention"], s["hide_history"], s["exclude_failed"]) == (5, 0.2, True, False)
    with Store.open(ws) as store:
        assert load_settings(store).hide_history is True
        assert {n for (n,) in store.query("SELECT votes_needed FROM annot_tasks WHERE kind != 'attention'")} == {5}
    s = run("settings", "-w", str(ws), "--show-history", "--exclude-failed")
    assert (s["hide_history"], s["exclude_failed"]) == (False, True)
    r = run("sync", "-w", str(ws))
    assert (r["escalations"], r["people"], r["added"]) == (2, 4, 0)


def test_export_writes_votes_and_decided_qrels(ws, annotator, tmp_path):
    users = [annotator(n) for n in "abc"]
    for x, g in zip(users, (2, 3, 2)):
        x.next()
        assert x.vote("q1", "d1", g, comment="c,\"q\"").status_code == 200
    users[0].next()
    users[0].vote("q2", "d2", 1)
    out = run("export", "-w", str(ws), "--out", str(tmp_path / "exp"))
    assert (out["votes"], out["decided"], out["attention_votes"], out["excluded_votes"]) == (4, 1, 0, 0)
    lines = [json.loads(x) for x in (tmp_path / "exp" / "votes.jsonl").read_text().splitlines()]
    assert [(v["annotator"], v["qid"], v["docid"], v["grade"]) for v in lines] == [
        ("a", "q1", "d1", 2), ("b", "q1", "d1", 3), ("c", "q1", "d1", 2), ("a", "q2", "d2", 1)]
    assert lines[0]["comment"] == 'c,"q"' and lines[0]["history_shown"] is True and lines[0]["kind"] == "escalation"
    assert (tmp_path / "exp" / "decided.qrels").read_text() == "q1 0 d1 2\n"


def test_user_errors_exit_2(ws, tmp_path):
    r = qrelkit("annotate", "users", "add", "ann", "-w", str(tmp_path / "nowhere"))
    assert r.returncode == 2 and "not a qrelkit workspace" in r.stderr
    assert qrelkit("annotate", "users", "add", "ann", "-w", str(ws)).returncode == 0
    r = qrelkit("annotate", "users", "add", "ann", "-w", str(ws))
    assert r.returncode == 2 and "exists" in r.stderr and "Traceback" not in r.stderr
    r = qrelkit("annotate", "users", "revoke", "nobody", "-w", str(ws))
    assert r.returncode == 2 and "no user" in r.stderr
    r = qrelkit("annotate", "settings", "-w", str(ws), "--votes", "0")
    assert r.returncode == 2 and "votes" in r.stderr
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        r = qrelkit("annotate", "serve", "-w", str(ws), "--port", str(busy.getsockname()[1]))
    assert r.returncode == 2 and "cannot listen" in r.stderr


def test_serve_syncs_and_serves_until_stopped(tmp_path):
    from .helpers import build_workspace

    ws = build_workspace(tmp_path / "ws")
    port = free_port()
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "qrelkit", "annotate", "serve", "-w", str(ws), "--port", str(port), "--votes", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.communicate()
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/api/session", timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "server did not come up"
                time.sleep(0.2)
        assert r.status_code == 401
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert "2 escalations, 4 people's share" in err and "no annotators yet" in err
    with Store.open(ws) as s:
        assert load_settings(s).votes == 2
        assert {n for (n,) in s.query("SELECT votes_needed FROM annot_tasks WHERE kind != 'attention'")} == {2}
