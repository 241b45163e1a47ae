"""A workspace made by qrelkit 41e3b2f resumes with no model call and the same merged qrels.

Refactors must keep stored method ids, LLM cache keys and canonical spec strings; this is the
proof (see :mod:`tests.judges.legacy_fixture` for how the fixture was made).
"""

from __future__ import annotations

import gzip
import shutil
import sqlite3

import pytest

from qrelkit.judges import canonical
from qrelkit.judges.runner import run_judging
from qrelkit.merge import merge, write_merged
from qrelkit.store import Store

from .legacy_fixture import FIXTURE, JOBS, MODEL, TASK, client, qrels_name, today

DB = "qrelkit.sqlite"


@pytest.fixture
def workspace(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    with gzip.open(FIXTURE / f"{DB}.gz", "rb") as g, open(ws / DB, "wb") as f:
        shutil.copyfileobj(g, f)
    return ws


def merged_text(store: Store, method: str, out) -> str:
    write_merged(merge(store, canonical(today(method)), MODEL), out)
    return out.read_text()


def rows(store: Store, method: str) -> list:
    return sorted(store.judgments(method=canonical(today(method)), model=MODEL), key=lambda j: (j.qid, j.docid))


@pytest.mark.parametrize("method,share,budget", JOBS)
def test_rerun_makes_no_call(workspace, method, share, budget):
    with Store.open(workspace) as store:
        c = client(store)
        run_judging(store, today(method), c, task=TASK, share=share, budget=budget)
    assert c.backend.calls == 0


@pytest.mark.parametrize("method,share,budget", JOBS)
def test_rerun_rewrites_no_judgment(workspace, method, share, budget):
    with Store.open(workspace) as store:
        before = rows(store, method)
        summary = run_judging(store, today(method), client(store), task=TASK, share=share, budget=budget)
        assert summary.new == 0
        assert rows(store, method) == before


@pytest.mark.parametrize("method,share,budget", JOBS)
def test_rerun_exports_the_same_qrels(workspace, tmp_path, method, share, budget):
    with Store.open(workspace) as store:
        run_judging(store, today(method), client(store), task=TASK, share=share, budget=budget)
        text = merged_text(store, method, tmp_path / "merged.qrels")
    assert text == (FIXTURE / qrels_name(method)).read_text()


def _forget_judgments(workspace, method: str) -> None:
    with sqlite3.connect(workspace / DB) as c:
        c.execute("DELETE FROM judgments WHERE method=?", (canonical(today(method)),))


@pytest.mark.parametrize("method,share,budget", JOBS)
def test_judging_again_from_the_cache_makes_no_call(workspace, method, share, budget):
    """Same cache keys: with its judgments gone, a job is answered from the stored LLM calls."""
    _forget_judgments(workspace, method)
    with Store.open(workspace) as store:
        c = client(store)
        run_judging(store, today(method), c, task=TASK, share=share, budget=budget)
    assert c.backend.calls == 0


@pytest.mark.parametrize("method,share,budget", JOBS)
def test_judging_again_from_the_cache_exports_the_same_qrels(workspace, tmp_path, method, share, budget):
    _forget_judgments(workspace, method)
    with Store.open(workspace) as store:
        run_judging(store, today(method), client(store), task=TASK, share=share, budget=budget)
        text = merged_text(store, method, tmp_path / "merged.qrels")
    assert text == (FIXTURE / qrels_name(method)).read_text()


@pytest.mark.parametrize("method,share,budget", JOBS)
def test_judging_again_from_the_cache_derives_the_same_judgments(workspace, method, share, budget):
    """Labels, provenance and usage of every judgment, as 41e3b2f stored them."""
    with Store.open(workspace) as store:
        before = rows(store, method)
    _forget_judgments(workspace, method)
    with Store.open(workspace) as store:
        run_judging(store, today(method), client(store), task=TASK, share=share, budget=budget)
        assert rows(store, method) == before


@pytest.mark.parametrize("method", ["zero-shot", "prefilter(keep=0.9)+zero-shot"])
def test_the_old_spelling_keeps_its_stored_id(method):
    from .legacy_fixture import today

    assert canonical(today(method)) == {
        "zero-shot": "zero-shot(doc_tokens=400)",
        "prefilter(keep=0.9)+zero-shot": "prefilter(by=likelihood,calib=200,doc_tokens=400,keep=0.9)+zero-shot(doc_tokens=400)",
    }[method]


@pytest.mark.parametrize("method", ["zero-shot", "prefilter(keep=0.9)+zero-shot"])
def test_a_bare_zero_shot_in_an_old_workspace_is_refused_and_says_how_to_resume(workspace, method):
    from qrelkit.errors import UsageError

    with Store.open(workspace) as store, pytest.raises(UsageError, match=r"zero-shot\(narrative=topic\) to resume"):
        run_judging(store, method, client(store), task=TASK, share="llm")


def test_the_new_default_can_be_asked_for_explicitly_in_an_old_workspace(workspace):
    with Store.open(workspace) as store:
        summary = run_judging(store, "zero-shot(narrative=none)", client(store), task=TASK, share="llm", limit=2)
    assert summary.new == 2

