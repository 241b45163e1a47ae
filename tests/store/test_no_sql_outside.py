"""The store owns the database: no module outside qrelkit/store/ holds SQL."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import qrelkit

SRC = Path(qrelkit.__file__).parent
STORE = SRC / "store"
# a statement keyword (SQL's upper case) followed by what only SQL puts after it
SQL = re.compile(
    r"\bexecute(many|script)?\(|\bSELECT\s+\S|\bINSERT\s+(OR\s+\w+\s+)?INTO\b|\bUPDATE\s+\w+\s+SET\b|"
    r"\bDELETE\s+FROM\b|\bCREATE\s+(TABLE|INDEX)\b|\bPRAGMA\s+\w|\bimport\s+sqlite3\b"
)
MODULES = sorted(p for p in SRC.rglob("*.py") if STORE not in p.parents)


def test_the_scan_sees_the_package():
    assert len(MODULES) > 50


@pytest.mark.parametrize(
    "line",
    [
        'store.query("SELECT 1 FROM docs WHERE docid=?", (d,))',
        '"SELECT t.qid, t.docid FROM annot_tasks t "',
        'c.executemany(sql, rows)',
        '"INSERT OR IGNORE INTO docs VALUES (?, ?)"',
        '"UPDATE annot_tasks SET decided=1"',
        '"DELETE FROM annot_leases WHERE expires_at <= ?"',
        'conn.execute("PRAGMA journal_mode = OFF")',
        "import sqlite3",
    ],
)
def test_the_pattern_finds_sql(line):
    assert SQL.search(line)


def test_the_pattern_lets_prose_be():
    assert not SQL.search("the token dies on first use (the UPDATE that consumes it is the check)")


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_no_sql_outside_the_store(path):
    hits = [f"{i}: {line.strip()}" for i, line in enumerate(path.read_text().splitlines(), 1) if SQL.search(line)]
    assert hits == []
