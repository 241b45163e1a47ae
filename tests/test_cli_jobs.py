"""`fill` and `build` declare their shared options once, and a bad spec given to them is a user error."""

from __future__ import annotations

import dataclasses

import pytest
import typer

from qrelkit.cli import app, main
from qrelkit.cli.jobs import JobOptions
from qrelkit.demo import demo_paths

SHARED = {f.name for f in dataclasses.fields(JobOptions)}


def params(command: str) -> set[str]:
    return {p.name for p in typer.main.get_command(app).commands[command].params}


@pytest.mark.parametrize(("command", "own"), [("fill", {"qrels", "rag"}), ("build", {"human_depth"})])
def test_a_job_command_has_the_shared_options_and_its_own(command, own):
    assert params(command) == SHARED | own


@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        (["--method", "debate(rounds=0)"], "rounds: 0 is out of range"),
        (["--prefilter", "zero-shot"], "expected one prefilter"),
        (["--method", "confidence", "--prefilter", "prefilter"], "cannot follow"),
    ],
)
def test_a_bad_spec_stops_fill_with_exit_2(tmp_path, capsys, extra, problem):
    d = demo_paths()
    inputs = ["--topics", str(d.topics), "--docs", str(d.docs), "--qrels", str(d.qrels), "--runs", str(d.runs[0])]
    with pytest.raises(SystemExit) as e:
        main(["fill", "-w", str(tmp_path / "ws"), *inputs, *extra])
    assert e.value.code == 2
    assert problem in capsys.readouterr().err
