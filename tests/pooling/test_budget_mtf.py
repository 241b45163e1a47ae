"""The budget split rule and move-to-front's rounds."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


def simulate(rounds, relevant) -> tuple[dict, int]:
    """Drive rounds with an oracle that answers each round at once; pairs read per topic, rounds."""
    read: dict[str, list[str]] = {}
    n = 0
    while not rounds.finished:
        batch = rounds.propose()
        n += 1
        for q, d in batch:
            read.setdefault(q, []).append(d)
        rounds.record({p: relevant(*p) for p in batch})
    return {q: tuple(ds) for q, ds in read.items()}, n


@pytest.mark.parametrize("spec", ["mtf(n=4)", "mtf(n=6,batch=2)", "mtf(budget=7)", "mtf(budget=100,batch=3)"])
def test_rounds_answered_by_an_oracle_read_what_choose_reads(spec, tmp_path):
    from qrelkit.pooling import MtfRounds, choose, parse_pool
    from tests.pooling.example import relevant, runs

    example = runs(tmp_path)
    read, _ = simulate(MtfRounds(parse_pool(spec), example), relevant)
    assert read == choose(parse_pool(spec), example, relevant=relevant)


def test_rounds_of_one_take_one_pair_per_topic_per_round(tmp_path):
    from qrelkit.pooling import MtfRounds, parse_pool
    from tests.pooling.example import relevant, runs

    _, n = simulate(MtfRounds(parse_pool("mtf(n=3)"), runs(tmp_path)), relevant)
    assert n == 3


def test_a_topic_waiting_on_a_label_does_not_hold_the_others(tmp_path):
    from qrelkit.pooling import MtfRounds, parse_pool
    from tests.pooling.example import runs

    rounds = MtfRounds(parse_pool("mtf(n=3)"), runs(tmp_path))
    rounds.propose()
    rounds.record({("q1", "X"): False})  # q2's first pair stays unlabelled
    assert rounds.propose() == [("q1", "Z")]


def test_rounds_are_only_for_mtf(tmp_path):
    from qrelkit.errors import UsageError
    from qrelkit.pooling import MtfRounds, parse_pool
    from tests.pooling.example import runs

    with pytest.raises(UsageError, match="fixed before judging"):
        MtfRounds(parse_pool("rrf(n=3)"), runs(tmp_path))


@given(budget=st.integers(0, 500), available=st.dictionaries(st.sampled_from([f"q{i}" for i in range(12)]),
                                                            st.integers(0, 60), max_size=12))
def test_a_split_spends_the_budget_or_everything_and_never_more_than_a_topic_has(budget, available):
    quota = split_budget(budget, available)
    assert sum(quota.values()) == min(budget, sum(available.values()))
    assert all(0 <= quota[q] <= available[q] for q in available)


@given(budget=st.integers(0, 500), available=st.dictionaries(st.sampled_from([f"q{i}" for i in range(12)]),
                                                            st.integers(0, 60), max_size=12))
def test_topics_that_are_not_full_get_shares_within_one_of_each_other(budget, available):
    quota = split_budget(budget, available)
    short = [quota[q] for q in available if quota[q] < available[q]]
    assert max(short, default=0) - min(short, default=0) <= 1


@given(small=st.integers(1, 30), extra=st.integers(0, 30))
@settings(max_examples=30, deadline=None)
def test_a_bigger_budget_only_adds_pairs(small, extra, tmp_path_factory):
    from qrelkit.pooling import choose, parse_pool

    example = _example(tmp_path_factory)
    less = choose(parse_pool(f"rbp(budget={small})"), example)
    more = choose(parse_pool(f"rbp(budget={small + extra})"), example)
    assert all(set(less[q]) <= set(more[q]) for q in less)


_EXAMPLE: list = []


def _example(tmp_path_factory):
    from tests.pooling.example import runs

    if not _EXAMPLE:
        _EXAMPLE.append(runs(tmp_path_factory.mktemp("runs")))
    return _EXAMPLE[0]
