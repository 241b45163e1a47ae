"""The feedback signal: similarity to the topic's judged documents, never to the pair's own label."""
from __future__ import annotations

import asyncio

import numpy as np
import pytest

from qrelkit import signals
from qrelkit.signals import dense, feedback, minilm
from qrelkit.store import Store
from qrelkit.types import Doc, Topic

try:
    minilm.model_zip()
    HAVE_MODEL = True
except minilm.ModelMissing:
    HAVE_MODEL = False
pytestmark = pytest.mark.skipif(not HAVE_MODEL, reason=f"weights package missing: {minilm.INSTALL_HINT}")

DOCS = {
    "fox1": "The red fox is a small carnivore that lives in forests and hunts rabbits.",
    "fox2": "Foxes are small carnivores; the red fox hunts rabbits and mice in the forest.",
    "fox3": "A fox hunts mice at night at the edge of the forest.",
    "car1": "The new electric car charges its battery in thirty minutes at a fast charger.",
    "car2": "Electric cars need charging stations along the motorway for long trips.",
    "dog1": "Dogs are loyal pets that enjoy long walks in the park.",
}
PAIRS = [("q1", d) for d in DOCS] + [("q2", "fox1"), ("q2", "car1"), ("q3", "dog1")]


@pytest.fixture
def store(tmp_path):
    s = Store.create(tmp_path / "ws")
    s.upsert_topics([Topic("q1", "what do foxes hunt"), Topic("q2", "electric car charging"), Topic("q3", "pets")])
    s.upsert_docs([Doc(d, t) for d, t in DOCS.items()])
    yield s
    s.close()


def features(store, judged) -> dict:
    ctx = signals.context_from_store(store, judged=judged)
    x = asyncio.run(signals.values(signals.build("feedback"), PAIRS, ctx))
    return {p: dict(zip(feedback.Feedback.FEATURES, row)) for p, row in zip(PAIRS, x)}


JUDGED = {"q1": {"fox1": 1, "fox2": 1, "car1": 0, "dog1": 0}, "q2": {"car2": 0}}


@pytest.mark.parametrize("pair", [("q1", "fox1"), ("q1", "car1"), ("q1", "dog1")])
def test_a_labelled_pairs_features_do_not_change_when_its_own_label_flips(store, pair):
    q, d = pair
    flipped = {**JUDGED, q: {**JUDGED[q], d: 1 - JUDGED[q][d]}}
    assert features(store, flipped)[pair] == features(store, JUDGED)[pair]


def test_flipping_a_label_changes_the_features_of_the_topics_other_pairs(store):
    flipped = {**JUDGED, "q1": {**JUDGED["q1"], "car1": 1}}
    assert features(store, flipped)[("q1", "car2")] != features(store, JUDGED)[("q1", "car2")]


def test_a_document_like_the_relevant_ones_resembles_them_more_than_one_unlike_them(store):
    f = features(store, JUDGED)
    assert f[("q1", "fox3")]["dense_rel_max"] > f[("q1", "car2")]["dense_rel_max"]


def test_a_document_sharing_terms_with_the_relevant_ones_has_the_higher_bm25(store):
    f = features(store, JUDGED)
    assert f[("q1", "fox3")]["bm25_rel_mean"] > f[("q1", "car2")]["bm25_rel_mean"] == 0.0


def test_a_relevant_labelled_pair_is_compared_with_the_other_relevant_document_only(store):
    f = features(store, JUDGED)[("q1", "fox1")]
    assert f["dense_rel_max"] == pytest.approx(f["dense_rel_mean"]) and f["dense_rel_max"] < 0.999


def test_a_topic_without_a_judged_relevant_document_gets_the_indicator_zero(store):
    f = features(store, JUDGED)[("q2", "fox1")]
    assert f["has_relevant"] == 0.0


@pytest.mark.parametrize("name", ["dense_rel_max", "dense_rel_mean", "bm25_rel_max", "bm25_rel_mean"])
def test_a_topic_without_a_judged_relevant_document_gets_zero_similarity_to_it(store, name):
    assert features(store, JUDGED)[("q2", "fox1")][name] == 0.0


def test_a_topic_nobody_judged_gets_zeros_throughout(store):
    assert set(features(store, JUDGED)[("q3", "dog1")].values()) == {0.0}


def test_the_only_relevant_document_of_a_topic_leaves_its_own_pair_without_one(store):
    judged = {**JUDGED, "q2": {"car1": 1, "car2": 0}}
    f = features(store, judged)
    assert (f[("q2", "car1")]["has_relevant"], f[("q2", "fox1")]["has_relevant"]) == (0.0, 1.0)


def test_the_cosines_are_those_of_the_dense_signals_vectors(store):
    f = features(store, JUDGED)[("q1", "fox3")]
    ctx = signals.context_from_store(store)
    v = minilm.load().encode([ctx.text("fox3"), ctx.text("fox1"), ctx.text("fox2")])
    assert f["dense_rel_max"] == pytest.approx(max(v[0] @ v[1], v[0] @ v[2]), abs=1e-5)


def test_document_vectors_are_cached_in_the_workspace(store):
    features(store, JUDGED)
    version = dense.Dense().version(signals.context_from_store(store))
    assert store.signal_count(dense.VECTOR_SIGNAL, version) == len(DOCS)


def test_a_changed_label_is_a_new_version_not_a_stale_cached_value(store):
    a = signals.build("feedback").version(signals.context_from_store(store, judged=JUDGED))
    b = signals.build("feedback").version(signals.context_from_store(store, judged={"q1": {"fox1": 0}}))
    assert a != b


def test_feedback_is_dropped_when_no_document_was_judged(store):
    why = signals.build("feedback").unavailable(signals.context_from_store(store))
    assert why and "judged" in why


def test_values_are_finite_for_every_pair(store):
    ctx = signals.context_from_store(store, judged=JUDGED)
    x = asyncio.run(signals.values(signals.build("feedback"), PAIRS, ctx))
    assert np.isfinite(x).all()
