"""The main job as a user lives it, through the real CLI and a scripted OpenAI-compatible server on
127.0.0.1: pairs without document text are counted once and never sent to people; a `--limit`
leaves the job `partial` (not `done`) with what is left per reason; progress reaches a file, not
only a terminal; Ctrl-C and SIGTERM say how far the job got, exit 130, and the same command
continues with only the unfinished cases judged.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fakeserver import serve
from test_fill_people import qk

DEBATE = "debate(rounds=1)"


def calls(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def collection(d: Path, n: int = 6, missing: int = 0) -> list:
    """One topic, ``n`` holes the debate agents agree on, and ``missing`` pooled documents whose
    text is not in the docs file (as most of DL'19's post-hoc holes)."""
    d.mkdir()
    (d / "topics.jsonl").write_text(json.dumps({"qid": "1", "text": "what is a passage"}) + "\n")
    docs = {"a": "old judged doc agree3", **{f"d{i}": f"passage {i} agree3" for i in range(n)}}
    (d / "docs.jsonl").write_text("".join(json.dumps({"docid": k, "text": v}) + "\n" for k, v in docs.items()))
    (d / "qrels.txt").write_text("1 0 a 2\n")
    ranked = [*docs, *(f"gone{i}" for i in range(missing))]
    (d / "run.txt").write_text("".join(f"1 Q0 {k} {i} {100 - i} sys\n" for i, k in enumerate(ranked, 1)))
    return ["--topics", d / "topics.jsonl", "--docs", d / "docs.jsonl", "--qrels", d / "qrels.txt",
            "--runs", d / "run.txt", "--depth", "50"]


@pytest.fixture
def server(tmp_path):
    log = tmp_path / "requests.log"
    with serve("judges.fake_openai", log) as url:
        yield f"openai:fake@{url}", log


@pytest.fixture
def slow_server(tmp_path):
    log = tmp_path / "slow.log"
    with serve("judges.fake_openai", log, delay=0.4) as url:
        yield f"openai:fake@{url}", log


# ------------------------------------------------------------------------ no document text
@pytest.fixture
def no_text(server, tmp_path):
    model, log = server
    ws = tmp_path / "ws"
    p = qk("fill", "-w", ws, *collection(tmp_path / "c", n=3, missing=2), "--method", DEBATE, "--model", model,
           "--json")
    return ws, json.loads(p.stdout), p.stderr, log


def test_pairs_without_text_are_said_at_once_and_how_to_list_them(no_text):
    ws, _, stderr, _ = no_text
    assert "2 pooled pairs have no document text" in stderr
    assert f"qrelkit status -w {ws} --missing-text" in stderr


def test_pairs_without_text_are_not_judged_nor_sent_to_people(no_text):
    _, out, _, log = no_text
    assert out["judge"]["cases"] == 3
    assert out["judge"]["no_text"] == 2
    assert out["judge"]["errors"] == 0
    assert out["people"]["waiting"] == 0
    assert calls(log) == 2 * 3


def test_pairs_without_text_are_counted_once_under_their_own_reason(no_text):
    ws, out, _, _ = no_text
    assert out["state"] == "partial"
    assert out["left"] == {"no_text": 2}
    status = json.loads(qk("status", "-w", ws, "--json").stdout)
    assert status["cases"]["no_text"] == 2
    assert status["escalations_waiting"] == 0


def test_status_lists_the_pairs_without_text(no_text):
    ws, _, _, _ = no_text
    listed = json.loads(qk("status", "-w", ws, "--missing-text", "--json").stdout)
    assert listed["missing_text"] == [["1", "gone0"], ["1", "gone1"]]


# ------------------------------------------------------------------------ states
def test_a_limit_leaves_the_job_partial_and_says_what_to_run(server, tmp_path):
    model, _ = server
    ws = tmp_path / "ws"
    out = json.loads(qk("fill", "-w", ws, *collection(tmp_path / "c", n=6), "--method", DEBATE, "--model", model,
                        "--limit", "2", "--json").stdout)
    assert out["state"] == "partial"
    assert out["left"] == {"limit": 4}
    assert "--limit N` with a larger N" in out["message"]


def test_raising_the_limit_finishes_the_job(server, tmp_path):
    model, log = server
    ws = tmp_path / "ws"
    qk("fill", "-w", ws, *collection(tmp_path / "c", n=6), "--method", DEBATE, "--model", model, "--limit", "2")
    out = json.loads(qk("fill", "-w", ws, "--limit", "100", "--json").stdout)
    assert out["state"] == "done"
    assert out["left"] == {}
    assert calls(log) == 2 * 6


def test_a_dead_server_ends_partial_with_errors_not_done(tmp_path):
    ws = tmp_path / "ws"
    p = qk("fill", "-w", ws, *collection(tmp_path / "c", n=2), "--method", DEBATE,
           "--model", "openai:fake@http://127.0.0.1:9/v1", "--auto", "--json", check=False)
    assert "Traceback" not in p.stderr
    if p.returncode == 0:  # a job that could not reach its model never says done
        assert json.loads(p.stdout)["state"] != "done"
    else:
        assert p.returncode in (2, 3)


# ------------------------------------------------------------------------ progress, interrupts
def start(args: list, log_path: Path) -> subprocess.Popen:
    env = {**os.environ, "QRELKIT_PROGRESS_SECONDS": "0.5"}
    return subprocess.Popen([sys.executable, "-m", "qrelkit", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=open(log_path, "w"), env=env, text=True)


def wait_for_calls(log: Path, n: int, seconds: float = 90) -> None:
    deadline = time.time() + seconds
    while calls(log) < n and time.time() < deadline:
        time.sleep(0.1)
    assert calls(log) >= n


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_an_interrupted_fill_says_how_far_it_got_and_the_same_command_continues(slow_server, tmp_path, sig):
    model, log = slow_server
    ws = tmp_path / "ws"
    args = ["fill", "-w", ws, *collection(tmp_path / "c", n=12), "--method", DEBATE, "--model", model,
            "--concurrency", "1", "--json"]
    err = tmp_path / "stderr.txt"
    proc = start(args, err)
    wait_for_calls(log, 6)
    proc.send_signal(sig)
    proc.communicate(timeout=120)
    text = err.read_text()
    assert proc.returncode == 130
    assert "interrupted after" in text
    assert "of 12 cases" in text
    assert "run the same command to continue" in text
    assert "Traceback" not in text
    status = json.loads(qk("status", "-w", ws, "--json").stdout)
    judged = sum(m["judgments"] for m in status["methods"] if m["method"].startswith("debate"))
    assert 0 < judged < 12
    before = calls(log)
    done = json.loads(qk(*args).stdout)
    assert done["state"] == "done"
    assert done["judge"]["judged"] == 12
    # only the unfinished cases reach the server (a call answered while stopping is in the cache)
    assert 2 * (12 - judged) - 2 <= calls(log) - before <= 2 * (12 - judged)


def test_progress_reaches_a_file_every_few_seconds_and_names_the_stages(slow_server, tmp_path):
    model, _ = slow_server
    ws = tmp_path / "ws"
    err = tmp_path / "stderr.txt"
    proc = start(["fill", "-w", ws, *collection(tmp_path / "c", n=6), "--method", DEBATE, "--model", model,
                  "--concurrency", "1"], err)
    proc.communicate(timeout=300)
    text = err.read_text()
    assert proc.returncode == 0, text
    assert "reading the collection" in text
    assert "pooling the runs" in text
    assert text.count("judging 6 cases") == 1  # a stage is named once, when it starts
    assert "merging the labels" in text
    lines = [line for line in text.splitlines() if line.startswith("judging: ")]
    assert len(lines) >= 2
    assert "6/6 cases" in lines[-1]
    assert "cases/s" in lines[-1]
