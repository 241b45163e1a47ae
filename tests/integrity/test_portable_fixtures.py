"""No fixture holds an absolute path of the machine it was made on.

A stored path like ``/tmp/jobs-old/src/qrelkit/demo/bm25.run`` makes a test pass only where that
folder happens to exist (issue 31). Every file under ``tests/`` that is neither Python nor a
Markdown note (which may tell where a fixture was made) is scanned:
text as it is, ``.gz`` decompressed, SQLite databases (the workspace fixtures) dumped row by row,
so a path in a stored plan, input list or runs table is seen too.
"""
from __future__ import annotations

import gzip
import re
import sqlite3
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
# a POSIX path under a machine's own top-level folders, or a Windows drive, not inside a URL
ABSOLUTE = re.compile(
    r"(?<![\w.~:/-])(/(?:tmp|work|root|home|Users|var|mnt|opt|srv|private|scratch|data)/[^\s\"'<>|,;)\]}]*)"
    r"|(?<![\w])([A-Za-z]:\\\\?[^\s\"']+)"
)
SQLITE = b"SQLite format 3\x00"


def fixture_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*")
                  if p.is_file() and p.suffix not in (".py", ".pyc", ".md") and "__pycache__" not in p.parts)


def readable_text(path: Path, tmp: Path) -> str:
    """The file's content as text; a database (plain or gzipped) as its SQL dump."""
    blob = path.read_bytes()
    if path.suffix == ".gz":
        blob = gzip.decompress(blob)
    if blob.startswith(SQLITE):
        db = tmp / "fixture.sqlite"
        db.write_bytes(blob)
        with sqlite3.connect(db) as conn:
            return "\n".join(conn.iterdump())
    return blob.decode("utf-8", errors="replace")


def absolute_paths(text: str) -> list[str]:
    return sorted({m.group(0) for m in ABSOLUTE.finditer(text)})


def test_the_scan_sees_the_workspace_fixtures():
    assert len([p for p in fixture_files() if p.name == "qrelkit.sqlite.gz"]) >= 3


@pytest.mark.parametrize("text,found", [
    ('{"runs": ["/tmp/jobs-old/src/qrelkit/demo/bm25.run"]}', ["/tmp/jobs-old/src/qrelkit/demo/bm25.run"]),
    ("INSERT INTO runs VALUES('bm25','/home/ann/runs/bm25.run','{}');", ["/home/ann/runs/bm25.run"]),
    ('docs = "C:\\\\Users\\\\ann\\\\docs.jsonl"', ["C:\\\\Users\\\\ann\\\\docs.jsonl"]),
    ("openai:fake@http://127.0.0.1:18777/v1", []),
    ("src/qrelkit/demo/bm25.run", []),
    ("../shared/data/llmjudge-dev/qrels.txt", []),
])
def test_the_scan_finds_absolute_paths_and_nothing_else(text, found):
    assert absolute_paths(text) == found


@pytest.mark.parametrize("path", fixture_files(), ids=lambda p: str(p.relative_to(TESTS)))
def test_no_fixture_holds_an_absolute_path_outside_the_repository(path, tmp_path):
    assert absolute_paths(readable_text(path, tmp_path)) == []
