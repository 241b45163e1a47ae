"""The report's RAG section: present with graded answers in the workspace, absent without."""
from __future__ import annotations

import json

import pytest

from qrelkit.data import read_qrels
from qrelkit.report import report_from_workspace
from qrelkit.store import Store
from qrelkit.store.rag import Grade

from .conftest import RANKINGS

CORRECT = {("a", "q1"): 1, ("a", "q2"): 0, ("a", "q3"): 1, ("b", "q1"): 1, ("b", "q2"): 0, ("b", "q3"): 0,
           ("c", "q1"): 0, ("c", "q2"): 1, ("c", "q3"): 0}


@pytest.fixture
def workspace(collection, tmp_path):
    ws = tmp_path / "ws"
    with Store.create(ws) as store:
        store.upsert_qrels(read_qrels(collection["qrels"]))
        for s in RANKINGS:
            store.upsert_run(s, str(collection["runs"] / f"{s}.run"))
    return ws


def add_grades(ws):
    with Store.open(ws) as store:
        store.put_grades([Grade(s, q, "gen", "judge", "p", "x", bool(c)) for (s, q), c in CORRECT.items()])


def test_the_section_shows_with_graded_answers(workspace, tmp_path):
    add_grades(workspace)
    files = report_from_workspace(workspace, tmp_path / "r.html", threshold=1)
    data = json.loads(files.json.read_text())
    assert data["rag"]["generators"]["gen"]["versions"]["original"]["correct_rate"] == pytest.approx(4 / 9)


def test_the_section_has_the_retrieval_vs_generation_plot(workspace, tmp_path):
    add_grades(workspace)
    files = report_from_workspace(workspace, tmp_path / "r.html", threshold=1)
    html = files.html.read_text()
    assert 'alt="retrieval score vs generation accuracy" src="data:image/png;base64,' in html


def test_no_graded_answers_no_section(workspace, tmp_path):
    files = report_from_workspace(workspace, tmp_path / "r.html", threshold=1)
    assert "rag" not in json.loads(files.json.read_text())
