"""A pool depth beyond any run is refused, not stored (issue 45, point 14): `pool --depth 10^25`
was taken and written into the workspace's pool settings."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from qrelkit.job.options import MAX_DEPTH

HUGE = "9999999999999999999999999"


def qk(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "qrelkit", *map(str, args)], capture_output=True, text=True,
                          timeout=120)


@pytest.fixture(scope="module")
def ws(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("depth")
    (d / "topics.tsv").write_text("q1\tfirst query\n")
    (d / "docs.tsv").write_text("a\tdoc a\nb\tdoc b\n")
    (d / "run.txt").write_text("q1 Q0 a 1 2 s\nq1 Q0 b 2 1 s\n")
    p = qk("init", "-w", d / "ws", "--topics", d / "topics.tsv", "--docs", d / "docs.tsv", "--runs", d / "run.txt")
    assert p.returncode == 0, p.stderr
    assert qk("pool", "-w", d / "ws", "--depth", 5).returncode == 0
    return d / "ws"


def pool_depth(ws: Path) -> int:
    return json.loads(qk("status", "-w", ws, "--json").stdout)["pool"]["depth"]


@pytest.mark.parametrize("args", [("--depth", HUGE), ("--pool", f"depth(k={HUGE})"), ("--depth", MAX_DEPTH + 1),
                                  ("--human-depth", HUGE)], ids=["depth", "pool-spec", "just-over", "human-depth"])
def test_a_depth_beyond_the_bound_exits_2(ws, args):
    p = qk("pool", "-w", ws, *args)
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr


@pytest.mark.parametrize("args", [("--depth", HUGE), ("--pool", f"depth(k={HUGE})")])
def test_a_refused_depth_leaves_the_pool_as_it_was(ws, args):
    qk("pool", "-w", ws, *args)
    assert pool_depth(ws) == 5


def test_a_plan_file_depth_beyond_the_bound_is_refused_naming_the_file(ws, tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text(f"[pool]\ndepth = {MAX_DEPTH + 1}\n")
    p = qk("fill", "-w", ws, "--plan", plan)
    assert p.returncode == 2, p.stderr
    assert "plan.toml" in p.stderr


def test_the_bound_itself_is_taken(ws):
    assert qk("pool", "-w", ws, "--depth", MAX_DEPTH).returncode == 0
    assert pool_depth(ws) == MAX_DEPTH
