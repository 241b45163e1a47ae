"""RAGAlign for several generators, on a hand-worked example.

Binary qrels, k=2; every query has two relevant documents, so R@2 is 0, 0.5 or 1
by how many of them a system ranks in its top 2 (``TOP2``). By hand:
- binary RAGAlign@2: Hit@2 == correct on 3 of 4 queries for each system -> 9/12 = 0.75;
- point-biserial with R@2: correct group R = (1, .5, .5, 0, 1), mean 0.6 (n1 = 5); wrong group
  mean 1/7 (n0 = 7); S.E.(R) (n - 1) = 0.38925 -> r = 0.4571 / 0.38925 * sqrt(35 / 132) = 0.6047;
- across systems: mean R@2 (0.5, 0.375, 0.125) vs accuracy (0.5, 0.75, 0) -> Spearman 0.5.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import pearsonr, pointbiserialr

from qrelkit.data import read_runs
from qrelkit.evaluate.ragalign import GenerationLabel
from qrelkit.evaluate.ragalign_multi import Generator, generators_from_store, rag_align_multi, read_generator

# system -> per query (q1..q4): relevant documents in the top 2, generation correct
TOP2 = {"s1": [(2, 1), (1, 1), (0, 0), (1, 0)], "s2": [(1, 1), (0, 0), (0, 1), (2, 1)],
        "s3": [(0, 0), (0, 0), (1, 0), (0, 0)]}
ORDER = {2: ["r1", "r2", "n1", "n2"], 1: ["r1", "n1", "r2", "n2"], 0: ["n1", "n2", "r1", "r2"]}
QUERIES = ["q1", "q2", "q3", "q4"]
QRELS = {(q, f"{q}{d}"): int(d[0] == "r") for q in QUERIES for d in ("r1", "r2", "n1", "n2")}


@pytest.fixture
def runs(tmp_path):
    for s, rows in TOP2.items():
        lines = [f"{q} Q0 {q}{d} {i} {10 - i} {s}" for q, (m, _) in zip(QUERIES, rows)
                 for i, d in enumerate(ORDER[m], 1)]
        (tmp_path / f"{s}.run").write_text("\n".join(lines) + "\n")
    return read_runs([tmp_path])


def labels(flip: str = "") -> tuple[GenerationLabel, ...]:
    return tuple(GenerationLabel(s, q, c if s != flip else 1 - c)
                 for s, rows in TOP2.items() for q, (_, c) in zip(QUERIES, rows))


def align(runs, gens, versions=(("orig", QRELS),)):
    return rag_align_multi(runs, list(versions), gens, k=2, threshold=1)


def test_binary_ragalign_is_the_share_of_agreeing_queries(runs):
    (res,) = align(runs, [Generator("g", "x", labels())])
    assert res.versions[0].alignment.overall.ragalign == pytest.approx(0.75)


def test_pointbiserial_matches_the_formula(runs):
    (res,) = align(runs, [Generator("g", "x", labels())])
    r = {c.measure: c.r for c in res.versions[0].alignment.overall.pointbiserial}["R@2"]
    recall = np.array([m / 2 for rows in TOP2.values() for m, _ in rows])
    correct = np.array([c for rows in TOP2.values() for _, c in rows])
    n1, n0, n = correct.sum(), (1 - correct).sum(), len(correct)
    by_formula = ((recall[correct == 1].mean() - recall[correct == 0].mean()) / recall.std(ddof=1)
                  * math.sqrt(n1 * n0 / (n * (n - 1))))
    assert r == pytest.approx(by_formula)
    assert r == pytest.approx(pointbiserialr(correct, recall).statistic)
    assert r == pytest.approx(0.6047, abs=1e-4)


def test_system_correlation_is_pearson_and_spearman_across_systems(runs):
    (res,) = align(runs, [Generator("g", "x", labels())])
    c = {c.measure: c for c in res.versions[0].correlations}["R@2"]
    assert c.spearman == pytest.approx(0.5)
    assert c.pearson == pytest.approx(pearsonr([0.5, 0.375, 0.125], [0.5, 0.75, 0.0]).statistic)


def test_system_scores_are_means_over_the_labelled_queries(runs):
    gen = Generator("g", "x", tuple(g for g in labels() if g.qid != "q4"))
    (res,) = align(runs, [gen])
    s2 = next(p for p in res.versions[0].points if p.system == "s2")
    assert s2.score("R@2") == pytest.approx(0.5 / 3)


def test_each_generator_gets_its_own_column(runs):
    res = align(runs, [Generator("g1", "x", labels()), Generator("g2", "y", labels(flip="s3"))])
    rates = [g.versions[0].alignment.overall.correct_rate for g in res]
    assert rates == pytest.approx([5 / 12, 9 / 12])


def test_every_qrels_version_is_aligned(runs):
    after = {**QRELS, ("q3", "q3n1"): 1}
    (res,) = align(runs, [Generator("g", "x", labels())], versions=(("before", QRELS), ("after", after)))
    assert [v.alignment.qrels for v in res.versions] == ["before", "after"]


def test_fewer_than_three_systems_have_no_correlation(runs):
    gen = Generator("g", "x", tuple(g for g in labels() if g.system != "s3"))
    (res,) = align(runs, [gen])
    assert res.versions[0].correlations[0].pearson is None


def test_generator_names_are_made_unique(runs):
    res = align(runs, [Generator("g", "x", labels()), Generator("g", "y", labels())])
    assert [g.generator for g in res] == ["g", "g-2"]


def test_a_graded_file_is_named_after_its_generator(tmp_path):
    f = tmp_path / "answers.graded.jsonl"
    f.write_text('{"system": "s1", "qid": "q1", "correct": true, "generator": "openai:gen"}\n')
    assert read_generator(str(f)).name == "openai:gen"


def test_a_tsv_file_is_named_after_the_file(tmp_path):
    f = tmp_path / "llama.tsv"
    f.write_text("s1\tq1\t1\n")
    assert read_generator(str(f)).name == "llama"


def test_workspace_grades_become_one_generator_per_model(tmp_path):
    from qrelkit.store import Store
    from qrelkit.store.rag import Grade

    with Store.create(tmp_path / "ws") as store:
        store.put_grades([Grade("s1", "q1", "gen-a", "judge", "p", "x", True),
                          Grade("s1", "q1", "gen-b", "judge", "p", "y", False),
                          Grade("s2", "q1", "gen-b", "judge", "p", "z", None, error="unparseable")])
        gens = generators_from_store(store)
    assert [(g.name, len(g.labels)) for g in gens] == [("gen-a", 1), ("gen-b", 1)]
