"""A judge killed with SIGKILL: its spend is recovered from the call cache and
the run is shown as interrupted (issue 17, item 2). A real `qrelkit judge`
subprocess against the fake OpenAI-compatible server of the judge CLI tests."""
from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from qrelkit.store import Store
from tests.judges.test_cli import log_lines, make_ws, qrelkit, server  # noqa: F401 (server is a fixture)


def _cached(ws) -> tuple[int, int, int]:
    with sqlite3.connect(ws / "qrelkit.sqlite") as c:
        return c.execute("SELECT COUNT(*), SUM(prompt_tokens), SUM(completion_tokens) FROM llm_calls").fetchone()


@pytest.fixture(scope="module")
def killed(server, tmp_path_factory):  # noqa: F811
    url, log = server
    ws = make_ws(tmp_path_factory.mktemp("killed") / "ws")
    n0 = len(log_lines(log))
    proc = subprocess.Popen([sys.executable, "-m", "qrelkit", "judge", "-w", str(ws), "--method", "debate",
                             "--model", f"openai:fake@{url}", "--concurrency", "2", "--json"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            with sqlite3.connect(ws / "qrelkit.sqlite", timeout=5) as c:
                if c.execute("SELECT COUNT(*) FROM judgments").fetchone()[0] >= 4:
                    break
        except sqlite3.Error:
            pass
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    received = len(log_lines(log)) - n0
    status = json.loads(qrelkit("status", "-w", str(ws), "--json").stdout)
    return ws, received, status


def test_status_counts_every_cached_call_of_the_killed_run(killed):
    ws, _, status = killed
    assert status["spent"]["calls"] == _cached(ws)[0]


@pytest.mark.parametrize("key,column", [("prompt_tokens", 1), ("completion_tokens", 2)])
def test_status_counts_the_killed_runs_tokens(killed, key, column):
    ws, _, status = killed
    assert status["spent"][key] == _cached(ws)[column]


def test_only_requests_in_flight_at_the_kill_are_missing(killed):
    _, received, status = killed
    assert 0 <= received - status["spent"]["calls"] <= 2 * 2  # concurrency 2, two agents per case


def test_the_killed_run_is_shown_as_interrupted(killed):
    _, _, status = killed
    assert status["commands"] == {"running": 0, "interrupted": 1}


def test_the_interrupted_record_says_its_totals_were_recovered(killed):
    ws, _, _ = killed
    with Store.open(ws) as s:
        (run,) = s.command_runs("judge")
    assert (run.status, run.totals["recovered_from_cache"]) == ("interrupted", True)


def test_a_running_command_is_not_marked_interrupted(tmp_path):
    with Store.create(tmp_path / "ws") as s:
        s.start_command("judge", {})
        s.reconcile_commands()
        assert [r.status for r in s.command_runs()] == ["running"]


def test_ctrl_c_records_the_judge_as_interrupted_with_its_spend(server, tmp_path):  # noqa: F811
    url, _ = server
    ws = make_ws(tmp_path / "ws")
    proc = subprocess.Popen([sys.executable, "-m", "qrelkit", "judge", "-w", str(ws), "--method", "debate",
                             "--model", f"openai:fake@{url}", "--concurrency", "1", "--json"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and _cached(ws)[0] < 2:  # make_ws created the database
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert "Traceback" not in err
    with Store.open(ws) as s:
        (run,) = s.command_runs("judge")
    assert run.status == "interrupted"
    assert run.usage.calls >= 2
