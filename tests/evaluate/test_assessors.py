"""Several assessors: reading (one parser), groups, Fleiss' kappa per group with
and without the primary, binary and graded overlap — against hand computations."""
from __future__ import annotations

import numpy as np
import pytest

from qrelkit.errors import InputError, UsageError
from qrelkit.evaluate.agreement import multi_assessor
from qrelkit.evaluate.assessors import assessor_groups, read_assessor_column, read_assessors

from .test_agreement import fleiss_by_hand

# like the DL 2019 re-judgments: topic q1 judged by a and b, topic q2 by c and d
A = {("q1", "x"): 3, ("q1", "y"): 0, ("q1", "z"): 2, ("q1", "w"): 1}
B = {("q1", "x"): 2, ("q1", "y"): 1, ("q1", "z"): 2, ("q1", "w"): 0}
C = {("q2", "x"): 0, ("q2", "y"): 2, ("q2", "z"): 3}
D = {("q2", "x"): 0, ("q2", "y"): 3, ("q2", "z"): 1}
PRIMARY = {("q1", "x"): 3, ("q1", "y"): 0, ("q1", "z"): 1, ("q2", "x"): 1, ("q2", "y"): 2}
SOURCES = [("a", A), ("b", B), ("c", C), ("d", D)]


def _groups():
    return {g.members: g for g in assessor_groups(SOURCES, PRIMARY, threshold=2)}


def test_groups_are_the_assessors_sharing_topics():
    g = _groups()
    assert sorted(g) == [("a", "b"), ("c", "d")]
    assert g[("a", "b")].pairs == 4


@pytest.mark.parametrize("members, column, expect", [
    (("a", "b"), "fleiss_kappa", fleiss_by_hand(np.array([[3, 2], [0, 1], [2, 2], [1, 0]]), [0, 1, 2, 3])),
    (("a", "b"), "fleiss_kappa_binary", fleiss_by_hand(np.array([[1, 1], [0, 0], [1, 1], [0, 0]]), [0, 1])),
    (("a", "b"), "fleiss_kappa_with_primary",
     fleiss_by_hand(np.array([[3, 2, 3], [0, 1, 0], [2, 2, 1]]), [0, 1, 2, 3])),
    (("c", "d"), "fleiss_kappa_binary_with_primary",
     fleiss_by_hand(np.array([[0, 0, 0], [1, 1, 1]]), [0, 1])),
    (("a", "b"), "overlap", 2 / 2),  # x and z relevant for both
    (("c", "d"), "overlap", 1 / 2),  # y both; z only c
    (("a", "b"), "overlap_graded", 1 / 4),  # only z has the same grade
    (("c", "d"), "overlap_graded", 1 / 3),
])
def test_group_figures_by_hand(members, column, expect):
    assert getattr(_groups()[members], column) == pytest.approx(expect)


def test_primary_pairs_count_only_what_the_primary_labels():
    assert _groups()[("c", "d")].primary_pairs == 2


def test_multi_assessor_carries_groups_and_graded_overlap():
    m = multi_assessor(SOURCES, 2, PRIMARY)
    d = m.to_dict()
    assert [g["members"] for g in d["groups"]] == [["a", "b"], ["c", "d"]]
    ab = next(p for p in d["pairwise"] if (p["a"], p["b"]) == ("a", "b"))
    assert ab["overlap_graded"] == pytest.approx(1 / 4)
    assert d["overlap_graded"] == pytest.approx(2 / 7)  # z in q1, x in q2 over the 7 doubly-judged pairs


def test_one_parser_for_the_assessor_column(tmp_path):
    f = tmp_path / "multi.qrels"
    f.write_text("q1 a x 3\nq1 b x 2\nq2 a y 0\n")
    assert read_assessor_column(str(f)) == [("a", {("q1", "x"): 3, ("q2", "y"): 0}), ("b", {("q1", "x"): 2})]
    assert read_assessors([str(f)], assessor_column=True) == read_assessor_column(str(f))
    f.write_text("q1 a x 3\nq1 a x 2\n")
    with pytest.raises(InputError, match="multi.qrels:2: assessor a gives two grades"):
        read_assessor_column(str(f))


def test_one_file_per_assessor_named_by_file(tmp_path):
    (tmp_path / "assessor-01.qrels.txt").write_text("q1 0 x 3\n")
    (tmp_path / "assessor-02.qrels.txt").write_text("q1 0 x 1\n")
    got = read_assessors([str(tmp_path)])
    assert [n for n, _ in got] == ["assessor-01", "assessor-02"]
    with pytest.raises(UsageError, match="exactly one"):
        read_assessors([str(tmp_path), str(tmp_path)], assessor_column=True)
