"""The budget split rule and move-to-front's rounds."""
from __future__ import annotations

import pytest

from qrelkit.pooling import MoveToFront, split_budget


@pytest.mark.parametrize(("budget", "available", "expected"), [
    (10, {"a": 2, "b": 10, "c": 10}, {"a": 2, "b": 4, "c": 4}),  # a's leftover split over b and c
    (5, {"a": 10, "b": 10}, {"a": 3, "b": 2}),  # the remainder to the first qid
    (100, {"a": 3, "b": 4}, {"a": 3, "b": 4}),  # more than there is: everything, no more
    (2, {"a": 5, "b": 0, "c": 5}, {"a": 1, "b": 0, "c": 1}),  # a topic without candidates gets nothing
    (1, {"a": 5, "b": 5, "c": 5}, {"a": 1, "b": 0, "c": 0}),
])
def test_the_budget_is_split_equally_and_leftovers_are_passed_on(budget, available, expected):
    assert split_budget(budget, available) == expected


def test_a_split_budget_is_spent_exactly_when_there_is_enough():
    available = {f"q{i}": i for i in range(1, 30)}
    assert sum(split_budget(200, available).values()) == 200


def test_mtf_reads_one_run_on_while_it_finds_relevant_documents():
    state = MoveToFront([("a1", "a2", "a3"), ("b1", "b2")])
    seen = []
    for rel in (True, True, False, False):
        (d,) = state.propose()
        seen.append(d)
        state.record({d: rel})
    assert seen == ["a1", "a2", "a3", "b1"]


def test_mtf_turns_to_the_next_run_after_a_miss():
    state = MoveToFront([("a1", "a2"), ("b1", "b2"), ("c1",)])
    seen = []
    for _ in range(3):
        (d,) = state.propose()
        seen.append(d)
        state.record({d: False})
    assert seen == ["a1", "b1", "c1"]


def test_mtf_skips_what_another_run_already_read():
    state = MoveToFront([("d1", "d2"), ("d1", "d3")])
    state.propose()
    state.record({"d1": False})
    assert state.propose() == ["d3"]


def test_a_round_of_b_reads_b_documents_of_the_front_run():
    assert MoveToFront([("a1", "a2", "a3"), ("b1",)]).propose(2) == ["a1", "a2"]


def test_a_round_lowers_the_front_runs_priority_once_per_miss():
    state = MoveToFront([("a1", "a2", "a3"), ("b1", "b2")])
    state.propose(2)
    state.record({"a1": False, "a2": False})
    assert state.priority == [-2, 0]


def test_a_pair_without_a_label_holds_its_topic():
    state = MoveToFront([("a1", "a2"), ("b1",)])
    state.propose(2)
    state.record({"a1": True})
    assert state.propose() == []


def test_the_held_topic_goes_on_once_the_label_comes():
    state = MoveToFront([("a1", "a2"), ("b1",)])
    state.propose(2)
    state.record({"a1": True})
    state.record({"a2": False})
    assert state.propose() == ["b1"]


def test_mtf_proposes_nothing_when_every_run_is_read():
    state = MoveToFront([("a1",), ("a1",)])
    state.propose()
    state.record({"a1": True})
    assert state.propose() == []
