"""A workspace judged by ``narrative`` before issue 16 (docs=6, one instructor call) resumes with no
model call, and its id still sends the very prompts it sent then (see narrative_fixture)."""

from __future__ import annotations

import gzip
import shutil
import sqlite3

import pytest

from qrelkit.judging.runner import run_judging
from qrelkit.store import Store
from qrelkit.types import Case, Doc

from .narrative_fixture import FIXTURE, OLD_ID, client


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    with gzip.open(FIXTURE / "qrelkit.sqlite.gz", "rb") as g, open(ws / "qrelkit.sqlite", "wb") as f:
        shutil.copyfileobj(g, f)
    return ws


def rows(store):
    return sorted(store.judgments(method=OLD_ID), key=lambda j: (j.qid, j.docid))


def test_a_bare_narrative_resumes_the_old_judgments_with_no_call(workspace):
    with Store.open(workspace) as store:
        before = rows(store)
        c = client(store)
        summary = run_judging(store, "narrative", c, task="graded")
        assert summary.method == OLD_ID
        assert summary.new == 0
        assert rows(store) == before
    assert c.backend.calls == 0


def test_a_new_case_is_judged_under_the_old_id_with_the_stored_narratives(workspace):
    with Store.open(workspace) as store:
        store.upsert_docs([Doc("h9", "hole 9 text")])
        store.upsert_cases([Case("q1", "h9", "llm", 9)])
        c = client(store)
        summary = run_judging(store, "narrative", c, task="graded")
        assert summary.method == OLD_ID
        assert summary.new == 1
        assert summary.narrative_calls == 0
    assert c.backend.calls == 1  # the assessor's call for the new case, no instructor call


def test_the_old_id_sends_the_same_prompts_as_before(workspace):
    """With its judgments and narratives gone, the old id is answered from the LLM calls cached
    then: the same instructor and assessor prompts, hence the same labels and narratives."""
    with Store.open(workspace) as store:
        before, narratives = rows(store), store.narratives()
    with sqlite3.connect(workspace / "qrelkit.sqlite") as db:
        db.execute("DELETE FROM judgments")
        db.execute("DELETE FROM narratives")
    with Store.open(workspace) as store:
        c = client(store)
        run_judging(store, OLD_ID, c, task="graded")
        assert rows(store) == before
        assert {q: r["narrative"] for q, r in store.narratives().items()} == {
            q: r["narrative"] for q, r in narratives.items()
        }
    assert c.backend.calls == 0


def test_writing_docs_all_out_reads_every_judged_document_anew(workspace):
    with Store.open(workspace) as store:
        c = client(store)
        summary = run_judging(store, "narrative(docs=all)", c, task="graded")
        assert "docs=all" in summary.method
        assert summary.narrative_calls == 2  # one per topic: 10 short documents fit one prompt
        assert all(len(r["provenance"]["docs"]) == 10 for r in store.narratives().values())
