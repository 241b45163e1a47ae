"""JSON text that is not valid Unicode is a 400, not a 500 (issue 45, point 13).

``"\\ud800"`` is valid JSON that Python decodes into a lone surrogate, which fails only when it
is stored or encoded: the app answered 500 with a ``UnicodeEncodeError`` traceback in its log.
Through `qrelkit annotate serve` over real HTTP: the vote and the skip are refused, nothing is
stored, the log holds no traceback, and the annotator goes on voting.
"""
from __future__ import annotations

import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from qrelkit.annotate import sync_tasks
from qrelkit.annotate.client import AnnotatorClient
from qrelkit.store import Store

from .helpers import add_login, build_workspace, free_port

BAD = "bad \\ud800 x"  # the JSON escape, as the bytes on the wire spell it


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A served workspace, one annotator's client, the server's log file."""
    tmp = tmp_path_factory.mktemp("unicode")
    ws = build_workspace(tmp / "ws")
    with Store.open(ws) as s:
        sync_tasks(s)
        token = add_login(s, "ann")
    log = tmp / "server.log"
    port = free_port()
    with open(log, "w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "qrelkit", "annotate", "serve", "-w", str(ws), "--host",
                                 "127.0.0.1", "--port", str(port)], stdout=err, stderr=err)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            try:
                urllib.request.urlopen(url + "/static/annotate.css", timeout=1).read()
                break
            except OSError:
                if time.time() > deadline or proc.poll() is not None:
                    raise
                time.sleep(0.1)
        yield ws, AnnotatorClient(url, token), log
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()


def post(client: AnnotatorClient, path: str, body: str):
    return client._http.post(path, content=body.encode("ascii"),
                             headers={"X-CSRF-Token": client._csrf, "Content-Type": "application/json"})


def bodies(qid: str, docid: str) -> list[tuple[str, str]]:
    return [
        ("/api/vote", f'{{"qid": "{qid}", "docid": "{docid}", "grade": 2, "comment": "{BAD}"}}'),
        ("/api/vote", f'{{"qid": "{BAD}", "docid": "{docid}", "grade": 2}}'),
        ("/api/vote", f'{{"qid": "{qid}", "docid": "{BAD}", "grade": 2}}'),
        ("/api/skip", f'{{"qid": "{BAD}", "docid": "{docid}"}}'),
        ("/api/skip", f'{{"qid": "{qid}", "docid": "{BAD}"}}'),
    ]


@pytest.fixture(scope="module")
def refused(served):
    ws, client, log = served
    case = client.next()
    answers = [post(client, path, body) for path, body in bodies(case["qid"], case["docid"])]
    return ws, client, log, case, answers


@pytest.mark.parametrize("i", range(5), ids=["comment", "vote-qid", "vote-docid", "skip-qid", "skip-docid"])
def test_a_lone_surrogate_is_a_400(refused, i):
    assert refused[4][i].status_code == 400


def test_the_answer_says_the_body_is_not_valid_unicode(refused):
    assert refused[4][0].json()["error"] == "body is not valid Unicode: invalid Unicode (lone surrogate \\ud800)"


def test_nothing_is_stored(refused):
    ws, _, _, case, _ = refused
    with Store.open(ws) as s:
        assert s.votes_for(case["qid"], case["docid"]) == []


def test_the_server_log_has_no_traceback(refused):
    _, _, log, _, _ = refused
    assert "Traceback" not in log.read_text()


def test_the_annotator_votes_on_afterwards(refused):
    _, client, _, case, _ = refused
    assert client.vote(case["qid"], case["docid"], 2, comment="fine").status_code == 200


def test_a_valid_escape_pair_is_taken(served):
    """A surrogate pair spells a real character (U+1F600): that is valid Unicode."""
    ws, client, _ = served
    case = client.next()
    r = post(client, "/api/vote", f'{{"qid": "{case["qid"]}", "docid": "{case["docid"]}", "grade": 1, '
                                  '"comment": "ok \\ud83d\\ude00"}')
    assert r.status_code == 200, r.text
    with Store.open(ws) as s:
        assert [v.comment for v in s.votes_for(case["qid"], case["docid"])] == ["ok \U0001F600"]

