"""Command run records: what each command was asked, when, and what it spent.

`status` and the report sum the totals; a record left ``running`` is a command
that did not finish.
"""
from __future__ import annotations

import json
from typing import Optional

from qrelkit.store.core import now


class CommandStore:
    """Records of command runs (mixin of :class:`qrelkit.store.Store`)."""

    def start_command(self, command: str, args: dict) -> int:
        with self.transaction() as c:
            cur = c.execute(
                "INSERT INTO command_runs(command, args, started_at) VALUES(?,?,?)",
                (command, json.dumps(args, sort_keys=True, default=str), now()),
            )
            return int(cur.lastrowid)

    def finish_command(self, run_id: int, totals: dict, status: str = "done") -> None:
        self.execute(
            "UPDATE command_runs SET finished_at=?, status=?, totals=? WHERE id=?",
            (now(), status, json.dumps(totals, sort_keys=True, default=str), run_id),
        )

    def command_runs(self, command: Optional[str] = None) -> list[dict]:
        sql = "SELECT id, command, args, started_at, finished_at, status, totals FROM command_runs"
        params: tuple = ()
        if command:
            sql += " WHERE command=?"
            params = (command,)
        sql += " ORDER BY id"
        return [
            {
                "id": i, "command": c, "args": json.loads(a), "started_at": s, "finished_at": f,
                "status": st, "totals": json.loads(t),
            }
            for i, c, a, s, f, st, t in self.query(sql, params)
        ]
