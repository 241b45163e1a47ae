"""Plan values are checked against the one option table before anything runs: a bound, a price that
is not a finite non-negative number, each one line naming the plan file and its line, exit 2, no
traceback and no call; and a pool with no holes is nothing to judge, not an error."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from qrelkit.demo import demo_paths


def qk(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "qrelkit", *map(str, args)], capture_output=True, text=True,
                          timeout=600)


def inputs() -> str:
    d = demo_paths()
    return (f'[inputs]\ntopics = "{d.topics}"\ndocs = "{d.docs}"\nqrels = "{d.qrels}"\n'
            f'runs = ["{d.runs[0]}"]\n')


@pytest.mark.parametrize(("table", "line", "problem"), [
    ('[judge]\nconcurrency = 0\n', 7, "concurrency must be at least 1"),
    ('[judge]\nconcurrency = 100000\n', 7, "concurrency must be at most 4096"),
    ('[pool]\ndepth = -3\n', 7, "depth must be at least 1"),
    ('[judge]\nlimit = -1\n', 7, "limit must be at least 0"),
    ('[prices."openai:m"]\ninput = nan\n', 7, "input must be a finite number >= 0"),
    ('[prices."openai:m"]\noutput = inf\n', 7, "output must be a finite number >= 0"),
    ('[prices."openai:m"]\ninput = -5.0\n', 7, "input must be a finite number >= 0"),
])
def test_a_bad_plan_value_is_one_line_naming_the_plan_and_its_line(tmp_path, table, line, problem):
    plan = tmp_path / "plan.toml"
    plan.write_text(inputs() + table)
    p = qk("fill", "-w", tmp_path / "ws", "--plan", plan)
    assert p.returncode == 2
    assert f"{plan}:{line}" in p.stderr
    assert problem in p.stderr
    assert "Traceback" not in p.stderr
    assert not (tmp_path / "ws" / "qrelkit.sqlite").exists()  # refused before the workspace was made


def test_a_pool_with_no_holes_is_nothing_to_judge(tmp_path):
    d = demo_paths()
    full = tmp_path / "full.qrels"
    full.write_text(Path(d.full_qrels).read_text())
    p = qk("fill", "-w", tmp_path / "ws", "--topics", d.topics, "--docs", d.docs, "--qrels", full,
           "--runs", d.runs[0], "--method", "zero-shot", "--model", "openai:m@http://127.0.0.1:9/v1", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["message"].startswith("nothing to judge: the pool has no holes")
    assert out["state"] == "done"
    assert out["judge"]["cases"] == 0
    assert out["merged"]["llm"] == 0
    assert out["merged"]["original"] == len(full.read_text().splitlines())
