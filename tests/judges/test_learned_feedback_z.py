"""learned(feedback_z=K): feedback's similarities z-scored within the topic against its labelled
pairs, the moments shrunk toward the collection's (real store, no model calls)."""
from __future__ import annotations

import asyncio
import json

import numpy as np
import pytest

from qrelkit import signals
from qrelkit.errors import UsageError
from qrelkit.judges import parse_spec
from qrelkit.judging.runner import run_judging
from qrelkit.signals import combine, minilm
from qrelkit.signals.feedback import Feedback

from .test_learned import client, ws  # noqa: F401  (fixture)
from .test_learned_feedback import HAVE_MODEL

needs_model = pytest.mark.skipif(not HAVE_MODEL, reason=f"weights package missing: {minilm.INSTALL_HINT}")

# two topics: a holds 1 and 3 (mean 2, variance 1), b holds 10 (variance 0); all: mean 14/3
X = np.array([[1.0, 5.0], [3.0, 6.0], [10.0, 7.0]])
QIDS = ["a", "a", "b"]
ONLY = [True, False]


def test_shrunk_moments_pool_each_topics_with_the_collections_by_k0_pseudo_rows():
    moments, _ = combine.shrunk_moments(X, QIDS, 2, ONLY)
    gm, gv = X[:, 0].mean(), X[:, 0].var()
    mu, sd = moments["a"]
    assert mu[0] == pytest.approx((2 * 2 + 2 * gm) / 4)
    assert sd[0] == pytest.approx(np.sqrt((2 * 1 + 2 * gv) / 4))


def test_k0_zero_gives_each_topic_its_own_moments_and_a_large_k0_the_collections():
    own, _ = combine.shrunk_moments(X, QIDS, 0, ONLY)
    pooled, _ = combine.shrunk_moments(X, QIDS, 10**9, ONLY)
    assert own["a"][0][0] == pytest.approx(2) and own["a"][1][0] == pytest.approx(1)
    assert pooled["b"][0][0] == pytest.approx(14 / 3, rel=1e-6)


def test_a_topic_with_a_single_constant_value_and_no_shrinkage_keeps_sd_one():
    own, _ = combine.shrunk_moments(X, QIDS, 0, ONLY)
    assert own["b"][1][0] == 1.0  # variance 0: the z-score is 0, never infinite


def test_unflagged_columns_pass_unchanged_and_an_unseen_topic_takes_the_collections_moments():
    moments, fallback = combine.shrunk_moments(X, QIDS, 2, ONLY)
    z = combine.per_topic_z(np.array([[14 / 3, 9.0]]), ["unseen"], moments, fallback=fallback)
    assert z[0, 0] == pytest.approx(0.0) and z[0, 1] == 9.0


def test_a_missing_value_is_left_out_of_the_moments():
    x = np.vstack([X, [np.nan, 1.0]])
    with_nan, _ = combine.shrunk_moments(x, QIDS + ["a"], 2, ONLY)
    without, _ = combine.shrunk_moments(X, QIDS, 2, ONLY)
    assert np.allclose(with_nan["a"][0], without["a"][0]) and np.allclose(with_nan["a"][1], without["a"][1])


@pytest.mark.parametrize("text,value", [("off", "off"), ("0", 0), ("40", 40)])
def test_feedback_z_takes_off_or_a_count_of_pseudo_pairs(text, value):
    assert parse_spec(f"learned(feedback_z={text})")["feedback_z"] == value


def test_a_feedback_z_that_is_neither_names_both():
    with pytest.raises(UsageError, match="off or a number of pseudo-pairs"):
        parse_spec("learned(feedback_z=-1)")


def _provenance(store, method):
    return {(j.qid, j.docid): json.loads(j.provenance)["learned"] for j in store.judgments(method=method)}


def _model(comb):
    return combine.Combination(tuple(comb["columns"]), tuple(comb["mean"]), tuple(comb["scale"]),
                               tuple(comb["coef"]), comb["intercept"], comb["per_topic"], comb["n"], comb["relevant"])


@needs_model
def test_cases_are_decided_on_feedback_z_scored_against_their_topics_labelled_pairs(ws):  # noqa: F811
    """The cases' probabilities follow from their raw feedback, the shrunk moments of the topic's
    labelled pairs' own (leave-one-out) values — the one function — and the recorded combination."""
    s = run_judging(ws, "learned(signals=feedback,per_topic=false,feedback_z=5)", client(ws))
    prov = _provenance(ws, s.method)
    pairs, labelled = sorted(prov), sorted(ws.qrels())
    first = next(iter(prov.values()))
    assert first["feedback_z"] == {"k0": 5, "columns": [f"feedback.{f}" for f in Feedback.SIMILARITIES],
                                   "labelled": len(labelled), "topics": 2}
    ctx = signals.context_from_store(ws, judged={q: {d: int(g >= 1) for (qq, d), g in ws.qrels().items() if qq == q}
                                                 for q in {q for q, _ in labelled}})
    fb = signals.build("feedback")
    only = [f in Feedback.SIMILARITIES for f in Feedback.FEATURES]
    moments, fallback = combine.shrunk_moments(asyncio.run(signals.values(fb, labelled, ctx)),
                                               [q for q, _ in labelled], 5, only)
    raw = asyncio.run(signals.values(fb, pairs, ctx))
    z = combine.per_topic_z(raw, [q for q, _ in pairs], moments, fallback=fallback)
    assert np.allclose(_model(first["combination"]).probabilities(z), [prov[p]["probability"] for p in pairs],
                       atol=1e-5)
    assert not np.allclose(z, raw)  # the z-scores moved the values (else this test shows nothing)


@needs_model
def test_feedback_z_off_decides_on_the_raw_values_and_records_nothing(ws):  # noqa: F811
    s = run_judging(ws, "learned(signals=feedback,per_topic=false,feedback_z=off)", client(ws))
    prov = _provenance(ws, s.method)
    pairs = sorted(prov)
    first = next(iter(prov.values()))
    raw = np.array([[prov[p]["signals"][c] for c in first["combination"]["columns"]] for p in pairs])
    assert "feedback_z" not in first
    assert np.allclose(_model(first["combination"]).probabilities(raw), [prov[p]["probability"] for p in pairs],
                       atol=1e-5)


@needs_model
def test_the_summary_says_what_feedback_z_standardised(ws):  # noqa: F811
    s = run_judging(ws, "learned(signals=lexical+feedback)", client(ws))
    info = s.calibration["feedback_z"]
    assert info["k0"] == combine.FEEDBACK_K0 and info["columns"][0] == "feedback.dense_rel_max"


def test_without_feedback_feedback_z_changes_nothing(ws):  # noqa: F811
    a = run_judging(ws, "learned(signals=lexical,feedback_z=off)", client(ws))
    b = run_judging(ws, "learned(signals=lexical,feedback_z=3)", client(ws))
    pa, pb = _provenance(ws, a.method), _provenance(ws, b.method)
    assert [pa[p]["probability"] for p in sorted(pa)] == [pb[p]["probability"] for p in sorted(pb)]
    assert "feedback_z" not in next(iter(pb.values()))
