"""The leave-one-set-out evaluation's own arithmetic (benchmarks/guard_e5_loso.py): which windows
reach e5, a document's probability, the threshold that spares one held-back passage, and the
paired gain between two variants."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import guard_e5_loso as loso  # noqa: E402

CANDS = [(10, "a"), (30, "b"), (30, "c"), (20, "d")]


def test_selection_keeps_the_best_n_gram_windows_first_of_equals():
    assert loso.selection(CANDS, "all") == ["a", "b", "c", "d"]
    assert loso.selection(CANDS, "best") == ["b"]
    assert loso.selection(CANDS, "top3") == ["b", "c", "d"]
    assert loso.selection([], "best") == []


def test_a_document_scores_its_best_selected_window():
    p = {"a": 0.9, "b": 0.2, "c": 0.5, "d": 0.1}
    assert list(loso.doc_probs(p, [CANDS, []], "all")) == [0.9, 0.0]
    assert list(loso.doc_probs(p, [CANDS], "best")) == [0.2]


def test_the_threshold_spares_one_held_back_passage_and_recall_counts_the_guard():
    held = [[(0, f"h{i}")] for i in range(5)]
    p = {f"h{i}": i / 10 for i in range(5)} | {"x": 0.35, "y": 0.31, "z": 0.29}
    rows = [("en", False, [(0, "x")]), ("en", False, [(0, "y")]), ("de", False, [(0, "z")]), ("de", True, [])]
    prep = loso.Prep(held=held, dl_guard=2, dl=[[(0, "x")], [(0, "z")]], sets={"k": rows})
    m = loso.measure(p, prep, "k", "all")
    assert m["threshold"] == pytest.approx(0.3, abs=1e-5)  # 0.4 flagged (spared), 0.3 is not
    assert m["hits"] == 3 and m["guard"] == 1 and m["dl_flags"] == 3
    assert m["langs"] == {"de": [2, 1], "en": [2, 2]}


def test_the_gain_is_paired_by_phrasing():
    def res(per):
        return {"k": {"all": {"per_phrasing": per}}}
    a, b = res([30, 10, 0, 20]), res([30, 12, 0, 20])
    assert loso.gain({"a": a, "b": a}, "a", "b", ["k"], "all") == (0.0, 0.0, 0.0)
    d, lo, hi = loso.gain({"a": a, "b": b}, "a", "b", ["k"], "all")
    assert d == pytest.approx(2 / 120) and 0.0 <= lo <= d <= hi <= 2 / 120 * 4 + 1e-12
