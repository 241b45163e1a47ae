"""The graded task's binary threshold follows the collection, like every measure's."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from qrelkit.errors import InputError
from qrelkit.judging.runner import run_judging
from qrelkit.judging.selection import resolve_task
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Qrel, Topic

from .conftest import make_client


def _workspace(path, grades):
    store = Store.create(path)
    store.upsert_topics([Topic("q1", "fox")])
    store.upsert_docs([Doc("d1", "a fox"), Doc("d2", "judged"), Doc("d3", "judged too")])
    store.upsert_qrels([Qrel("q1", "d2", grades[0]), Qrel("q1", "d3", grades[1])])
    store.upsert_cases([Case("q1", "d1", "llm", 1)])
    return store


@pytest.mark.parametrize(("grades", "threshold"), [((0, 1), 1), ((0, 3), 2)])
def test_auto_threshold_is_read_off_the_workspace_qrels(tmp_path, grades, threshold):
    with _workspace(tmp_path / "ws", grades) as store:
        assert resolve_task(store, "graded").threshold == threshold


def test_a_binary_collection_counts_an_llm_grade_of_one_as_relevant(tmp_path):
    with _workspace(tmp_path / "ws", (0, 1)) as store:
        client = make_client(lambda m, p: {"reason": "related", "grade": 1}, store=store)
        summary = run_judging(store, "zero-shot", client)
        (j,) = store.judgments(method=summary.method)
        assert j.label == 1
        assert json.loads(j.provenance)["task"] == {"name": "graded", "threshold": 1}


def test_the_same_grade_is_not_relevant_on_a_graded_collection(tmp_path):
    with _workspace(tmp_path / "ws", (0, 3)) as store:
        client = make_client(lambda m, p: {"reason": "related", "grade": 1}, store=store)
        summary = run_judging(store, "zero-shot", client)
        (j,) = store.judgments(method=summary.method)
        assert j.label == 0


def test_a_given_threshold_above_the_largest_grade_is_refused(tmp_path):
    with _workspace(tmp_path / "ws", (0, 1)) as store:
        with pytest.raises(InputError, match="largest grade"):
            resolve_task(store, "graded", 2)


def test_judge_threshold_above_the_largest_grade_exits_2_with_one_line(tmp_path):
    _workspace(tmp_path / "ws", (0, 1)).close()
    r = subprocess.run([sys.executable, "-m", "qrelkit", "judge", "-w", str(tmp_path / "ws"), "--method",
                        "zero-shot", "--model", "openai:m@http://127.0.0.1:9/v1", "--threshold", "3"], capture_output=True, text=True)
    assert r.returncode == 2
    assert "largest grade" in r.stderr
    assert "Traceback" not in r.stderr
