"""Speed and accuracy of the dense signal's backends, and the speed of the lexical signal.

    python benchmarks/signals.py [--n 1000] [--calib 200] [--backends numpy,onnx,onnx-int8]
                                 [--data ../shared/data/llmjudge-dev] [--threads 0]

First the ceiling: machine load, BLAS and onnxruntime threads, the token-length distribution of
the passages embedded, the padding a length-sorted batch wastes, and numpy's GEMM rate for the
encoder's real shapes. Then one row per MiniLM backend, on the pairs ``benchmarks/embedded.py``
draws (``--calib`` labelled + ``--n`` judged, uniform, seed 0): passages/s (wall, every
passage and query embedded once), CPU-seconds, passages per CPU-second (the figure that least
depends on what else the shared machine runs), the largest |cosine difference| of a pair from
the numpy reference, the lowest cosine between a passage's vector and numpy's, and the dense
signal's AUC on the judged pairs (a logistic fit on the labelled ones, as benchmarks/embedded.py;
its README figure is 0.674). Target: >= 200 passages/s on 2 cores. A backend this machine cannot
run (onnx-int8 without VNNI, or with ``QRELKIT_CPU_INT8=0``) gets a "skipped" row with the reason,
and a line before the table names the backend the dense signal uses here.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from embedded import draw, evaluate  # noqa: E402

from qrelkit import signals  # noqa: E402
from qrelkit.signals import dense, lexical, minilm  # noqa: E402


def gemm_rate(rows: int) -> str:
    """numpy's GFLOP/s for the four weight products of one layer at ``rows`` tokens per batch."""
    rng = np.random.default_rng(0)
    out = []
    for k, n in ((384, 1152), (384, 384), (384, 1536), (1536, 384)):
        a = rng.standard_normal((rows, k), dtype=np.float32)
        b = rng.standard_normal((k, n), dtype=np.float32)
        a @ b
        t0, reps = time.perf_counter(), 0
        while time.perf_counter() - t0 < 0.5:
            a @ b
            reps += 1
        out.append(f"{k}x{n}: {2 * rows * k * n * reps / (time.perf_counter() - t0) / 1e9:.0f}")
    return ", ".join(out)


def ceiling(texts: list[str], batch: int) -> None:
    from threadpoolctl import threadpool_info

    tok = minilm.load("numpy")
    lens = np.array(sorted(len(i) for i in tok.token_ids(texts)))
    padded = sum(lens[s:s + batch].max() * len(lens[s:s + batch]) for s in range(0, len(lens), batch))
    blas = ", ".join(f"{i['internal_api']} {i['num_threads']} threads" for i in threadpool_info())
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; BLAS: {blas}; "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}")
    print(f"tokens per text (n={len(lens)}): mean {lens.mean():.1f}, median {np.median(lens):.0f}, "
          f"p90 {np.percentile(lens, 90):.0f}, max {lens.max()} (<= {minilm.MAX_SEQ_LENGTH}); "
          f"padding in length-sorted batches of {batch}: {100 * (padded / lens.sum() - 1):.1f}%")
    print(f"numpy GEMM GFLOP/s at {batch}x{int(lens.mean())} tokens: {gemm_rate(batch * int(lens.mean()))}")
    print(f"forward pass: about {minilm_flops(lens.mean()) / 1e9:.2f} GFLOP per text of {lens.mean():.0f} tokens")


def minilm_flops(tokens: float) -> float:
    """Multiply-adds x 2 of the 6 layers' weight products plus attention, per text."""
    d, ff, layers = minilm.DIM, 4 * minilm.DIM, 6
    per_token = 2 * layers * (4 * d * d + 2 * d * ff + 2 * tokens * d)
    return per_token * tokens


def run_backend(name: str, pairs, ctx) -> tuple:
    t0 = time.perf_counter()
    model = minilm.load(name)
    load_s = time.perf_counter() - t0
    model.encode(["warm up"])
    texts = len({q for q, _ in pairs}) + len({d for _, d in pairs})
    w0, c0 = time.perf_counter(), time.process_time()
    x = dense.cosines(model, pairs, ctx)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    return x, (name, texts, texts / wall, cpu, texts / cpu, load_s)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000, help="judged pairs")
    ap.add_argument("--calib", type=int, default=200, help="labelled pairs (fit of the AUC row)")
    ap.add_argument("--backends", default=",".join(minilm.BACKENDS))
    ap.add_argument("--data", type=Path, default=Path("../shared/data/llmjudge-dev"))
    a = ap.parse_args()
    if not (a.data / "passages.jsonl").is_file():
        sys.exit(f"{a.data}/passages.jsonl not found: run from the repo root next to ../shared/data")
    from qrelkit.data import read_docs, read_qrels, read_topics

    qrels = list(read_qrels(a.data / "qrels.txt"))
    labelled, judged = draw(qrels, a.calib, a.n, 0)
    pairs = [(q.qid, q.docid) for q in labelled + judged]
    y = np.array([int(q.grade >= 2) for q in labelled + judged])
    docs = {d.docid: d for d in read_docs(a.data / "passages.jsonl")}
    topics = {t.qid: t for t in read_topics(a.data / "topics.tsv")}
    ctx = signals.SignalContext(topics=topics, docs=docs.get, corpus=lambda: {})
    texts = [ctx.text(d)[:dense.MAX_CHARS] for d in sorted({d for _, d in pairs})]
    ceiling(texts, minilm.BACKENDS['numpy'].batch_size)
    print(f"dense signal's backend on this machine: {minilm.default_backend().name} "
          f"(int8 path: {minilm.cpu_int8_missing() or 'on'}; {minilm.CPU_INT8_ENV}="
          f"{os.environ.get(minilm.CPU_INT8_ENV, 'unset')}, {minilm.ENV}={os.environ.get(minilm.ENV, 'unset')})")
    ref, ref_vecs = None, None
    print(f"{'backend':<10} {'texts':>6} {'per_s':>7} {'cpu_s':>7} {'per_cpu_s':>9} {'max|dcos|':>9} "
          f"{'min cos':>8} {'AUC':>6}  notes")
    for name in a.backends.split(","):
        why = minilm.BACKENDS[name].unavailable()
        if why:
            print(f"{name:<10} skipped: {why}")
            continue
        x, (n, k, rate, cpu, per_cpu, load_s) = run_backend(name, pairs, ctx)
        vecs = minilm.load(name).encode(texts[:200])
        if ref is None:
            ref, ref_vecs = x, vecs
        auc = evaluate(("dense",), x, [p[0] for p in pairs], y, a.calib, False).get("auc", float("nan"))
        print(f"{n:<10} {k:>6} {rate:>7.1f} {cpu:>7.1f} {per_cpu:>9.1f} {np.abs(x - ref).max():>9.1e} "
              f"{(vecs * ref_vecs).sum(1).min():>8.5f} {auc:>6.3f}  load {load_s:.1f}s, "
              f"batch {minilm.BACKENDS[name].batch_size}, load average now {os.getloadavg()[0]:.1f}")
    t0 = time.perf_counter()
    index = lexical.BM25Index.build({str(i): t for i, t in enumerate(texts)})
    index.scores([("q", "what is the capital of france", str(i)) for i in range(len(texts))])
    s = time.perf_counter() - t0
    print(f"{'lexical':<10} {len(texts):>6} {len(texts) / s:>7.0f}  (BM25 index build + one score per passage)")


if __name__ == "__main__":
    main()
