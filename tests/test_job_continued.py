"""The job a workspace stores, continued and re-judged as the user meant (issue 45, points 2-6),
through the real CLI and a scripted OpenAI-compatible server on 127.0.0.1:

- ``--rejudge`` keeps every stored option not given again (the model, the depth) and says what changes;
- paths are stored absolute, so `fill -w WS` works from any folder, and a run file that is gone is named;
- the report describes the stored job (its settings, depth and model) and its state, partial or waiting,
  and after a ``--rejudge`` the state and the counts are the new job's.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_fill_people import _collection, model_server  # noqa: F401  (model_server: a fixture)


def qk(*args, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "qrelkit", *map(str, args)], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env=dict(os.environ, COLUMNS="400"))


def ok(p: subprocess.CompletedProcess) -> dict:
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout)


@pytest.fixture
def shallow(model_server, tmp_path):  # noqa: F811  (the fixture, by name)
    """A first `fill` at depth 3 (holes b and c; depth 10 would pool e too) with zero-shot and --limit 1."""
    model, log = model_server
    ws = tmp_path / "ws"
    first = ok(qk("fill", "-w", ws, *_collection(tmp_path / "c"), "--depth", "3", "--method", "zero-shot",
                  "--model", model, "--limit", "1", "--json"))
    return ws, model, first


# ------------------------------------------------------------------ --rejudge
def test_rejudge_keeps_the_stored_model_and_depth(shallow):
    ws, model, first = shallow
    new = ok(qk("fill", "-w", ws, "--rejudge", "--method", "debate(rounds=1)", "--limit", "4", "--json"))
    assert (new["model"], new["pool"]["pooled"]) == (first["model"], first["pool"]["pooled"])


def test_rejudge_says_what_changes_from_old_to_new(shallow):
    ws, _, first = shallow
    p = qk("fill", "-w", ws, "--rejudge", "--method", "debate(rounds=1)", "--limit", "4", "--json")
    assert f"method: {first['method']!r} → 'debate(" in p.stderr
    assert "limit: 1 → 4" in p.stderr


def test_rejudge_does_not_mention_what_it_keeps(shallow):
    ws, _, _ = shallow
    p = qk("fill", "-w", ws, "--rejudge", "--method", "debate(rounds=1)", "--json")
    assert "depth:" not in p.stderr
    assert "model:" not in p.stderr


def test_after_rejudge_the_earlier_jobs_escalation_does_not_make_the_new_job_wait(model_server, tmp_path):  # noqa: F811
    model, _ = model_server
    ws = tmp_path / "ws"
    first = ok(qk("fill", "-w", ws, *_collection(tmp_path / "c"), "--method", "debate(rounds=2)", "--model", model,
                  "--json"))
    assert first["state"] == "waiting"  # the debate escalated the gap3 document
    new = ok(qk("fill", "-w", ws, "--rejudge", "--method", "zero-shot", "--limit", "1", "--json"))
    assert new["state"] == "partial"
    report = json.loads((ws / "report.json").read_text())
    assert (report["state"]["state"], report["state"]["left"]) == ("partial", {"limit": 2})
    assert not any("escalate" in k for k in report["provenance"]["counts"] if k.startswith("judgments escalate"))


# ------------------------------------------------------------------ the report describes the stored job
def test_a_bare_continuation_reports_the_stored_jobs_settings(shallow):
    ws, model, first = shallow
    ok(qk("fill", "-w", ws, "--json"))
    settings = json.loads((ws / "report.json").read_text())["plan"]["settings"]
    assert (settings["method"], settings["model"], settings["depth"]) == (first["method"], model, 3)
    assert len(settings["runs"]) == 1


def test_the_holes_section_uses_the_jobs_depth(shallow):
    ws, _, _ = shallow
    ok(qk("fill", "-w", ws, "--json"))
    assert json.loads((ws / "report.json").read_text())["holes"]["depth"] == 3


def test_a_partial_job_says_so_with_counts_per_reason_in_the_report(shallow):
    ws, _, _ = shallow
    report = json.loads((ws / "report.json").read_text())
    assert (report["state"]["state"], report["state"]["left"]) == ("partial", {"limit": 1})
    assert "Job state: partial" in (ws / "report.html").read_text()


def test_a_waiting_job_says_what_people_have_to_do_in_the_report(model_server, tmp_path):  # noqa: F811
    model, _ = model_server
    ws = tmp_path / "ws"
    ok(qk("fill", "-w", ws, *_collection(tmp_path / "c"), "--method", "debate(rounds=2)", "--model", model, "--json"))
    written = ok(qk("report", "-w", ws, "--out", tmp_path / "r.html", "--json"))
    state = json.loads(Path(written["json"]).read_text())["state"]
    assert (state["state"], state["people"]["escalations"]) == ("waiting", 1)
    assert "qrelkit annotate serve" in state["todo"]


def test_an_auto_threshold_is_not_reported_as_given(shallow):
    ws, _, _ = shallow
    report = json.loads((ws / "report.json").read_text())
    assert report["threshold_source"] != "given"


# ------------------------------------------------------------------ paths
def test_fill_continues_from_another_folder(model_server, tmp_path):  # noqa: F811
    model, _ = model_server
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir(), there.mkdir()
    rel = [a.relative_to(here) if isinstance(a, Path) else a for a in _collection(here / "c")]
    ok(qk("fill", "-w", "ws", *rel, "--method", "zero-shot", "--model", model, "--limit", "1", "--json", cwd=here))
    p = qk("fill", "-w", here / "ws", "--json", cwd=there)
    assert "skipped" not in ok(p) and "skipped" not in p.stderr
    assert json.loads((here / "ws" / "report.json").read_text())["scores"]["available"]


def test_holes_of_a_workspace_work_from_another_folder(shallow, tmp_path):
    ws, _, _ = shallow
    assert ok(qk("holes", "-w", ws, "--json", cwd=tmp_path / "c"))["runs"]


def test_a_run_file_that_is_gone_is_named(shallow, tmp_path):
    ws, _, _ = shallow
    (tmp_path / "c" / "run.txt").unlink()
    p = qk("fill", "-w", ws, "--json")
    assert p.returncode == 2, p.stderr
    assert str(tmp_path / "c" / "run.txt") in p.stderr
