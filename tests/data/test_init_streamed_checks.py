"""`init` checks the qrels and runs in streaming passes before it writes (issue 30): the qrels in a
scratch table of the store, the runs as hashes. The first problem in file order is the one reported,
and a refused load writes nothing."""
from __future__ import annotations

import pytest

from qrelkit.data.qrels import iter_with_lines, load_qrels
from qrelkit.data.rankings import check_ranking
from qrelkit.data.runs import read_run
from qrelkit.errors import InputError
from qrelkit.store import Store
from qrelkit.workspace import load_collection


def _conflicts(path):
    def conflict(lineno, q, first, grade):
        raise InputError(path, lineno, f"conflict with line {first}")
    return conflict


def _message(fn) -> str:
    with pytest.raises(InputError) as e:
        fn()
    return str(e.value)


@pytest.mark.parametrize("text", [
    "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 2\nq1 0 d1 1\nq1 0 d3 1\nq1 0 d1 3\n",  # the conflict in a later batch
    "q1 0 d1 1\nq1 0 d1 2\nq1 0 d2 x\n",  # a conflict before a bad grade
    "q1 0 d1 1\nq1 0 d2\nq1 0 d1 2\n",  # a bad line before a conflict
])
def test_staging_reports_the_problem_load_qrels_reports(tmp_path, text):
    path = tmp_path / "qrels.txt"
    path.write_text(text)
    with Store.create(tmp_path / "ws") as store:
        staged = _message(lambda: store.stage_qrels(iter_with_lines(path), _conflicts(path), batch=2))
    whole = _message(lambda: load_qrels(path))
    assert staged.split(": ")[0] == whole.split(": ")[0]  # the same file and line


def test_staging_counts_pairs_and_identical_repeats_across_batches(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 1\nq2 0 d1 2\nq1 0 d2 0\n")
    with Store.create(tmp_path / "ws") as store:
        assert store.stage_qrels(iter_with_lines(path), _conflicts(path), batch=2) == (3, 2)


def test_staged_labels_reach_the_qrels_only_when_committed(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text("q1 0 d1 1\nq2 0 d1 2\n")
    with Store.create(tmp_path / "ws") as store:
        store.stage_qrels(iter_with_lines(path), _conflicts(path))
        before = store.qrels()
        store.commit_staged_qrels()
        assert (before, store.qrels()) == ({}, {("q1", "d1"): 1, ("q2", "d1"): 2})


def test_a_conflict_on_the_last_line_of_a_large_file_writes_nothing(tmp_path):
    (tmp_path / "topics.tsv").write_text("q1\tone\n")
    (tmp_path / "docs.tsv").write_text("d1\ttext\n")
    lines = [f"q{i % 50} 0 d{i} {i % 3}\n" for i in range(30_000)] + ["q0 0 d0 2\n"]
    (tmp_path / "qrels.txt").write_text("".join(lines))
    with Store.create(tmp_path / "ws") as store:
        message = _message(lambda: load_collection(store, str(tmp_path / "topics.tsv"), str(tmp_path / "docs.tsv"),
                                                   str(tmp_path / "qrels.txt")))
        counts = store.counts()
    assert "qrels.txt:30001:" in message and "line 1 says 0" in message
    assert (counts.topics, counts.docs, counts.qrels) == (0, 0, 0)


def test_a_checked_run_has_the_careful_readers_name_and_tags(tmp_path):
    path = tmp_path / "a.run"
    path.write_text("q1 Q0 d1 1 2.0 alpha\nq1 Q0 d2 2 1.0 alpha\nq2 Q0 d1 1 3.0 beta\n")
    stub, run = check_ranking(path), read_run(path)
    assert (stub.name, stub.tags, dict(stub.docids)) == (run.name, run.tags, {})


def test_a_run_with_a_repeated_document_is_refused_naming_the_line(tmp_path):
    path = tmp_path / "a.run"
    path.write_text("q1 Q0 d1 1 2.0 t\nq2 Q0 d1 1 2.0 t\nq1 Q0 d1 2 1.0 t\n")
    assert _message(lambda: check_ranking(path)) == _message(lambda: read_run(path))
