"""A workspace filled by the previous version resumes with 0 new LLM calls and the same qrels:
the method id composed from ``--auto`` (once by string surgery, now as a value) is unchanged.

The fixture was made in a checkout at ``/tmp/jobs-old`` on another machine; its stored paths
were made repository-relative since (its README). The tests read no stored path: they resume
with the runs gone (the paths rewritten into this test's own tmp folder, where nothing is) or
with the runs passed again from the repository's demo folder, so they depend on nothing outside
the repository and what they create."""

from __future__ import annotations

import gzip
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from qrelkit import demo
from qrelkit.job import run as jobs
from qrelkit.store import Store

from .test_cli import log_lines, server  # noqa: F401  (the fake server fixture)

BEFORE = Path(__file__).parent / "data" / "fill-before-one-parser"
DEMO = Path(demo.__file__).parent
RUNS = ("bm25", "dense", "splade")  # the runs the fixture was filled with (its README)


def unpack(ws: Path) -> Path:
    ws.mkdir()
    with gzip.open(BEFORE / "qrelkit.sqlite.gz", "rb") as src, open(ws / "qrelkit.sqlite", "wb") as dst:
        shutil.copyfileobj(src, dst)
    return ws


def runs_gone(ws: Path) -> dict:
    """The stored run paths moved into a folder of this test's that does not exist."""
    with Store.open(ws) as s:
        for name, path, meta in s.runs():
            s.upsert_run(name, str(ws.parent / "gone" / Path(path).name), meta)
    return {}


def runs_passed_again(ws: Path) -> dict:
    """The runs where they are now: the same demo files, in this repository."""
    runs_gone(ws)
    return {"runs": [str(DEMO / f"{n}.run") for n in RUNS]}


WAYS = [pytest.param(runs_gone, id="runs-gone"), pytest.param(runs_passed_again, id="runs-passed-again")]


def resume(ws: Path, url: str, **options):
    return jobs.fill(ws, auto=True, model=f"openai:fake@{url}", method="debate(rounds=1)", limit=8,
                     report=False, **options)


@pytest.mark.parametrize("way", WAYS)
def test_a_fill_from_before_resumes_with_no_new_calls_and_the_same_qrels(server, tmp_path, way):  # noqa: F811
    url, log = server
    ws = unpack(tmp_path / "ws")
    options = way(ws)
    requests = len(log_lines(log))
    result = resume(ws, url, **options)
    # the job was a trial of 8 cases (--limit 8): the rest of the holes are left, and it says so
    assert result.state == "partial"
    assert set(result.left) == {"limit"}
    assert result.method == "debate(adjudicator=llm,doc_tokens=400,first=relevant,rounds=1)"
    assert result.judge["calls"] == 0
    assert len(log_lines(log)) == requests
    assert (ws / "qrels.merged.txt").read_text() == (BEFORE / "qrels.merged.txt").read_text()


@pytest.fixture()
def gone_ws(tmp_path) -> Path:
    ws = unpack(tmp_path / "ws")
    runs_gone(ws)
    return ws


def test_with_its_runs_gone_a_resumed_fill_keeps_the_stored_pool(server, gone_ws):  # noqa: F811
    with Store.open(gone_ws) as s:
        cases = s.cases()
    resume(gone_ws, server[0])
    with Store.open(gone_ws) as s:
        assert s.cases() == cases


def test_with_its_runs_gone_a_resumed_fill_lists_the_missing_runs(server, gone_ws):  # noqa: F811
    result = resume(gone_ws, server[0])
    assert [Path(p).name for p in result.pool["runs_missing"]] == [f"{n}.run" for n in RUNS]


def test_runs_passed_again_repoint_the_stored_runs_by_name(server, tmp_path):  # noqa: F811
    ws = unpack(tmp_path / "ws")
    options = runs_passed_again(ws)
    resume(ws, server[0], **options)
    with Store.open(ws) as s:
        assert {r.name: r.path for r in s.runs()} == {n: str(DEMO / f"{n}.run") for n in RUNS}


NEEDS_THE_RUNS = [pytest.param(["pool", "--depth", "5"], id="pool-at-another-depth"),
                  pytest.param(["holes"], id="holes")]


@pytest.fixture(params=NEEDS_THE_RUNS)
def read_gone_runs(gone_ws, request) -> subprocess.CompletedProcess:
    """A command that must read the run files, run on the workspace whose runs are gone."""
    return subprocess.run([sys.executable, "-m", "qrelkit", *request.param, "-w", str(gone_ws)],
                          capture_output=True, text=True, timeout=120)


def test_a_command_that_needs_gone_runs_exits_2(read_gone_runs):
    assert read_gone_runs.returncode == 2


def test_a_command_that_needs_gone_runs_says_to_pass_runs_again(read_gone_runs):
    said = " ".join((read_gone_runs.stderr + read_gone_runs.stdout).split())
    assert "pass --runs again with where the runs are now" in said


def test_a_command_that_needs_gone_runs_shows_no_traceback(read_gone_runs):
    assert "Traceback" not in read_gone_runs.stderr
