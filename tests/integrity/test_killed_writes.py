"""A kill mid-write loses nothing (issue 25): real `qrelkit export` and `qrelkit init`
subprocesses, killed with SIGKILL while they write.

- export: the old QRELS and QRELS.provenance.jsonl exist; after the kill each is the old file
  or the new one, whole (it used to be the first 15% of the new one, on a line boundary).
- init: a load killed half-way is shown by `status`, every command that reads the collection
  refuses it (exit 2, one line), and running init again completes it.
"""
from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from qrelkit.data.atomic import TMP_SUFFIX
from tests.integrity.cli import assert_user_error, qk

LABELS = 200_000  # about 10 s of export on the shared 2-core machine: a wide window to kill in
DOCS = 300_000
INTERRUPTED = "loading interrupted: run init again"


def _kill_when(proc: subprocess.Popen, ready, timeout: float = 120) -> bool:
    """SIGKILL ``proc`` as soon as ``ready()``; True when it was still running then."""
    deadline = time.time() + timeout
    while time.time() < deadline and proc.poll() is None and not ready():
        time.sleep(0.005)
    running = proc.poll() is None
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    return running


def _qrelkit(*args: object) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "qrelkit", *map(str, args)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


# ---- export ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("killed-export")
    (tmp / "topics.tsv").write_text("".join(f"q{i}\tquery {i}\n" for i in range(1000)))
    (tmp / "docs.tsv").write_text("d0\ttext\n")
    (tmp / "qrels.txt").write_text("".join(f"q{i % 1000} 0 d{i} {i % 3}\n" for i in range(LABELS)))
    ws = tmp / "ws"
    p = qk("init", "-w", ws, "--topics", tmp / "topics.tsv", "--docs", tmp / "docs.tsv", "--qrels", tmp / "qrels.txt")
    assert p.returncode == 0, p.stderr
    full = tmp / "full" / "qrels.txt"
    p = qk("export", "-w", ws, "--out", full)
    assert p.returncode == 0, p.stderr
    out_dir = tmp / "out"
    out_dir.mkdir()
    out = out_dir / "qrels.txt"
    side = out_dir / "qrels.txt.provenance.jsonl"
    out.write_text("qold 0 dold 1\n")  # the export before: another, complete file
    side.write_text('{"qid": "qold"}\n')
    old_mtime = out.stat().st_mtime_ns

    def writing() -> bool:  # a temporary file with bytes in it, or (without atomic writes) the target touched
        temps = [f for f in out_dir.iterdir() if f.name.endswith(TMP_SUFFIX) and f.stat().st_size > 0]
        return bool(temps) or out.stat().st_mtime_ns != old_mtime

    running = _kill_when(_qrelkit("export", "-w", ws, "--out", out), writing)
    after = {"qrels": out.read_bytes(), "provenance": side.read_bytes()}
    left = sorted(f.name for f in out_dir.iterdir() if f.name.endswith(TMP_SUFFIX))
    return {"ws": ws, "full": full, "out": out, "running": running, "after": after, "left": left,
            "old": {"qrels": b"qold 0 dold 1\n", "provenance": b'{"qid": "qold"}\n'},
            "new": {"qrels": full.read_bytes(),
                    "provenance": full.with_name("qrels.txt.provenance.jsonl").read_bytes()}}


def test_the_export_was_killed_while_it_wrote(exported):
    assert exported["running"]


@pytest.mark.parametrize("which", ["qrels", "provenance"])
def test_after_the_kill_each_output_is_the_old_file_or_the_new_one(exported, which):
    assert exported["after"][which] in (exported["old"][which], exported["new"][which])


def test_the_killed_export_left_its_temporary_file_not_a_part_under_the_name(exported):
    assert len(exported["left"]) >= 1


def test_the_next_export_writes_the_new_file_and_removes_the_stale_temporary_one(exported):
    p = qk("export", "-w", exported["ws"], "--out", exported["out"])
    assert p.returncode == 0, p.stderr
    left = [f for f in exported["out"].parent.iterdir() if f.name.endswith(TMP_SUFFIX)]
    assert (exported["out"].read_bytes() == exported["new"]["qrels"], left) == (True, [])


# ---- init --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def interrupted(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("killed-init")
    (tmp / "topics.tsv").write_text("q1\tfirst query\n")
    (tmp / "docs.jsonl").write_text("".join(f'{{"docid": "d{i}", "text": "short text {i}"}}\n' for i in range(DOCS)))
    (tmp / "a.run").write_text("q1 Q0 d1 1 3.0 a\nq1 Q0 d2 2 2.0 a\n")
    args = ["init", "-w", tmp / "ws", "--topics", tmp / "topics.tsv", "--docs", tmp / "docs.jsonl",
            "--runs", tmp / "a.run"]
    db = tmp / "ws" / "qrelkit.sqlite"

    def some_docs() -> bool:  # the first batch of documents is committed
        try:
            with sqlite3.connect(db, timeout=5) as c:
                return c.execute("SELECT 1 FROM docs LIMIT 1").fetchone() is not None
        except sqlite3.Error:
            return False

    running = _kill_when(_qrelkit(*args), some_docs)
    return {"ws": tmp / "ws", "args": args, "running": running}


def test_init_was_killed_while_it_loaded(interrupted):
    assert interrupted["running"]


def test_status_json_says_the_load_was_interrupted(interrupted):
    st = json.loads(qk("status", "-w", interrupted["ws"], "--json").stdout)
    assert st["load"] == {"state": "interrupted", "message": INTERRUPTED}


def test_status_says_the_load_was_interrupted(interrupted):
    assert INTERRUPTED in qk("status", "-w", interrupted["ws"]).stderr.splitlines()[0]


def test_status_shows_the_partial_corpus(interrupted):
    st = json.loads(qk("status", "-w", interrupted["ws"], "--json").stdout)
    assert 0 < st["docs"] < DOCS


@pytest.mark.parametrize("command", [
    ["pool"], ["export", "--out", "{tmp}/x.qrels"], ["escalations"], ["report", "--out", "{tmp}/r.html"],
    ["narratives"], ["judge", "--method", "zeroshot"], ["fill", "--auto"], ["holes"],
])
def test_a_command_that_reads_the_collection_refuses_it(interrupted, command, tmp_path):
    args = [a.format(tmp=tmp_path) for a in command]
    assert_user_error(qk(*args, "-w", interrupted["ws"]), INTERRUPTED)


@pytest.fixture(scope="module")
def completed(interrupted):
    p = qk(*interrupted["args"], "--json")
    return p, json.loads(p.stdout or "{}")


def test_init_again_completes_the_load(interrupted, completed):
    p, out = completed
    assert (p.returncode, out.get("docs")) == (0, DOCS), p.stderr


def test_after_init_again_status_says_the_load_is_complete(interrupted, completed):
    st = json.loads(qk("status", "-w", interrupted["ws"], "--json").stdout)
    assert st["load"] == {"state": "complete", "message": None}


def test_after_init_again_the_collection_can_be_pooled(interrupted, completed):
    p = qk("pool", "-w", interrupted["ws"], "--json")
    assert (p.returncode, json.loads(p.stdout or "{}").get("pooled")) == (0, 2), p.stderr


def test_a_complete_load_is_not_marked(tmp_path):
    from tests.integrity.cli import demo_files

    f = demo_files(tmp_path)
    qk("init", "-w", tmp_path / "ws", "--topics", f["topics"], "--docs", f["docs"])
    with sqlite3.connect(Path(tmp_path / "ws" / "qrelkit.sqlite")) as c:
        assert c.execute("SELECT COUNT(*) FROM meta WHERE key='loading'").fetchone()[0] == 0
