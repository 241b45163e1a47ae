"""A new judgment's stored method id says which prompt ran (issue 24, point 8): a spec the user
writes takes today's defaults for what it leaves out, so `--method 'zero-shot(doc_tokens=300)'`
is stored as `zero-shot(doc_tokens=300,narrative=none)`, not as the id of the TREC-narrative
baseline; that legacy id only comes back when a workspace judged under it is resumed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakeserver import serve

from qrelkit.judges import parse_spec
from qrelkit.judging.runner import run_judging
from qrelkit.llm import Client, ScriptedBackend
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Qrel, Topic

from .test_cli import qrelkit

LEGACY = "zero-shot(doc_tokens=300)"  # the id the TREC-narrative baseline was stored under
NEW = "zero-shot(doc_tokens=300,narrative=none)"


def make_ws(path: Path) -> Path:
    """Three graded cases (the workspace's one qrel is graded), topics with a narrative."""
    with Store.create(path) as s:
        s.upsert_topics([Topic("q0", "query 0", narrative="a narrative only the baseline reads")])
        s.upsert_docs([Doc(f"d{i}", f"passage {k} number {i}") for i, k in enumerate(["agree3", "agree0", "gap3", "x"])])
        s.upsert_qrels([Qrel("q0", "d3", 3)])
        s.upsert_cases([Case("q0", f"d{i}", "llm", i + 1) for i in range(3)])
    return path


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    log = tmp_path_factory.mktemp("srv") / "requests.log"
    log.write_text("")
    with serve("judges.fake_openai", log) as url:
        yield url, log


def methods(ws: Path) -> set[str]:
    with Store.open(ws) as s:
        return {j.method for j in s.judgments()}


def test_a_written_zero_shot_spec_is_stored_under_the_id_of_the_prompt_that_ran(server, tmp_path):
    url, _ = server
    ws = make_ws(tmp_path / "ws")
    r = qrelkit("judge", "-w", str(ws), "--method", LEGACY, "--model", f"openai:fake@{url}", "--json")
    assert r.returncode == 0, r.stderr
    assert methods(ws) == {NEW}


def test_the_judge_summary_names_the_new_id(server, tmp_path):
    url, _ = server
    ws = make_ws(tmp_path / "ws")
    r = qrelkit("judge", "-w", str(ws), "--method", LEGACY, "--model", f"openai:fake@{url}", "--json")
    assert json.loads(r.stdout)["method"] == NEW


def test_the_prompt_that_ran_had_no_narrative(server, tmp_path):
    url, _ = server
    ws = make_ws(tmp_path / "ws")
    qrelkit("judge", "-w", str(ws), "--method", LEGACY, "--model", f"openai:fake@{url}", "--json")
    with Store.open(ws) as s:
        queries = {json.loads(j.provenance).get("query") for j in s.judgments()}
    assert queries == {"text only (zero-shot, no narrative)"}


def test_export_with_the_written_spec_finds_the_new_judgments(server, tmp_path):
    url, _ = server
    ws = make_ws(tmp_path / "ws")
    qrelkit("judge", "-w", str(ws), "--method", LEGACY, "--model", f"openai:fake@{url}", "--json")
    r = qrelkit("export", "-w", str(ws), "--out", str(tmp_path / "q.txt"), "--method", LEGACY, "--json")
    assert r.returncode == 0, r.stderr
    assert len((tmp_path / "q.txt").read_text().split("\n")) >= 4  # the qrel and the 3 judged cases


def _legacy_workspace(path: Path) -> Path:
    """A workspace judged under the legacy id, as an earlier qrelkit stored it (the stored
    reading of the id: the TREC-narrative prompt)."""
    ws = make_ws(path)
    spec = parse_spec(LEGACY)  # a stored id reads back as what it meant
    assert spec.canonical == LEGACY
    with Store.open(ws) as s:
        old = ScriptedBackend(lambda m, p: {"reason": "old", "grade": 2}, model_id="openai:fake")
        client = Client(old, store=s)
        run_judging(s, spec, client)
    return ws


def test_resuming_a_legacy_workspace_keeps_its_id(server, tmp_path):
    url, _ = server
    ws = _legacy_workspace(tmp_path / "ws")
    r = qrelkit("judge", "-w", str(ws), "--method", LEGACY, "--model", f"openai:fake@{url}", "--json")
    assert methods(ws) == {LEGACY}, r.stderr


def test_resuming_a_legacy_workspace_makes_no_call(server, tmp_path):
    url, log = server
    ws = _legacy_workspace(tmp_path / "ws")
    n = len(log.read_text().split())
    qrelkit("judge", "-w", str(ws), "--method", LEGACY, "--model", f"openai:fake@{url}", "--json")
    assert len(log.read_text().split()) == n
