"""System evaluation against pytrec_eval called directly."""
from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval

from qrelkit.errors import UsageError
from qrelkit.evaluate.systems import (
    DEFAULT_MEASURES,
    evaluate_runs,
    evaluate_versions,
    resolve_measures,
    score_shifts,
    system_ranks,
)

from .helpers import make_run, qrels_dict, random_collection, trec_dict

# ir_measures key -> (pytrec_eval measure, result key)
PTE = {
    "nDCG@10": ("ndcg_cut.10", "ndcg_cut_10"),
    "P@10": ("P.10", "P_10"),
    "R@100": ("recall.100", "recall_100"),
    "AP@1000": ("map_cut.1000", "map_cut_1000"),
    "nDCG@5": ("ndcg_cut.5", "ndcg_cut_5"),
    "AP": ("map", "map"),
}


def pytrec(run, pairs, measure, rel_level=2):
    ev = pytrec_eval.RelevanceEvaluator(qrels_dict(pairs), {PTE[measure][0]}, relevance_level=rel_level)
    return {q: v[PTE[measure][1]] for q, v in ev.evaluate(trec_dict(run)).items()}


def test_matches_pytrec_eval_on_random_collection():
    runs, qrels = random_collection(seed=3)
    ts = evaluate_runs(runs, qrels, ["nDCG@10", "P@10", "R@100", "AP@1000", "nDCG@5", "AP"], threshold=2)
    for s, run in enumerate(runs):
        for m in ("nDCG@10", "P@10", "R@100", "AP@1000", "nDCG@5", "AP"):
            expected = pytrec(run, qrels, m)
            for t, q in enumerate(ts.topics):
                # a topic the run did not answer scores 0 (trec_eval -c)
                assert ts.of(m)[s, t] == pytest.approx(expected.get(q, 0.0), abs=1e-12), (run.name, m, q)


def test_rel_level_is_the_threshold():
    run = make_run("r", {"q": [("a", 3), ("b", 2), ("c", 1)]})
    qrels = {("q", "a"): 1, ("q", "b"): 2, ("q", "c"): 3}
    at2 = evaluate_runs([run], qrels, ["P@10", "RR@10", "Success@10"], threshold=2)
    at1 = evaluate_runs([run], qrels, ["P@10", "RR@10", "Success@10"], threshold=1)
    assert at2.mean_of("r", "P@10") == pytest.approx(2 / 10)
    assert at1.mean_of("r", "P@10") == pytest.approx(3 / 10)
    assert at2.mean_of("r", "RR@10") == pytest.approx(1 / 2)  # first grade >= 2 is at rank 2
    assert at1.mean_of("r", "RR@10") == pytest.approx(1.0)
    # an explicit rel in the name wins over the threshold, and the key is kept as written
    explicit = evaluate_runs([run], qrels, ["P(rel=3)@10"], threshold=1)
    assert explicit.measures == ("P(rel=3)@10",)
    assert explicit.mean_of("r", "P(rel=3)@10") == pytest.approx(1 / 10)


def test_resolve_measures():
    specs = resolve_measures(DEFAULT_MEASURES, threshold=2)
    assert [s.key for s in specs] == list(DEFAULT_MEASURES)
    by_key = {s.key: str(s.measure) for s in specs}
    assert by_key["P@10"] == "P(rel=2)@10"
    assert by_key["nDCG@10"] == "nDCG@10"  # graded: no relevance level
    assert by_key["Judged@10"] == "Judged@10"
    assert {s.key: s.cutoff for s in specs}["AP@1000"] == 1000
    with pytest.raises(UsageError):
        resolve_measures(["NotAMeasure@3"])


def test_ties_follow_trec_eval_order():
    # equal scores: trec_eval ranks the larger docid first ("b" before "a")
    run = make_run("r", {"q": [("a", 1.0), ("b", 1.0)]})
    qrels = {("q", "a"): 3, ("q", "b"): 0}
    ts = evaluate_runs([run], qrels, ["RR@10"], threshold=2)
    assert ts.mean_of("r", "RR@10") == pytest.approx(0.5)


def test_judged_only_removes_unjudged_before_cutoff():
    run = make_run("r", {"q": [(f"u{i}", 100 - i) for i in range(10)] + [("a", 50), ("b", 49)]})
    qrels = {("q", "a"): 2, ("q", "b"): 0, ("q", "c"): 2}
    normal = evaluate_runs([run], qrels, ["P@10", "Judged@10", "nDCG@10"])
    condensed = evaluate_runs([run], qrels, ["P@10", "Judged@10", "nDCG@10"], judged_only=True)
    assert normal.mean_of("r", "P@10") == 0.0
    assert normal.mean_of("r", "Judged@10") == 0.0
    assert condensed.mean_of("r", "P@10") == pytest.approx(1 / 10)
    assert condensed.mean_of("r", "Judged@10") == pytest.approx(1.0)
    # the condensed list is scored exactly as pytrec_eval scores it
    short = make_run("r", {"q": [("a", 50), ("b", 49)]})
    assert condensed.mean_of("r", "nDCG@10") == pytest.approx(pytrec(short, qrels, "nDCG@10")["q"])


def test_versions_parse_once_and_shifts():
    runs, qrels = random_collection(seed=5)
    other = {p: (3 - g if g >= 0 else g) for p, g in qrels.items()}
    a, b = evaluate_versions(runs, [("a", qrels), ("b", other)], ["nDCG@10"])
    assert (a.label, b.label) == ("a", "b")
    direct = evaluate_runs(runs, other, ["nDCG@10"])
    assert np.allclose(b.values, direct.values)
    shifts = score_shifts(a, b, "nDCG@10")
    assert sorted(s.rank_b for s in shifts) == sorted(system_ranks(b.means("nDCG@10")).tolist())
    for s in shifts:
        assert s.delta == pytest.approx(s.score_b - s.score_a)
        assert s.rank_shift == s.rank_a - s.rank_b


def test_system_ranks_share_ties():
    assert system_ranks([0.5, 0.9, 0.5, 0.1]).tolist() == [2, 1, 2, 4]


def test_duplicate_run_names_rejected():
    r = make_run("same", {"q": [("a", 1.0)]})
    with pytest.raises(UsageError):
        evaluate_runs([r, r], {("q", "a"): 1})


def test_one_measure_under_two_names_fills_both_keys():
    # with threshold 2, "P@10" is P(rel=2)@10: one evaluator returns it once, and both keys get it
    runs, qrels = random_collection(seed=5)
    ts = evaluate_runs(runs, qrels, ["P@10", "P(rel=2)@10"], threshold=2)
    assert ts.of("P@10").sum() > 0
    assert np.array_equal(ts.of("P@10"), ts.of("P(rel=2)@10"))
