"""Option values coerced without pydantic are what typer's own coercion makes of them
(:mod:`qrelkit.cli._coercion`), for every option of every command."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import typer

from qrelkit.cli import app
from qrelkit.cli._coercion import _TYPER, fast_value

typer_coercion = pytest.importorskip("typer._coercion")
if not hasattr(typer_coercion, "build_runtime_param"):
    pytest.skip("this typer coerces with click's types: nothing is replaced", allow_module_level=True)


def _params():
    def walk(cmd, path):
        if hasattr(cmd, "commands"):
            for name, sub in cmd.commands.items():
                yield from walk(sub, (*path, name))
        else:
            for p in cmd.params:
                yield " ".join(path), cmd, p
    yield from walk(typer.main.get_command(app), ())


PARAMS = list(_params())
SAMPLES = {
    str: ["x", "", " a b ", "-", "é"],
    int: ["0", "1", "64", "-3", "007", "+5", "1_000", " 5", "abc", "1.5", "", "99999999999999999999", 7, 0],
    float: ["0.5", "1", "-0.5", ".5", "5.", "1e3", "nan", "x", "", 0.25, 2],
    Path: ["ws", "", ".", "./a/", "/tmp", "/nonexistent/x", "~/x", "/proc/1", Path("ws")],
    bool: ["yes", "0", True],
}


def _typer(cmd, p, value):
    ctx = type(cmd).context_class(cmd)
    try:
        return ("value", typer_coercion.build_runtime_param(p.type_descriptor).coerce(value, param=p, ctx=ctx))
    except Exception as e:  # noqa: BLE001
        return ("error", type(e), str(e))


def _samples(p):
    ann = p.type_descriptor.annotation
    if p.multiple:
        return [("a", "b"), (), ["x"], ("a", 1)]
    return SAMPLES.get(ann, ["x"])


@pytest.mark.parametrize(("where", "cmd", "p"), PARAMS, ids=[f"{w}:{p.name}" for w, _, p in PARAMS])
def test_a_value_coerced_fast_is_the_value_typer_makes(where, cmd, p):
    ctx = type(cmd).context_class(cmd)
    for value in _samples(p):
        fast = fast_value(p, value, ctx)
        if fast is _TYPER:
            continue  # typer coerces it (and words its error)
        slow = _typer(cmd, p, value)
        assert slow[0] == "value", (where, p.name, value, slow)
        assert (type(fast), fast) == (type(slow[1]), slow[1]), (where, p.name, value)


def test_the_plain_values_of_judge_are_coerced_fast(tmp_path):
    judge = typer.main.get_command(app).commands["judge"]
    ctx = type(judge).context_class(judge)
    by = {p.name: p for p in judge.params}
    assert fast_value(by["concurrency"], "64", ctx) == 64
    assert fast_value(by["limit"], "0", ctx) == 0
    assert fast_value(by["method"], "zero-shot", ctx) == "zero-shot"
    assert fast_value(by["workspace"], str(tmp_path), ctx) == tmp_path
    # out of range, or not plainly a number: typer's own coercion and message
    assert fast_value(by["concurrency"], "0", ctx) is _TYPER
    assert fast_value(by["limit"], "abc", ctx) is _TYPER


def test_an_option_not_given_builds_no_typer_adapter():
    judge = typer.main.get_command(app).commands["judge"]
    ctx = type(judge).context_class(judge)
    by = {p.name: p for p in judge.params}
    rp = by["budget"].get_runtime_param()
    assert rp.coerce(None, by["budget"], ctx) is None and rp._typer is None
    assert os.environ.get("PYDANTIC_DISABLE_PLUGINS") is None  # typer's builder was not left half-way
