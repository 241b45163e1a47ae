"""The SQLite side index of a documents file (see :class:`qrelkit.data.docs.DocIndex`).

Not the workspace database: one small file per documents file, holding each
document's line and byte offset (or, for gzip, its text) and a meta table. The
reader in data/ decides what to index and how to read it back; this module
holds the index's SQL.
"""
from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Iterator, NamedTuple, Optional


class IndexEntry(NamedTuple):
    line: int
    off: Optional[int]  # byte offset of the line (plain files)
    len: Optional[int]  # byte length of the line (plain files)
    title: Optional[str]  # stored for gzip sources, which cannot seek
    text: Optional[str]


class DuplicateId(NamedTuple):
    docid: str
    first_line: int
    line: int


class DocIndexDB:
    """One index file; build with :meth:`build`, read with :meth:`open`."""

    def __init__(self, conn: sqlite3.Connection):
        self._conn = conn

    @classmethod
    def build(cls, path: Path) -> "DocIndexDB":
        """A fresh index at ``path`` (a temporary name: the caller renames it when complete)."""
        conn = sqlite3.connect(str(path))
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute(
            "CREATE TABLE docs (docid TEXT PRIMARY KEY, line INTEGER NOT NULL, off INTEGER, len INTEGER,"
            " title TEXT, text TEXT)"
        )
        return cls(conn)

    @classmethod
    def open(cls, path: Path) -> "DocIndexDB":
        """A built index, shared between threads (the caller serialises lookups)."""
        return cls(sqlite3.connect(str(path), check_same_thread=False))

    def insert(self, batch: list[IndexEntry | tuple]) -> list[DuplicateId]:
        """Add ``(docid, line, off, len, title, text)`` rows; ids seen before are
        not stored but returned, in batch order (the caller decides whether a
        repeat is harmless)."""
        before = self._conn.total_changes
        self._conn.executemany("INSERT OR IGNORE INTO docs VALUES (?, ?, ?, ?, ?, ?)", batch)
        if self._conn.total_changes - before == len(batch):
            return []
        repeats = []
        for row in batch:
            docid, lineno = row[0], row[1]
            first = self._conn.execute("SELECT line FROM docs WHERE docid = ?", (docid,)).fetchone()[0]
            if first != lineno:
                repeats.append(DuplicateId(docid, first, lineno))
        return repeats

    def finish(self, meta: dict[str, str]) -> None:
        """Write the meta table (``complete`` among it) and commit."""
        self._conn.executemany("INSERT INTO meta VALUES (?, ?)", list(meta.items()))
        self._conn.commit()

    def meta(self) -> dict[str, str]:
        return dict(self._conn.execute("SELECT key, value FROM meta"))

    def entry(self, docid: str) -> Optional[IndexEntry]:
        row = self._conn.execute("SELECT line, off, len, title, text FROM docs WHERE docid = ?", (docid,)).fetchone()
        return None if row is None else IndexEntry(*row)

    def contains(self, docid: str) -> bool:
        return self._conn.execute("SELECT 1 FROM docs WHERE docid = ?", (docid,)).fetchone() is not None

    def docids(self) -> Iterator[str]:
        """All ids, sorted, streamed from a cursor."""
        return (d for (d,) in self._conn.execute("SELECT docid FROM docs ORDER BY docid"))

    def close(self) -> None:
        self._conn.close()


def index_complete(path: Path, version: str) -> bool:
    """Is ``path`` a finished index of this ``version``? (a damaged file is not)"""
    if not path.exists():
        return False
    try:
        with sqlite3.connect(str(path)) as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = 'complete'").fetchone()
            ver = conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
        return row is not None and row[0] == "1" and ver is not None and ver[0] == version
    except sqlite3.DatabaseError:
        return False
