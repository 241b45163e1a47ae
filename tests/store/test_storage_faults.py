"""Storage faults are the user's to fix, not crashes (issue 45, points 11 and 12).

A full disk before judging, the disk filling while judging, a read-only mount and a workspace the
user may not write each give one line naming the folder and the cause, exit 2; the first write the
disk refuses stops new calls (only the calls in flight are paid); `status`, `export --out` and
`report --out` elsewhere work on a workspace that cannot be written. Real SQLite on real file
systems: a small tmpfs for the full disk, a read-only bind mount, and for "may not write" a
folder without write permission (as root, run without the capability that ignores permissions).
Mounting needs root; without it those tests skip, saying so.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakeserver import serve

from qrelkit.errors import StorageError
from qrelkit.llm.base import Message
from qrelkit.llm.client import Client
from qrelkit.llm.scripted import ScriptedBackend
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Topic

CONCURRENCY = 4
FILLER = " ".join(["the passage goes on about nothing in particular"] * 20)  # ~1 KB: requests fill the disk


def make_ws(path: Path, n: int) -> Path:
    with Store.create(path) as s:
        s.upsert_topics([Topic("q0", "what is a passage")])
        s.upsert_docs([Doc(f"d{i}", f"passage agree{i % 4} number {i}. {FILLER}") for i in range(n)])
        s.upsert_cases([Case("q0", f"d{i}", "llm", i + 1) for i in range(n)])
    return path


def qk(*args, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    return subprocess.run([*prefix, sys.executable, "-m", "qrelkit", *map(str, args)], capture_output=True,
                          text=True, timeout=300, env=dict(os.environ, PYTHONUNBUFFERED="1"))


def judge(ws: Path, model: str, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    return qk("judge", "-w", ws, "--method", "zero-shot", "--model", model, "--concurrency", CONCURRENCY,
              prefix=prefix)


def calls(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def stored_calls(ws: Path) -> int:
    with Store.open(ws) as s:
        return s.calls_between(0.0)["calls"]


def error_lines(p: subprocess.CompletedProcess) -> list[str]:
    return [line for line in p.stderr.splitlines() if line.startswith("error:")]


def _mount(*args: str) -> None:
    r = subprocess.run(["mount", *args], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount here ({r.stderr.strip() or r.returncode}): needs root or CAP_SYS_ADMIN")


@contextlib.contextmanager
def mounted(target: Path, *args: str) -> Iterator[Path]:
    target.mkdir(parents=True, exist_ok=True)
    _mount(*args, str(target))
    try:
        yield target
    finally:
        subprocess.run(["umount", "-l", str(target)], check=True)


def fill_up(disk: Path, leave_kib: int) -> None:
    """Take the file system's free space down to ``leave_kib`` KiB with a file of zeros."""
    st = os.statvfs(disk)
    free = st.f_bavail * st.f_frsize // 1024
    with open(disk / "pad", "wb") as f:
        for _ in range(max(0, free - leave_kib)):
            try:
                f.write(b"\0" * 1024)
                f.flush()
            except OSError:
                break


@pytest.fixture
def model(tmp_path) -> Iterator[tuple[str, Path]]:
    log = tmp_path / "requests.log"
    with serve("judges.fake_openai", log, delay=0.02) as url:
        yield f"openai:fake@{url}", log


@pytest.fixture
def disk(tmp_path) -> Iterator[Path]:
    with mounted(tmp_path / "disk", "-t", "tmpfs", "-o", "size=8m", "tmpfs") as d:
        yield d


# ---- a full disk ---------------------------------------------------------------------------
def test_a_full_disk_before_judging_is_one_line_and_exit_2(disk, model):
    spec, log = model
    ws = make_ws(disk / "ws", 40)
    fill_up(disk, 0)
    p = judge(ws, spec)
    assert p.returncode == 2, p.stderr
    assert error_lines(p) == [f"error: {ws}: cannot write: the disk is full (no space left on device): "
                              "free some space and run the same command again"]
    assert "Traceback" not in p.stderr
    assert calls(log) == 0


@pytest.fixture
def filled_while_judging(disk, model):
    """200 cases judged on a disk with ~96 KiB left: it fills a few dozen answers in."""
    spec, log = model
    ws = make_ws(disk / "ws", 200)
    fill_up(disk, 96)
    p = judge(ws, spec)
    paid = calls(log)  # the judge's calls (the fake server does not log the start-up check's)
    (disk / "pad").unlink()
    return ws, spec, log, p, paid


def test_the_disk_filling_while_judging_is_one_line_and_exit_2(filled_while_judging):
    ws, _, _, p, _ = filled_while_judging
    assert p.returncode == 2, p.stderr
    assert error_lines(p) == [f"error: {ws}: cannot write: the disk is full (no space left on device): "
                              "free some space and run the same command again"]
    assert "Traceback" not in p.stderr


def test_the_run_does_not_call_on_saying_answers_will_be_paid_again(filled_while_judging):
    _, _, _, p, _ = filled_while_judging
    assert "paid again" not in p.stderr


def test_the_first_failed_write_stops_new_calls(filled_while_judging):
    ws, _, _, _, paid = filled_while_judging
    assert 0 < paid < 200
    # lost: the answers held for the group write that failed (one flush interval's) and those in
    # flight; a run that called on (as it did) pays for nearly all 200 cases
    assert paid - stored_calls(ws) <= 3 * CONCURRENCY


def test_with_space_again_the_same_command_finishes_paying_only_what_was_lost(filled_while_judging):
    ws, spec, log, _, paid = filled_while_judging
    kept = stored_calls(ws)
    before = calls(log)
    p = judge(ws, spec)
    assert p.returncode == 0, p.stderr
    assert calls(log) - before == 200 - kept


def test_a_full_database_stops_the_client_after_the_first_failed_write(tmp_path):
    """In process, the same rule on SQLite's own limit: a database that may not grow."""
    store = Store.create(tmp_path / "ws")
    pages = store.scalar("PRAGMA page_count")
    store.scalar(f"PRAGMA max_page_count={pages + 4}")

    after_failure = []

    async def answer(messages, params):
        if store.write_failed is not None:
            after_failure.append(messages[0].content[:8])
        await asyncio.sleep(0.005)
        return {"grade": 1, "text": FILLER}

    backend = ScriptedBackend(answer)
    client = Client(backend, store=store, concurrency=CONCURRENCY, backoff_base=0.001)

    async def go() -> list:
        asks = [client.complete([Message("user", f"case {i} {FILLER}")], max_tokens=8) for i in range(200)]
        return await asyncio.gather(*asks, return_exceptions=True)

    results = asyncio.run(go())
    store.scalar(f"PRAGMA max_page_count={2 ** 30}")
    store.close()
    assert any(isinstance(r, StorageError) for r in results), "no call was refused after the database filled up"
    assert backend.calls < 200
    assert after_failure == []  # no call started once a write had failed


# ---- a workspace that cannot be written ----------------------------------------------------
@pytest.fixture
def judged(tmp_path, model) -> Path:
    """A workspace with labels (12 cases judged), closed cleanly: no -wal or -shm file beside it."""
    spec, _ = model
    ws = make_ws(tmp_path / "src" / "ws", 12)
    assert judge(ws, spec).returncode == 0
    return ws


@pytest.fixture
def read_only(judged, tmp_path) -> Iterator[Path]:
    with mounted(tmp_path / "ro", "--bind", "-o", "ro", str(judged)) as ro:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(ro)], check=True)
        assert not os.access(ro, os.W_OK)
        yield ro


@pytest.fixture
def not_mine(judged) -> Iterator[tuple[Path, tuple[str, ...]]]:
    """The workspace without write permission; as root, commands run without CAP_DAC_OVERRIDE."""
    prefix: tuple[str, ...] = ()
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("root ignores permissions and setpriv (to drop that) is not installed")
        prefix = ("setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner")
    for f in judged.iterdir():
        f.chmod(0o444)
    judged.chmod(0o555)
    try:
        yield judged, prefix
    finally:
        judged.chmod(0o755)
        for f in judged.iterdir():
            f.chmod(0o644)


def test_a_read_only_workspace_refuses_judging_in_one_line(read_only, model):
    spec, _ = model
    p = judge(read_only, spec)
    assert p.returncode == 2, p.stderr
    assert error_lines(p) == [f"error: {read_only}: cannot write: the folder is on a read-only file system: "
                              "only read-only commands work here (status, export and report with --out elsewhere)"]
    assert "Traceback" not in p.stderr


def test_a_workspace_the_user_may_not_write_refuses_judging_in_one_line(not_mine, model):
    ws, prefix = not_mine
    spec, _ = model
    p = judge(ws, spec, prefix)
    assert p.returncode == 2, p.stderr
    assert len(error_lines(p)) == 1
    assert error_lines(p)[0].startswith(f"error: {ws}: cannot write: permission denied")
    assert "Traceback" not in p.stderr


def read_only_commands(ws: Path, out: Path, prefix: tuple[str, ...]) -> dict[str, subprocess.CompletedProcess]:
    return {
        "status": qk("status", "-w", ws, "--json", prefix=prefix),
        "export": qk("export", "-w", ws, "--out", out / "labels.qrels", prefix=prefix),
        "report": qk("report", "-w", ws, "--out", out / "report.html", prefix=prefix),
    }


@pytest.mark.parametrize("command", ["status", "export", "report"])
def test_read_only_commands_work_on_a_read_only_mount(read_only, tmp_path, command):
    p = read_only_commands(read_only, tmp_path, ())[command]
    assert p.returncode == 0, p.stderr


@pytest.mark.parametrize("command", ["status", "export", "report"])
def test_read_only_commands_work_on_a_workspace_the_user_may_not_write(not_mine, tmp_path, command):
    ws, prefix = not_mine
    out = tmp_path / "out"
    out.mkdir()
    p = read_only_commands(ws, out, prefix)[command]
    assert p.returncode == 0, p.stderr


def test_status_of_a_read_only_workspace_reads_its_labels(read_only):
    status = json.loads(qk("status", "-w", read_only, "--json").stdout)
    assert status["cases"]["pending_judge"] == 0


def test_export_of_a_read_only_workspace_writes_every_label(read_only, tmp_path):
    qk("export", "-w", read_only, "--out", tmp_path / "labels.qrels")
    assert len((tmp_path / "labels.qrels").read_text().splitlines()) == 12


def test_reading_a_read_only_workspace_leaves_no_file_in_it(judged, read_only, tmp_path):
    before = sorted(p.name for p in judged.iterdir())
    read_only_commands(read_only, tmp_path, ())
    assert sorted(p.name for p in judged.iterdir()) == before
