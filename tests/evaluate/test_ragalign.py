"""RAGAlign@k: reading generation labels and the binary and graded forms."""
from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.stats import pointbiserialr

from qrelkit.errors import InputError, UsageError
from qrelkit.evaluate.ragalign import rag_align, read_generation
from qrelkit.evaluate.systems import evaluate_runs

from .helpers import random_collection


def test_read_tsv_and_jsonl(tmp_path):
    tsv = tmp_path / "gen.tsv"
    tsv.write_text("system\tqid\tcorrect\nsys1\tq1\t1\nsys1\tq2\tfalse\n\nsys2\tq1\t0\n")
    got = {(g.system, g.qid): g.correct for g in read_generation(str(tsv))}
    assert got == {("sys1", "q1"): 1, ("sys1", "q2"): 0, ("sys2", "q1"): 0}
    jl = tmp_path / "gen.jsonl"
    jl.write_text("\n".join(json.dumps(x) for x in [
        {"system": "s", "qid": 1, "correct": True}, {"system": "s", "qid": "2", "correct": 0}]) + "\n")
    got = {(g.system, g.qid): g.correct for g in read_generation(str(jl))}
    assert got == {("s", "1"): 1, ("s", "2"): 0}


@pytest.mark.parametrize("text, line, problem", [
    ("s\tq1\t1\ns\tq2\tmaybe\n", 2, "correct must be 0 or 1"),
    ("s\tq1\n", 1, "expected 3 columns"),
    ('{"system": "s", "qid": "q"}\n', 1, "missing key"),
    ("s\tq1\t1\ns\tq1\t0\n", 2, "conflicting"),
    ('{"system": "s", "qid": "q", "correct": 1}\n{bad json\n', 2, "not valid JSON"),
])
def test_errors_name_file_and_line(tmp_path, text, line, problem):
    f = tmp_path / "gen.txt"
    f.write_text(text)
    with pytest.raises(InputError, match=rf"gen.txt:{line}: .*{problem}"):
        read_generation(str(f))


def test_alignment_against_hand_computation():
    runs, qrels = random_collection(seed=11, n_runs=4)
    rng = np.random.default_rng(0)
    topics = sorted({q for q, _ in qrels})
    labels_text = []
    from qrelkit.evaluate.ragalign import GenerationLabel

    labels = [GenerationLabel(r.name, q, int(rng.random() < 0.5)) for r in runs for q in topics]
    labels.append(GenerationLabel(runs[0].name, "not-a-topic", 1))  # ignored: not in the qrels
    other = {p: max(0, g - 1) for p, g in qrels.items()}
    before, after = rag_align(runs, [("before", qrels), ("after", other)], labels, k=5, threshold=2)
    for version, q in ((before, qrels), (after, other)):
        ts = evaluate_runs(runs, q, ["Success@5", "nDCG@5", "R@5"], threshold=2)
        hits, corr, ndcg, rec = [], [], [], []
        for g in labels:
            if g.qid not in ts.topics:
                continue
            s, t = ts.systems.index(g.system), ts.topics.index(g.qid)
            hits.append(ts.of("Success@5")[s, t] > 0)
            ndcg.append(ts.of("nDCG@5")[s, t])
            rec.append(ts.of("R@5")[s, t])
            corr.append(g.correct)
        hits, corr = np.array(hits, float), np.array(corr, float)
        assert version.overall.queries == len(corr)
        assert version.overall.ragalign == pytest.approx((hits == corr).mean())
        pb = {c.measure: c for c in version.overall.pointbiserial}
        assert pb["nDCG@5"].r == pytest.approx(pointbiserialr(corr, ndcg).statistic)
        assert pb["R@5"].p_value == pytest.approx(pointbiserialr(corr, rec).pvalue)
        assert {a.name for a in version.systems} == {r.name for r in runs}
    d = before.to_dict()
    assert {"ragalign", "pointbiserial", "systems", "k"} <= set(d)
    del labels_text


def test_unknown_system():
    runs, qrels = random_collection(seed=1, n_runs=2)
    from qrelkit.evaluate.ragalign import GenerationLabel

    with pytest.raises(UsageError, match="no run"):
        rag_align(runs, [("q", qrels)], [GenerationLabel("ghost", "q0", 1)])
