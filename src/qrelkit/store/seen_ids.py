"""A scratch set of ids with the line and digest of their first occurrence.

Not the workspace database: a private temporary SQLite database (on disk,
dropped on close) that :class:`qrelkit.data.unique.UniqueById` uses to find
repeated topic and document ids in inputs far larger than memory. The reader
in data/ decides what a repeat means; this module holds the SQL.
"""
from __future__ import annotations

import sqlite3
from typing import NamedTuple


class FirstSeen(NamedTuple):
    line: int
    digest: int


class SeenIds:
    """Add batches of ``(id, line, digest)``; ask where an id was first seen."""

    def __init__(self) -> None:
        self._conn = sqlite3.connect("")  # "" = a private temporary database that spills to disk
        self._conn.execute("CREATE TABLE seen (id TEXT PRIMARY KEY, line INTEGER NOT NULL, digest INTEGER NOT NULL)")

    def add(self, rows: list[tuple[str, int, int]]) -> bool:
        """Record the ids not seen before; True when every id in ``rows`` was new."""
        before = self._conn.total_changes
        self._conn.executemany("INSERT OR IGNORE INTO seen VALUES (?, ?, ?)", rows)
        return self._conn.total_changes - before == len(rows)

    def first(self, rid: str) -> FirstSeen:
        return FirstSeen(*self._conn.execute("SELECT line, digest FROM seen WHERE id = ?", (rid,)).fetchone())

    def close(self) -> None:
        self._conn.close()
