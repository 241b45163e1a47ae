"""The shape the core keeps (issue: one job, stored once): typed collaborators, short signatures,
the pipeline in judging/, relevance on the ground floor. Read from the source, so a change that
slips back fails here rather than in a review."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "qrelkit"
MODULES = sorted(p for p in SRC.rglob("*.py"))


def _functions(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = node.args
    names = [x.arg for x in a.posonlyargs + a.args]
    n = len(names) + len(a.kwonlyargs) + bool(a.vararg) + bool(a.kwarg)
    return n - (1 if names and names[0] in ("self", "cls") else 0)


@pytest.mark.parametrize("path", [p for p in MODULES if "cli" not in p.relative_to(SRC).parts],
                         ids=lambda p: str(p.relative_to(SRC)))
def test_no_function_outside_the_cli_takes_more_than_eight_parameters(path):
    long = [f"{f.name} ({_parameters(f)})" for f in _functions(path) if _parameters(f) > 8]
    assert long == []


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SRC)))
def test_the_store_and_the_client_are_typed_in_every_signature(path):
    assert re.findall(r"\b(?:store|client): Any\b", path.read_text()) == []


def test_the_relevance_task_and_the_status_words_live_on_the_ground_floor():
    from qrelkit import relevance
    from qrelkit.judges import base

    assert base.Task is relevance.Task
    assert base.ESCALATE is relevance.ESCALATE
    assert "import" not in "".join(line for line in (SRC / "relevance.py").read_text().splitlines()
                                   if line.startswith(("from qrelkit.judg", "from qrelkit.store")))


JUDGES = sorted((SRC / "judges").glob("*.py"))


def _getattr_calls(path: Path) -> int:
    return sum(1 for n in ast.walk(ast.parse(path.read_text()))
               if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "getattr")


def test_the_judges_read_their_contract_instead_of_probing_it():
    """Issue 45: a judge's capabilities are typed attributes of judges.base, read directly; two
    getattr calls at most remain in judges/ (there were four)."""
    assert sum(_getattr_calls(p) for p in JUDGES) <= 2


@pytest.mark.parametrize("path", JUDGES, ids=lambda p: p.name)
def test_no_module_in_judges_passes_450_lines(path):
    assert len(path.read_text().splitlines()) <= 450
