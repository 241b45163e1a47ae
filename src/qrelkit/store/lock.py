"""One writer per workspace: the judging commands hold the workspace's writer lock.

Two `judge` processes on one workspace used to select the same pending cases and pay for each
of them twice (600 server calls for 300 cases, each run reporting ``new: 300``). SQLite keeps the
database consistent but cannot know that two processes are about to make the same model calls,
so `judge`, `fill` and `build` take this lock for as long as they judge; read-only commands
(`status`, `export`, `report`, `escalations`, `annotate serve`) never take it.

The lock is an ``flock`` on ``qrelkit.lock`` in the workspace. The kernel releases it when its
process ends, however it ends (Ctrl-C, ``kill -9``, a crash), so a lock left by a killed process
is never in the way: the next command simply takes it over. The file's text says who holds it
(pid, command, start time), for the message the second process prints. A workspace the lock
cannot be written in (a full disk, a read-only mount, no permission) is one line and exit 2
(:mod:`qrelkit.store.faults`).
"""
from __future__ import annotations

import fcntl
import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Optional

from qrelkit.errors import UsageError
from qrelkit.store.faults import storage_guard

LOCK_FILE = "qrelkit.lock"


def _holder(path: Path) -> str:
    try:
        info = json.loads(path.read_text() or "{}")
    except (OSError, ValueError):
        return "another process"
    started = info.get("started")
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started)) if started else "?"
    return f"process {info.get('pid', '?')} (`{info.get('command', '?')}`, started {when})"


@contextmanager
def writer_lock(workspace: Path | str, command: str, wait: bool = False,
                on_wait: Optional[Callable[[str], None]] = None) -> Iterator[None]:
    """Hold the workspace's writer lock while the block runs.

    A second writer raises UsageError (exit 2) naming the holder, or with ``wait`` blocks until
    the holder is done (``on_wait`` is told who it waits for)."""
    ws = Path(workspace)
    path = ws / LOCK_FILE
    with storage_guard(ws):  # a full disk, a read-only mount, no permission: one line, exit 2
        ws.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(path)
            if not wait:
                raise UsageError(
                    f"{ws}: {holder} is judging this workspace; wait for it to finish, or run this "
                    "command with --wait to start when it is done") from None
            if on_wait is not None:
                on_wait(f"waiting for {holder} to finish judging {ws}")
            fcntl.flock(fd, fcntl.LOCK_EX)
        with storage_guard(ws):
            os.ftruncate(fd, 0)
            os.pwrite(fd, json.dumps({"pid": os.getpid(), "command": command, "started": time.time(),
                                      "argv": sys.argv[1:]}).encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock
