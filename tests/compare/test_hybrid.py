"""A method's labels in a hybrid pool (qrelkit.compare.hybrid), on the demo collection.

The demo's partial qrels label the pool of its three old runs; its full qrels add the 44 holes
the newer runs bring. A method judging exactly those 44 holes (people's labels elsewhere) turns
the partial qrels into the full ones when it is right, and leaves them as they were when it
calls every hole non-relevant: the significance decisions then agree with the full qrels'
(MCC 1) or are those of the partial qrels."""
from __future__ import annotations

from pathlib import Path

import pytest

from qrelkit.compare.hybrid import decided_accuracy, full_decisions, hybrid_figures, per_query_f1, pool_mcc
from qrelkit.data import load_qrels, read_runs
from qrelkit.evaluate.systems import prepare_runs

DEMO = Path(__file__).resolve().parents[2] / "src" / "qrelkit" / "demo"
MEASURE = "nDCG@10"


@pytest.fixture(scope="module")
def demo():
    runs = read_runs(sorted(str(p) for p in DEMO.glob("*.run")))
    full, part = dict(load_qrels(str(DEMO / "qrels.full.txt")).pairs), dict(load_qrels(str(DEMO / "qrels.txt")).pairs)
    topics, prepared = sorted({q for q, _ in full}), prepare_runs(runs)
    gold = {k: g for k, g in full.items() if k not in part}
    return prepared, full_decisions(prepared, full, topics, MEASURE), part, gold, topics


def figures(demo, decided):
    prepared, ref, part, gold, topics = demo
    return hybrid_figures(prepared, ref, part, gold, decided, topics, MEASURE)


def test_a_method_right_on_every_hole_makes_the_full_qrels_decisions(demo):
    gold = demo[3]
    assert figures(demo, {k: (int(g >= 2), g) for k, g in gold.items()}).mcc == 1.0


def test_a_method_that_escalates_every_hole_leaves_it_to_people_who_are_right(demo):
    assert figures(demo, {}).mcc == 1.0


def test_a_method_calling_every_hole_non_relevant_keeps_the_partial_qrels_decisions(demo):
    prepared, ref, part, gold, topics = demo
    none = figures(demo, {k: (0, 0) for k in gold})
    assert none.mcc == pool_mcc(prepared, ref, part, topics, MEASURE) != 1.0


def test_the_hybrid_balanced_accuracy_of_all_non_relevant_is_chance(demo):
    assert figures(demo, {k: (0, 0) for k in demo[3]}).balanced_accuracy == 0.5


GOLD = {("q1", "a"): 2, ("q1", "b"): 0, ("q2", "c"): 2}
SAID = {("q1", "a"): 1, ("q1", "b"): 1, ("q2", "c"): 0}


def test_per_query_f1_is_the_f1_of_each_querys_decided_labels():
    # q1: a found, b a false positive -> F1 2/3; q2: c missed -> 0
    assert per_query_f1(GOLD, SAID) == {"q1": pytest.approx(2 / 3), "q2": 0.0}


def test_decided_accuracy_counts_the_decided_labels_that_match():
    assert decided_accuracy(GOLD, {k: (v, 2 * v) for k, v in SAID.items()}) == pytest.approx(1 / 3)
