"""A workspace made by qrelkit 41e3b2f resumes with no model call and the same merged qrels.

Refactors must keep stored method ids, LLM cache keys and canonical spec strings; this is the
proof (see :mod:`tests.judges.legacy_fixture` for how the fixture was made).
"""

from __future__ import annotations

import gzip
import shutil
import sqlite3

import pytest

from qrelkit.judges import parse_spec
from qrelkit.judging.runner import run_judging
from qrelkit.merge import merge, write_merged
from qrelkit.store import Store

from .legacy_fixture import FIXTURE, JOBS, MODEL, TASK, client, qrels_name

DB = "qrelkit.sqlite"


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    with gzip.open(FIXTURE / f"{DB}.gz", "rb") as g, open(ws / DB, "wb") as f:
        shutil.copyfileobj(g, f)
    return ws


def stored_id(method: str) -> str:
    """The id a job of ``method`` resumes under in this workspace: the spec as it was before
    defaults changed (a debate's v2 prompt); the same as its canonical id for other methods."""
    return str(parse_spec(method).as_before())


def merged_text(store: Store, method: str, out) -> str:
    write_merged(merge(store, stored_id(method), MODEL), out)
    return out.read_text()


def rows(store: Store, method: str) -> list:
    return sorted(store.judgments(method=stored_id(method), model=MODEL), key=lambda j: (j.qid, j.docid))


@pytest.mark.parametrize("method,share,budget", JOBS)
def test_rerun_makes_no_call(workspace, method, share, budget):
    with Store.open(workspace) as store:
        c = client(store)
        run_judging(store, method, c, task=TASK, share=share, budget=budget)
    assert c.backend.calls == 0


@pytest.mark.parametrize("method,share,budget", JOBS)
def test_rerun_rewrites_no_judgment(workspace, method, share, budget):
    with Store.open(workspace) as store:
        before = rows(store, method)
        summary = run_judging(store, method, client(store), task=TASK, share=share, budget=budget)
        assert summary.new == 0
        assert rows(store, method) == before


@pytest.mark.parametrize("method,share,budget", JOBS)
def test_rerun_exports_the_same_qrels(workspace, tmp_path, method, share, budget):
    with Store.open(workspace) as store:
        run_judging(store, method, client(store), task=TASK, share=share, budget=budget)
        text = merged_text(store, method, tmp_path / "merged.qrels")
    assert text == (FIXTURE / qrels_name(method)).read_text()


def _forget_judgments(workspace, method: str) -> None:
    with sqlite3.connect(workspace / DB) as c:
        c.execute("DELETE FROM judgments WHERE method=?", (stored_id(method),))


@pytest.mark.parametrize("method,share,budget", JOBS)
def test_judging_again_from_the_cache_makes_no_call(workspace, method, share, budget):
    """Same cache keys: with its judgments gone, a job is answered from the stored LLM calls."""
    _forget_judgments(workspace, method)
    with Store.open(workspace) as store:
        c = client(store)
        run_judging(store, method, c, task=TASK, share=share, budget=budget)
    assert c.backend.calls == 0


@pytest.mark.parametrize("method,share,budget", JOBS)
def test_judging_again_from_the_cache_exports_the_same_qrels(workspace, tmp_path, method, share, budget):
    _forget_judgments(workspace, method)
    with Store.open(workspace) as store:
        run_judging(store, method, client(store), task=TASK, share=share, budget=budget)
        text = merged_text(store, method, tmp_path / "merged.qrels")
    assert text == (FIXTURE / qrels_name(method)).read_text()


@pytest.mark.parametrize("method,share,budget", JOBS)
def test_judging_again_from_the_cache_derives_the_same_judgments(workspace, method, share, budget):
    """Labels, provenance and usage of every judgment, as 41e3b2f stored them."""
    with Store.open(workspace) as store:
        before = rows(store, method)
    _forget_judgments(workspace, method)
    with Store.open(workspace) as store:
        run_judging(store, method, client(store), task=TASK, share=share, budget=budget)
        assert rows(store, method) == before


def test_writing_the_new_prompt_out_rejudges_an_old_debate_workspace(workspace):
    """The pin to the old id applies only when the spec leaves ``prompt`` out."""
    with Store.open(workspace) as store:
        summary = run_judging(store, "debate(adjudicator=llm,prompt=v2)", client(store), task=TASK, limit=2)
    assert "prompt=v2" in summary.method
