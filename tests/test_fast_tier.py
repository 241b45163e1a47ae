"""The fast test tier (issue 45): ``pytest -m "not slow"`` leaves out what tests/slow.txt lists and
every test that loads the model, drives Chromium or reads the real data; the list names only
tests that exist, so it cannot rot silently when a test is renamed or moved."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
from slow_tier import slow_entries

ROOT = Path(__file__).resolve().parents[1]


def _test_names(path: Path) -> set[str]:
    return {n.name for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


@pytest.mark.parametrize("entry", sorted(slow_entries()))
def test_every_entry_of_the_slow_list_names_a_test_that_exists(entry):
    file, _, name = entry.partition("::")
    assert (ROOT / file).is_dir() if file.endswith("/") else (ROOT / file).is_file()
    assert not name or name in _test_names(ROOT / file)


def _selected(*args: str) -> int:
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
                         capture_output=True, text=True, cwd=ROOT, timeout=300).stdout
    return sum(1 for line in out.splitlines() if "::" in line)


def test_the_fast_tier_leaves_out_the_model_tests():
    assert _selected("-m", "not slow", "tests/llm_layer/test_local.py") == 0


def test_the_fast_tier_leaves_out_a_listed_file():
    assert _selected("-m", "not slow", "tests/compare/test_compare_cli.py") == 0


def test_the_fast_tier_leaves_out_a_listed_test_and_keeps_the_others_of_its_file():
    assert _selected("-m", "not slow", "tests/annotate/test_load.py") == _selected("tests/annotate/test_load.py") - 1


def test_the_fast_tier_keeps_an_unlisted_file():
    assert _selected("-m", "not slow", "tests/test_progress.py") == _selected("tests/test_progress.py")
