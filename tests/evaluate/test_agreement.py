"""Agreement figures against scikit-learn, krippendorff and hand computations."""
from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import (
    balanced_accuracy_score,
    cohen_kappa_score,
    f1_score,
    precision_score,
    recall_score,
)

from qrelkit.evaluate.agreement import compare_labels, multi_assessor
from qrelkit.evaluate.judge_agreement import judgments_agreement
from qrelkit.types import Judgment


def random_labels(seed=0, n=300, topics=6):
    rng = np.random.default_rng(seed)
    pairs = [(f"q{i % topics}", f"d{i}") for i in range(n)]
    ref = {p: int(g) for p, g in zip(pairs, rng.choice(4, n, p=[0.5, 0.2, 0.2, 0.1]))}
    noise = rng.integers(-1, 2, n)
    lab = {p: int(np.clip(ref[p] + e, 0, 3)) for p, e in zip(pairs, noise)}
    return ref, lab


def test_binary_and_graded_figures_match_libraries():
    ref, lab = random_labels()
    lab_only = {("q0", "extra"): 3}  # pairs only one side has are ignored
    a = compare_labels(ref, {**lab, **lab_only}, threshold=2)
    pairs = sorted(ref)
    r = np.array([ref[p] for p in pairs])
    g = np.array([lab[p] for p in pairs])
    rb, gb = (r >= 2).astype(int), (g >= 2).astype(int)
    assert a.pairs == len(pairs)
    assert a.balanced_accuracy == pytest.approx(balanced_accuracy_score(rb, gb))
    assert a.accuracy == pytest.approx((rb == gb).mean())
    assert a.recall_relevant == pytest.approx(recall_score(rb, gb))
    assert a.recall_nonrelevant == pytest.approx(recall_score(1 - rb, 1 - gb))
    assert a.precision == pytest.approx(precision_score(rb, gb))
    assert a.f1 == pytest.approx(f1_score(rb, gb))
    assert a.cohen_kappa == pytest.approx(cohen_kappa_score(rb, gb))
    assert a.cohen_kappa_graded == pytest.approx(cohen_kappa_score(r, g))
    assert a.cohen_kappa_linear == pytest.approx(cohen_kappa_score(r, g, weights="linear"))
    assert a.krippendorff_alpha == pytest.approx(
        krippendorff.alpha(reliability_data=np.vstack([r, g]).astype(float), level_of_measurement="ordinal"))
    tn = int(((rb == 0) & (gb == 0)).sum())
    fp = int(((rb == 0) & (gb == 1)).sum())
    fn = int(((rb == 1) & (gb == 0)).sum())
    tp = int(((rb == 1) & (gb == 1)).sum())
    assert a.confusion == ((tn, fp), (fn, tp))
    assert np.array(a.confusion_graded).sum() == len(pairs)
    # per-topic F1, averaged over topics
    per = []
    for t in sorted({q for q, _ in pairs}):
        idx = [i for i, p in enumerate(pairs) if p[0] == t]
        per.append(f1_score(rb[idx], gb[idx]))
    assert a.per_topic_f1 == pytest.approx(np.mean(per))
    d = a.to_dict()
    for key in ("balanced_accuracy", "cohen_kappa", "cohen_kappa_graded", "cohen_kappa_linear", "krippendorff_alpha"):
        assert key in d


def test_linear_kappa_uses_numeric_grade_distance():
    # nobody used grade 2: 1 -> 3 is still two steps, not one
    ref = {("q", "a"): 0, ("q", "b"): 1, ("q", "c"): 3, ("q", "d"): 3, ("q", "e"): 0}
    lab = {("q", "a"): 0, ("q", "b"): 3, ("q", "c"): 3, ("q", "d"): 1, ("q", "e"): 1}
    a = compare_labels(ref, lab)
    r = [ref[p] for p in sorted(ref)]
    g = [lab[p] for p in sorted(ref)]
    assert a.grades == (0, 1, 2, 3)
    assert a.cohen_kappa_linear == pytest.approx(cohen_kappa_score(r, g, weights="linear", labels=[0, 1, 2, 3]))
    assert a.cohen_kappa_linear != pytest.approx(cohen_kappa_score(r, g, weights="linear"))


def test_undefined_figures_are_none():
    ref = {("q", "a"): 0, ("q", "b"): 0}
    a = compare_labels(ref, dict(ref))
    assert a.accuracy == 1.0
    assert a.balanced_accuracy is None  # one class only
    assert a.per_topic_f1 is None and a.per_topic_f1_topics == 0
    assert compare_labels(ref, {("x", "y"): 1}).pairs == 0


def fleiss_by_hand(data: np.ndarray, categories) -> float:
    """Fleiss (1971), written out."""
    n_items, n_raters = data.shape
    counts = np.array([[np.sum(row == c) for c in categories] for row in data], dtype=float)
    p_j = counts.sum(axis=0) / (n_items * n_raters)
    p_i = (np.sum(counts * counts, axis=1) - n_raters) / (n_raters * (n_raters - 1))
    p_bar, p_e = p_i.mean(), np.sum(p_j**2)
    return (p_bar - p_e) / (1 - p_e)


def test_multi_assessor_all_share():
    rng = np.random.default_rng(1)
    pairs = [("q", f"d{i}") for i in range(80)]
    truth = rng.integers(0, 4, 80)
    assessors = [
        (f"a{k}", {p: int(np.clip(t + rng.integers(-1, 2), 0, 3)) for p, t in zip(pairs, truth)}) for k in range(3)
    ]
    m = multi_assessor(assessors, threshold=2)
    data = np.array([[lab[p] for _, lab in assessors] for p in sorted(pairs)])
    assert m.fleiss_pairs == 80 and m.raters_per_pair == 3
    assert m.fleiss_kappa == pytest.approx(fleiss_by_hand(data, [0, 1, 2, 3]))
    assert m.fleiss_kappa_binary == pytest.approx(fleiss_by_hand((data >= 2).astype(int), [0, 1]))
    rel = data >= 2
    assert m.overlap == pytest.approx(rel.all(axis=1).sum() / rel.any(axis=1).sum())
    first = m.pairwise[0]
    a0 = np.array([assessors[0][1][p] for p in sorted(pairs)])
    a1 = np.array([assessors[1][1][p] for p in sorted(pairs)])
    assert (first.a, first.b) == ("a0", "a1")
    assert first.cohen_kappa == pytest.approx(cohen_kappa_score(a0 >= 2, a1 >= 2))
    assert first.cohen_kappa_graded == pytest.approx(cohen_kappa_score(a0, a1))
    assert first.overlap == pytest.approx(((a0 >= 2) & (a1 >= 2)).sum() / ((a0 >= 2) | (a1 >= 2)).sum())


def test_multi_assessor_two_raters_per_pair():
    # like the DL 2019 re-judgments: each pair judged by two of four assessors
    a = {("q1", "x"): 3, ("q1", "y"): 0}
    b = {("q1", "x"): 2, ("q1", "y"): 1}
    c = {("q2", "x"): 0, ("q2", "y"): 2}
    d = {("q2", "x"): 0, ("q2", "y"): 3}
    m = multi_assessor([("a", a), ("b", b), ("c", c), ("d", d)])
    assert m.raters_per_pair == 2 and m.fleiss_pairs == 4
    data = np.array([[3, 2], [0, 1], [0, 0], [2, 3]])
    assert m.fleiss_kappa == pytest.approx(fleiss_by_hand(data, [0, 1, 2, 3]))
    assert [p.pairs for p in m.pairwise] == [2, 0, 0, 0, 0, 2]


def J(qid, docid, status, grade, label=None, method="debate", rnd=1):
    if label is None and grade is not None:
        label = int(grade >= 2)
    return Judgment(qid, docid, method, "m", label, grade, status, round=rnd)


def test_workspace_judgments():
    ref = {("q", "a"): 3, ("q", "b"): 0, ("q", "c"): 2, ("q", "d"): 0, ("q", "e"): 1}
    js = [
        J("q", "a", "consensus", 3, rnd=1),
        J("q", "b", "consensus", 2, rnd=2),  # wrong
        J("q", "c", "auto", 2, rnd=1),
        J("q", "d", "escalate", None, rnd=2),
        J("q", "e", "adjudicated", 0, rnd=3),
        J("q", "a", "human", 3, method="people", rnd=0),
    ]
    out = {j.method: j for j in judgments_agreement(js, ref)}
    deb = out["debate"]
    assert deb.judgments == 5
    assert deb.escalation_ratio == pytest.approx(2 / 5)  # escalate + adjudicated
    assert deb.auto_pairs == 3 and deb.auto_accuracy == pytest.approx(2 / 3)
    assert deb.overall.pairs == 4
    assert dict(deb.by_status)["adjudicated"].accuracy == 1.0
    assert dict(deb.by_round)[2].pairs == 1  # the escalated one has no label
    d = deb.to_dict()
    assert d["escalation_ratio"] == pytest.approx(0.4) and d["auto_accuracy"] == pytest.approx(2 / 3)
    assert d["statuses"] == {"adjudicated": 1, "auto": 1, "consensus": 2, "escalate": 1}
    assert out["people"].overall.accuracy == 1.0


def test_headline_is_balanced_accuracy_on_decided_cases_next_to_escalation_ratio():
    from sklearn.metrics import balanced_accuracy_score

    ref = {("q", d): g for d, g in zip("abcdefgh", (3, 0, 0, 0, 2, 0, 1, 3))}
    js = [
        J("q", "a", "consensus", 3, rnd=1),  # TP
        J("q", "b", "consensus", 0, rnd=1),  # TN
        J("q", "c", "consensus", 0, rnd=1),  # TN
        J("q", "d", "consensus", 0, rnd=2),  # TN
        J("q", "e", "consensus", 0, rnd=2),  # FN
        J("q", "f", "auto", 0, rnd=1),  # TN
        J("q", "g", "escalate", None, rnd=2),
        J("q", "h", "adjudicated", 3, rnd=3),
    ]
    (deb,) = judgments_agreement(js, ref)
    decided = "abcdef"
    truth = [int(ref[("q", d)] >= 2) for d in decided]
    said = [1, 0, 0, 0, 0, 0]
    d = deb.to_dict()
    assert d["headline"]["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(truth, said))  # 0.75
    assert d["headline"]["escalation_ratio"] == pytest.approx(2 / 8)
    assert d["auto_accuracy"] == pytest.approx(5 / 6)  # plain accuracy: secondary


@pytest.mark.parametrize("rnd, pairs, balanced, share", [
    ("1", 4, 1.0, 4 / 8),  # a, b, c, f
    ("2", 2, 0.5, 2 / 8),  # d right, e missed: one class each -> (1 + 0) / 2
])
def test_headline_per_debate_round(rnd, pairs, balanced, share):
    ref = {("q", d): g for d, g in zip("abcdefgh", (3, 0, 0, 0, 2, 0, 1, 3))}
    js = [J("q", "a", "consensus", 3, rnd=1), J("q", "b", "consensus", 0, rnd=1), J("q", "c", "consensus", 0, rnd=1),
          J("q", "d", "consensus", 0, rnd=2), J("q", "e", "consensus", 0, rnd=2), J("q", "f", "auto", 0, rnd=1),
          J("q", "g", "escalate", None, rnd=2), J("q", "h", "adjudicated", 3, rnd=3)]
    (deb,) = judgments_agreement(js, ref)
    r = deb.to_dict()["by_round"][rnd]
    assert r["pairs"] == pairs
    assert r["balanced_accuracy"] == pytest.approx(balanced)
    assert r["decided_share"] == pytest.approx(share)
