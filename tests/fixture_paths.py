"""Rewrite the absolute paths a workspace fixture recorded into repository-relative ones.

A fixture made in a checkout at ``/tmp/qk-41e3b2f`` stores ``/tmp/qk-41e3b2f/src/qrelkit/demo/bm25.run``
in its plan, its input list and its runs table; with the checkout's folder removed the stored path
becomes ``src/qrelkit/demo/bm25.run``, the same file in any checkout (relative to the repository
root). Only text cells change; ids, labels, cache keys and timestamps stay as the old version wrote
them. ``tests/integrity/test_portable_fixtures.py`` checks no fixture needs this again.

    python -m tests.fixture_paths tests/judges/data/fill-before-one-parser/qrelkit.sqlite.gz /tmp/jobs-old/
"""
from __future__ import annotations

import gzip
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path


def relativise(fixture: Path, prefix: str) -> int:
    """Strip ``prefix`` from every text cell of the gzipped database; returns the cells changed."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "qrelkit.sqlite"
        with gzip.open(fixture, "rb") as src, open(db, "wb") as dst:
            shutil.copyfileobj(src, dst)
        conn = sqlite3.connect(db, isolation_level=None)
        changed = 0
        tables = [t for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            for _, col, kind, *_ in conn.execute(f'PRAGMA table_info("{table}")').fetchall():
                if kind.upper() in ("TEXT", ""):
                    changed += conn.execute(f'UPDATE "{table}" SET "{col}"=replace("{col}", ?, \'\') '
                                            f'WHERE instr("{col}", ?) > 0', (prefix, prefix)).rowcount
        conn.execute("VACUUM")
        conn.close()
        with open(db, "rb") as src, open(fixture, "wb") as raw:
            with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as dst:
                shutil.copyfileobj(src, dst)
    return changed


if __name__ == "__main__":
    print(f"{relativise(Path(sys.argv[1]), sys.argv[2])} cells rewritten")
