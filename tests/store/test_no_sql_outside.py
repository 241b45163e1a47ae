"""The store owns the database: no module outside qrelkit/store/ holds SQL."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import qrelkit

SRC = Path(qrelkit.__file__).parent
STORE = SRC / "store"
# a statement keyword followed by what only SQL puts after it
SQL = re.compile(
    r"\bexecute(many|script)?\(|\bSELECT\s+(\*|DISTINCT|COUNT|[a-z_]+(\.[a-z_]+)?\s*(,|FROM))|"
    r"\bINSERT\s+(OR\s+\w+\s+)?INTO\b|\bUPDATE\s+\w+\s+SET\b|\bDELETE\s+FROM\b|\bCREATE\s+(TABLE|INDEX)\b|"
    r"\bimport\s+sqlite3\b"
)
MODULES = sorted(p for p in SRC.rglob("*.py") if STORE not in p.parents)


def test_the_scan_sees_the_package():
    assert len(MODULES) > 50


def test_the_pattern_finds_sql():
    assert SQL.search('store.query("SELECT qid, docid FROM cases")')


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_no_sql_outside_the_store(path):
    hits = [f"{i}: {line.strip()}" for i, line in enumerate(path.read_text().splitlines(), 1) if SQL.search(line)]
    assert hits == []
