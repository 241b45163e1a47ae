"""The streamed export writes exactly what merge() + write_merged() write."""
from __future__ import annotations

from qrelkit.merge import export_merged, merge, write_merged
from qrelkit.store import Store
from qrelkit.store.waiting import PEOPLE_METHOD
from qrelkit.types import Judgment, Qrel

JUDGE = ("zero-shot", "m")


def workspace(tmp_path) -> Store:
    store = Store.create(tmp_path / "ws")
    store.upsert_qrels([Qrel("q1", "a", 2), Qrel("q2", "z", 0)])
    store.put_judgments([
        Judgment("q1", "a", *JUDGE, 0, 0, "auto"),  # original wins
        Judgment("q1", "b", *JUDGE, 1, 3, "auto"),  # people win
        Judgment("q1", "b", PEOPLE_METHOD, "", 1, 1, "human", source="human"),
        Judgment("q1", "c", *JUDGE, None, None, "escalate"),  # unresolved
        Judgment("q1", "d", PEOPLE_METHOD, "", None, None, "human", source="human"),  # no label: judge's
        Judgment("q1", "d", *JUDGE, 1, 2, "consensus", round=2),
        Judgment("q10", "a", *JUDGE, 0, 1, "auto"),  # sorts between q1 and q2
    ])
    return store


def test_streamed_export_writes_the_same_files(tmp_path):
    store = workspace(tmp_path)
    write_merged(merge(store, *JUDGE), tmp_path / "held.qrels")
    export_merged(store, tmp_path / "streamed.qrels", *JUDGE)
    for suffix in ("", ".provenance.jsonl"):
        held = (tmp_path / f"held.qrels{suffix}").read_text()
        assert (tmp_path / f"streamed.qrels{suffix}").read_text() == held


def test_sources_take_precedence_original_people_judge(tmp_path):
    labels = merge(workspace(tmp_path), *JUDGE).labels
    assert [(m.qid, m.docid, m.source, m.grade) for m in labels] == [
        ("q1", "a", "original", 2), ("q1", "b", "human", 1), ("q1", "d", "llm", 2),
        ("q10", "a", "llm", 1), ("q2", "z", "original", 0),
    ]


def test_escalations_are_unresolved_not_labelled(tmp_path):
    assert merge(workspace(tmp_path), *JUDGE).unresolved == (("q1", "c"),)


def test_export_counts_each_source(tmp_path):
    out = export_merged(workspace(tmp_path), tmp_path / "x.qrels", *JUDGE)
    assert {k: out[k] for k in ("labels", "original", "human", "llm", "unresolved")} == {
        "labels": 5, "original": 2, "human": 1, "llm": 2, "unresolved": 1,
    }
