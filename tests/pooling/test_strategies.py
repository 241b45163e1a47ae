"""Each pooling strategy on the hand-worked example of tests/pooling/example.py.

The expected orders are worked out by hand in the comments (k=60: 1/61 = .016393,
1/62 = .016129, 1/63 = .015873, 1/64 = .015625)."""
from __future__ import annotations

import pytest

from qrelkit.errors import UsageError
from qrelkit.pooling import choose, parse_pool, strategy_pool
from qrelkit.pooling.pool import build_pool
from qrelkit.types import Case
from tests.pooling.example import QRELS, relevant, runs


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    return runs(tmp_path_factory.mktemp("runs"))


def order(spec: str, example, qid: str = "q1") -> tuple[str, ...]:
    return choose(parse_pool(spec), example, relevant=relevant)[qid]


@pytest.mark.parametrize(("spec", "expected"), [
    # best rank 1: Q (B2, C1) and Z (A2, B1) in two runs' top 2, X (A1) in one; then R (C2)
    ("depth(k=2)", ("Q", "Z", "X", "R")),
    # Q = Z = 1/61 + 1/62 (tie: docid), Y = 2/63, X = 1/61, R = 1/62, P = 1/64
    ("rrf(n=6)", ("Q", "Z", "Y", "X", "R", "P")),
    # k=0: Q = Z = 1 + 1/2, Y = 2/3, X = 1, R = 1/2, P = 1/4: X now beats Y
    ("rrf(n=6,k=0)", ("Q", "Z", "X", "Y", "R", "P")),
    # p=0.8 (weights .2 .16 .128 .1024): Q = Z = .36, Y = .256, X = .2, R = .16, P = .1024
    ("rbp(n=6)", ("Q", "Z", "Y", "X", "R", "P")),
    # p=0.5 (weights .5 .25 .125 .0625): Q = Z = .75, X = .5, R = Y = .25 (tie: docid), P = .0625
    ("rbp(n=6,p=0.5)", ("Q", "Z", "X", "R", "Y", "P")),
    # max: Q = X = Z = .5 (docid), R = .25, Y = .125, P = .0625
    ("rbp(n=6,p=0.5,agg=max)", ("Q", "X", "Z", "R", "Y", "P")),
    # min-max per run: A X1 Z.75 Y.25 P0, B Z1 Q.5 Y0, C Q1 R0 -> Z 2*1.75, Q 2*1.5, X 1, Y 2*.25, P = R = 0
    ("combmnz(n=6)", ("Z", "Q", "X", "Y", "P", "R")),
    # raw: Z 2*8.9, X 10, Y 2*4.1, P 2, Q 2*(0.5-1), R -3
    ("combmnz(n=6,norm=none)", ("Z", "X", "Y", "P", "Q", "R")),
    # A: X miss (A -1); B: Z miss (B -1); C: Q hit, R hit, used up; A (first of the -1s): Y hit, P miss
    ("mtf(n=6)", ("X", "Z", "Q", "R", "Y", "P")),
    # rounds of 2: A gives X, Z (2 misses); B gives Q, Y (hits) and is used up; C gives R; A gives P
    ("mtf(n=6,batch=2)", ("X", "Z", "Q", "Y", "R", "P")),
])
def test_each_strategy_reads_the_topic_in_the_hand_worked_order(spec, expected, example):
    assert order(spec, example) == expected


@pytest.mark.parametrize(("spec", "expected"), [
    ("rrf", ("x2", "x1", "x3")),  # x2 = 1/61 + 1/62
    ("combmnz", ("x2", "x1", "x3")),  # A x1 1, x2 0; B x2 1, x3 0 -> x2 2, x1 1, x3 0
    ("mtf", ("x1", "x2", "x3")),  # A: x1 miss; B: x2 miss; A is used up (x2 read); B: x3
])
def test_a_topic_only_some_runs_retrieved_for_is_fused_over_those(spec, expected, example):
    assert order(spec, example, "q2") == expected


@pytest.mark.parametrize(("spec", "expected"), [
    ("rrf(n=3)", ("Q", "Z", "Y")),
    ("rbp(n=2,p=0.5)", ("Q", "Z")),
    ("depth(k=2,n=3)", ("Q", "Z", "X")),
    ("mtf(n=4)", ("X", "Z", "Q", "R")),
])
def test_n_takes_the_first_n_of_the_order(spec, expected, example):
    assert order(spec, example) == expected


def test_fused_pools_take_ten_per_topic_when_n_is_not_given(example):
    assert len(order("rrf", example)) == 6  # all six candidates: fewer than trectools' default topX=10


@pytest.mark.parametrize(("spec", "q1", "q2"), [
    # 5 over two topics: 2 each, the extra one to q1 (qid order)
    ("rrf(budget=5)", ("Q", "Z", "Y"), ("x2", "x1")),
    # 8: 4 each, but q2 has 3 candidates; its leftover goes to q1
    ("rrf(budget=8)", ("Q", "Z", "Y", "X", "R"), ("x2", "x1", "x3")),
    # depth(k=2) has 4 candidates on q1, 3 on q2 (x2 is in both runs' top 2, so first)
    ("depth(k=2,budget=3)", ("Q", "Z"), ("x2",)),
])
def test_a_budget_is_split_equally_with_leftovers_passed_on(spec, q1, q2, example):
    chosen = choose(parse_pool(spec), example)
    assert (chosen["q1"], chosen["q2"]) == (q1, q2)


def test_plain_depth_is_todays_depth_pool(example):
    assert strategy_pool(parse_pool("depth(k=2)"), example, qrels=QRELS, human_depth=1) == build_pool(
        example, depth=2, human_depth=1, qrels=QRELS)


def test_a_cut_depth_pool_holds_the_same_cases_as_the_depth_pool_where_it_overlaps(example):
    full = {(c.qid, c.docid): c for c in build_pool(example, depth=2, qrels=QRELS).cases}
    for case in strategy_pool(parse_pool("depth(k=2,n=3)"), example, qrels=QRELS).cases:
        assert case == full[case.qid, case.docid]


def test_fused_pool_cases_carry_best_rank_runs_and_judged_flag(example):
    pool = strategy_pool(parse_pool("rrf(n=3)"), example, qrels=QRELS, human_depth=1)
    q1 = [c for c in pool.cases if c.qid == "q1"]
    assert q1 == [
        Case("q1", "Q", "people", 1, ("B", "C"), True),
        Case("q1", "Z", "people", 1, ("A", "B"), False),
        Case("q1", "Y", "llm", 3, ("A", "B"), True),
    ]


def test_a_fused_pools_depth_is_the_deepest_rank_it_took_a_case_from(example):
    assert strategy_pool(parse_pool("rrf(n=6)"), example).depth == 4  # P, 4th in A


def test_topics_restrict_a_strategy_pool(example):
    assert strategy_pool(parse_pool("rrf"), example, topics=["q2"]).qids == ("q2",)


def test_the_people_share_strategy_applies_to_a_strategy_pool(example):
    from qrelkit.pooling.allocation import parse_allocation

    pool = strategy_pool(parse_pool("rrf(n=6)"), example, people=parse_allocation("depth(k_human=1)"))
    assert {c.docid for c in pool.cases if c.share == "people"} == {"Q", "Z", "X", "x1", "x2"}


def test_mtf_refuses_without_labels_and_says_why(example):
    with pytest.raises(UsageError, match="needs labels"):
        choose(parse_pool("mtf"), example)


def test_combmnz_refuses_runs_read_without_scores():
    from qrelkit.data.runs import Run

    with pytest.raises(UsageError, match="without them"):
        choose(parse_pool("combmnz"), [Run("A", "A.run", {"q1": ("d1", "d2")})])


def test_runs_with_the_same_name_are_refused(example):
    with pytest.raises(UsageError, match="distinct names"):
        strategy_pool(parse_pool("rrf"), [example[0], example[0]])
