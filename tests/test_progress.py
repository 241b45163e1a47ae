"""Progress off a terminal: a stage is named once when it starts, and a line comes every few seconds
while it lasts (a batch judge or the document reader can be silent for minutes otherwise)."""
from __future__ import annotations

import io
import time

from rich.console import Console

from qrelkit.cli.progress import progress_reporter
from qrelkit.judging.summary import ProgressUpdate
from qrelkit.types import Usage


def run(monkeypatch, steps) -> list[str]:
    monkeypatch.setenv("QRELKIT_PROGRESS_SECONDS", "0.2")
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=240)
    with progress_reporter(console) as reporter:
        steps(reporter)
    return out.getvalue().splitlines()


def test_a_long_stage_is_named_once_and_then_heard_every_few_seconds(monkeypatch):
    lines = run(monkeypatch, lambda r: (r.stage("reading the collection (docs.jsonl)"), time.sleep(0.9)))
    assert sum("reading the collection (docs.jsonl)" in line and "…" not in line for line in lines) == 1
    assert sum(line.startswith("… reading the collection") for line in lines) >= 2


def test_judging_reports_cases_rate_and_eta_and_says_its_stage_once(monkeypatch):
    def steps(r):
        for done in range(0, 11):
            r(ProgressUpdate(done, 10, Usage(calls=2 * done), 0, 0))
            time.sleep(0.05)

    lines = run(monkeypatch, steps)
    assert sum(line.endswith("judging 10 cases") for line in lines) == 1
    last = [line for line in lines if line.startswith("judging: ")][-1]
    assert "10/10 cases" in last
    assert "calls 20" in last
    assert "cases/s" in last
    assert last.endswith(" s") and "done in" in last and "ETA" not in last  # finished: no ETA to give


def test_a_finished_judging_stage_is_not_repeated_while_the_next_stage_has_not_begun(monkeypatch):
    def steps(r):
        for done in range(0, 4):
            r(ProgressUpdate(done, 3, Usage(calls=done), 0, 0))
        time.sleep(0.9)  # the heartbeat would have said it four times

    lines = run(monkeypatch, steps)
    assert sum("done in" in line for line in lines) == 1


def test_a_continuation_with_nothing_to_judge_says_so_once_and_counts_nothing(monkeypatch):
    lines = run(monkeypatch, lambda r: (r(ProgressUpdate(0, 0, Usage(), 0, 0)), time.sleep(0.5)))
    assert sum(line.endswith("nothing left to judge") for line in lines) == 1
    assert not [line for line in lines if line.startswith("judging")]


def test_an_unchanged_judging_line_is_not_repeated_every_few_seconds(monkeypatch):
    """Issue 45: 122 identical lines in one run while a batch judge scored."""
    def steps(r):
        r(ProgressUpdate(0, 10, Usage(), 0, 0))
        r(ProgressUpdate(1, 10, Usage(calls=1), 0, 0))
        time.sleep(0.9)  # the heartbeat ticks four times with nothing new to say

    lines = run(monkeypatch, steps)
    assert sum(line.startswith("judging: 1/10 cases") for line in lines) == 1


def test_a_changed_judging_line_is_said_at_the_next_tick(monkeypatch):
    def steps(r):
        r(ProgressUpdate(0, 10, Usage(), 0, 0))
        time.sleep(0.3)
        r(ProgressUpdate(1, 10, Usage(calls=1), 0, 0))
        time.sleep(0.3)
        r(ProgressUpdate(2, 10, Usage(calls=2), 0, 0))
        time.sleep(0.3)

    lines = run(monkeypatch, steps)
    assert any(line.startswith("judging: 2/10 cases") for line in lines)


def test_a_continuation_says_how_many_cases_were_judged_before(monkeypatch):
    lines = run(monkeypatch, lambda r: r(ProgressUpdate(0, 22, Usage(), 0, 0, already=4)))
    assert any(line.endswith("judging 22 cases (4 already judged)") for line in lines)


def test_a_stage_name_with_brackets_is_shown_as_written(monkeypatch):
    lines = run(monkeypatch, lambda r: r.stage("judging with vote(judges=[zero-shot,likelihood])"))
    assert any(line.endswith("vote(judges=[zero-shot,likelihood])") for line in lines)
