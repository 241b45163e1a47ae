"""Command run records: what each command was asked, when, and what it spent.

`status` and the report sum the totals. A command writes its totals when it
ends; one killed outright (``kill -9``, a lost machine) never does, and its
spend would silently vanish from every sum although its calls were paid for.
So a running record holds its process (host and pid) in ``totals`` until the
end, and :meth:`CommandStore.reconcile_commands` (run when a command starts and
by `status`) marks a record whose process is gone as ``interrupted``, with
the spend recovered from the call cache: every call first cached between its
start and the next command's start. What that cannot see is a request the
server received but whose answer never reached the cache (in flight at the
kill), and cache hits (which cost nothing).
"""
from __future__ import annotations

import json
import os
import socket
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from qrelkit.processes import pid_alive
from qrelkit.store.core import now
from qrelkit.types import Usage

INTERRUPTED = "interrupted"


@dataclass(frozen=True)
class CommandRun:
    """One run of a command: what it was asked (``args``), when, how it ended (``running``,
    ``done``, ``failed``, ``interrupted``) and its ``totals`` record as the command wrote it —
    the usage keys plus the command's own counts (a judge's escalations, a recovered spend's
    ``recovered_from_cache``, a running one's ``process``); :attr:`usage` reads the former."""

    id: int
    command: str
    args: Mapping[str, Any] = field(hash=False)
    started_at: float
    finished_at: Optional[float]
    status: str
    totals: Mapping[str, Any] = field(hash=False)

    @property
    def usage(self) -> Usage:
        return Usage.from_dict(self.totals)

    @property
    def process(self) -> Optional[dict]:
        """Host and pid of the process running it (``running`` records only)."""
        return self.totals.get("process")


def this_process() -> dict:
    return {"host": socket.gethostname(), "pid": os.getpid()}


def process_alive(process: Optional[dict], started_at: float) -> bool:
    """Is the process that started a run still running? A record without a
    process (written before this rule) or one on another host cannot be
    checked here; the former counts as gone, the latter as alive."""
    if not isinstance(process, dict) or not isinstance(process.get("pid"), int):
        return False
    if process.get("host") != socket.gethostname():
        return True
    pid = process["pid"]
    if pid == os.getpid():
        return True
    return pid_alive(pid) and not _started_after(pid, started_at)


def _started_after(pid: int, t: float) -> bool:
    """True when ``pid`` is a newer process than one alive at ``t`` (the pid was reused).
    Linux only (``/proc``); elsewhere a live pid counts as the same process."""
    try:
        ticks = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[19])
        boot = next(float(line.split()[1]) for line in open("/proc/stat") if line.startswith("btime"))
    except (OSError, ValueError, IndexError, StopIteration):
        return False
    return boot + ticks / os.sysconf("SC_CLK_TCK") > t + 2.0


class CommandStore:
    """Records of command runs (mixin of :class:`qrelkit.store.Store`)."""

    def start_command(self, command: str, args: dict) -> int:
        """A ``running`` record holding this process (earlier runs whose process
        is gone are settled first, so their spend is counted before this one's)."""
        self.reconcile_commands()
        with self.transaction() as c:
            cur = c.execute(
                "INSERT INTO command_runs(command, args, started_at, totals) VALUES(?,?,?,?)",
                (command, json.dumps(args, sort_keys=True, default=str), now(),
                 json.dumps({"process": this_process()}, sort_keys=True)),
            )
            return int(cur.lastrowid)

    def reconcile_commands(self) -> int:
        """Mark running records whose process is gone as interrupted, with the
        spend recovered from the call cache (see module doc); returns how many."""
        runs = self.command_runs()
        settled = 0
        for i, run in enumerate(runs):
            if run.status != "running" or process_alive(run.process, run.started_at):
                continue
            end = runs[i + 1].started_at if i + 1 < len(runs) else None
            totals = {**self.calls_between(run.started_at, end), "recovered_from_cache": True}
            settled += self.execute(
                "UPDATE command_runs SET status=?, totals=? WHERE id=? AND status='running'",
                (INTERRUPTED, json.dumps(totals, sort_keys=True), run.id),
            )
        return settled

    def finish_command(self, run_id: int, totals: dict, status: str = "done") -> None:
        self.execute(
            "UPDATE command_runs SET finished_at=?, status=?, totals=? WHERE id=?",
            (now(), status, json.dumps(totals, sort_keys=True, default=str), run_id),
        )

    def command_runs(self, command: Optional[str] = None) -> list[CommandRun]:
        sql = "SELECT id, command, args, started_at, finished_at, status, totals FROM command_runs"
        params: tuple = ()
        if command:
            sql += " WHERE command=?"
            params = (command,)
        sql += " ORDER BY id"
        return [
            CommandRun(i, c, json.loads(a), s, f, st, json.loads(t) or {})
            for i, c, a, s, f, st, t in self.query(sql, params)
        ]
