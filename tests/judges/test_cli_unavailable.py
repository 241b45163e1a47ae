"""A model server that cannot be used stops `qrelkit judge` with exit 3 and what to fix
(issue 24, point 1), and a server that dies mid-run leaves nothing waiting for people: the
same command, once the server is back, finishes the job with no error verdicts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fakeserver import free_port, serve

from qrelkit.store import Store

from .test_cli import make_ws, qrelkit


def judged(ws: Path) -> list:
    with Store.open(ws) as s:
        return list(s.judgments())


def run_judge(ws: Path, model: str, env: dict | None = None, *extra: str):
    environ = {k: v for k, v in os.environ.items() if k not in ("QRELKIT_API_KEY", "OPENAI_API_KEY")}
    return subprocess.run(
        [sys.executable, "-m", "qrelkit", "judge", "-w", str(ws), "--method", "debate", "--model", model,
         "--json", *extra],
        capture_output=True, text=True, env=dict(environ, PYTHONUNBUFFERED="1", **(env or {})), timeout=300,
    )


def test_a_port_where_nothing_listens_exits_3_saying_the_server_is_not_running(tmp_path):
    url = f"http://127.0.0.1:{free_port()}/v1"
    r = run_judge(make_ws(tmp_path / "ws"), f"openai:fake@{url}")
    assert r.returncode == 3, r.stderr
    assert f"nothing answers at {url} — is the server running?" in r.stderr


def test_nothing_is_stored_when_nothing_listens(tmp_path):
    ws = make_ws(tmp_path / "ws")
    run_judge(ws, f"openai:fake@http://127.0.0.1:{free_port()}/v1")
    assert judged(ws) == []


def test_the_message_is_one_line_without_a_traceback(tmp_path):
    r = run_judge(make_ws(tmp_path / "ws"), f"openai:fake@http://127.0.0.1:{free_port()}/v1")
    assert "Traceback" not in r.stderr


# (server options, what the spec's URL adds to the server's http://127.0.0.1:PORT, model, what stderr says)
REFUSALS = [
    pytest.param((), "", "fake", "404 at {root}/chat/completions — does the URL end in /v1?", id="no-v1"),
    pytest.param(("--api-key", "sesame"), "/v1", "fake", "401 at {root}/v1/models — set QRELKIT_API_KEY",
                 id="key"),
    pytest.param(("--strict-model",), "/v1", "llama-70b",
                 "model 'llama-70b' is not served at {root}/v1; it serves: fake", id="model"),
]


@pytest.mark.parametrize("options, suffix, model, message", REFUSALS)
def test_a_server_that_refuses_exits_3_saying_what_to_fix(tmp_path, options, suffix, model, message):
    log = tmp_path / "requests.log"
    with serve("judges.fake_openai", log, options=options) as url:
        root = url[: -len("/v1")]
        r = run_judge(make_ws(tmp_path / "ws"), f"openai:{model}@{root}{suffix}")
    assert r.returncode == 3, r.stderr
    assert message.format(root=root) in r.stderr


@pytest.mark.parametrize("options, suffix, model, message", REFUSALS)
def test_a_refusing_server_judges_nothing(tmp_path, options, suffix, model, message):
    log = tmp_path / "requests.log"
    log.write_text("")
    ws = make_ws(tmp_path / "ws")
    with serve("judges.fake_openai", log, options=options) as url:
        run_judge(ws, f"openai:{model}@{url[: -len('/v1')]}{suffix}")
    assert judged(ws) == []


def test_the_right_key_is_accepted(tmp_path):
    log = tmp_path / "requests.log"
    with serve("judges.fake_openai", log, options=("--api-key", "sesame")) as url:
        r = run_judge(make_ws(tmp_path / "ws", n=3), f"openai:fake@{url}", {"QRELKIT_API_KEY": "sesame"})
    assert r.returncode == 0, r.stderr


def test_a_wrong_key_says_to_set_one_it_accepts(tmp_path):
    log = tmp_path / "requests.log"
    with serve("judges.fake_openai", log, options=("--api-key", "sesame")) as url:
        r = run_judge(make_ws(tmp_path / "ws", n=3), f"openai:fake@{url}", {"QRELKIT_API_KEY": "wrong"})
    assert "set QRELKIT_API_KEY to a key it accepts" in r.stderr


@pytest.fixture(scope="module")
def died_mid_run(tmp_path_factory):
    """A workspace of 40 cases judged against a server that ends itself after 12 chat completions;
    then the result of the run and the port the server was on. One run for the module's tests
    (8 s each otherwise); they only read it, except the last, which continues it."""
    tmp_path = tmp_path_factory.mktemp("died")
    ws = make_ws(tmp_path / "ws", n=40)
    port = free_port()
    log = tmp_path / "requests.log"
    log.write_text("")
    with serve("judges.fake_openai", log, port=port, options=("--die-after", "12")) as url:
        r = run_judge(ws, f"openai:fake@{url}", None, "--concurrency", "8")
    return ws, port, log, r


def test_a_server_that_dies_mid_run_stops_the_job_with_exit_3(died_mid_run):
    _, _, _, r = died_mid_run
    assert r.returncode == 3, r.stderr


def test_the_stop_says_the_server_stopped_answering(died_mid_run):
    _, _, _, r = died_mid_run
    assert "calls in a row got no answer" in r.stderr


def test_the_stop_says_how_to_continue(died_mid_run):
    _, _, _, r = died_mid_run
    assert "run the same command to continue" in r.stderr


def test_a_dead_server_leaves_no_error_verdicts(died_mid_run):
    ws, _, _, _ = died_mid_run
    assert [j for j in judged(ws) if j.status == "error"] == []


def test_a_dead_server_leaves_nothing_waiting_for_people(died_mid_run):
    ws, _, _, _ = died_mid_run
    r = qrelkit("escalations", "-w", str(ws), "--json")
    assert [e for e in json.loads(r.stdout)["escalations"] if e["status"] == "error"] == []


def test_the_same_command_with_the_server_back_finishes_with_no_errors(died_mid_run):
    ws, port, log, _ = died_mid_run
    with serve("judges.fake_openai", log, port=port) as url:
        r = run_judge(ws, f"openai:fake@{url}", None, "--concurrency", "8")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["errors"] == 0
    assert len(judged(ws)) == 40


def test_fill_where_nothing_listens_exits_3_and_leaves_nothing_for_people(tmp_path):
    from test_fill_people import _collection

    ws = tmp_path / "ws"
    url = f"http://127.0.0.1:{free_port()}/v1"
    r = subprocess.run([sys.executable, "-m", "qrelkit", "fill", "-w", str(ws), *map(str, _collection(tmp_path / "c")),
                        "--method", "debate(rounds=2)", "--model", f"openai:fake@{url}", "--json"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 3, r.stderr
    assert f"nothing answers at {url}" in r.stderr
    assert qrelkit("escalations", "-w", str(ws), "--json").stdout.count('"status"') == 0
