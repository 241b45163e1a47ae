"""The embedded judge's signals, alone and combined, against people's labels.

    python benchmarks/embedded.py [--calib 200] [--n 1000] [--signals pmi+ql+dense+lexical]
                                  [--per-topic] [--seed 0] [--workspace DIR]
                                  [--data ../shared/data/llmjudge-dev] [--model local]
    (also: python benchmarks/judges.py --experiment embedded ...)

Protocol, comparable to the published LLMJudge figures: from the collection's qrels (binary
relevance = grade >= 2), ``--calib`` pairs drawn uniformly at random are the labelled pairs
(people's labels), and ``--n`` *other* pairs drawn uniformly are judged; not stratified by
grade. Every document of the collection is in the workspace, so BM25's statistics are the
collection's. For each signal alone and for the combination, a class-balanced logistic
regression over standardised features (optionally per-topic z-scores) is fitted on the
labelled pairs and applied to the judged ones: AUC, balanced accuracy (P >= 0.5), recall of
each class, and seconds per pair of computing that signal (cached values are free: give
``--workspace`` to keep them between runs). A signal that cannot be computed (no runs -> no
``pool``) is dropped and listed.
"""
from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

DEFAULT_DATA = Path("../shared/data/llmjudge-dev")


def draw(qrels, calib: int, n: int, seed: int):
    """(labelled, judged): uniform, disjoint, seeded samples of the qrels."""
    pool = sorted(qrels, key=lambda q: (q.qid, q.docid))
    rng = random.Random(seed)
    chosen = rng.sample(pool, min(len(pool), calib + n))
    return chosen[:calib], chosen[calib:]


def scores(p: np.ndarray, y: np.ndarray) -> dict:
    from sklearn.metrics import balanced_accuracy_score, recall_score, roc_auc_score

    ok = np.isfinite(p)
    p, y = p[ok], y[ok]
    pred = (p >= 0.5).astype(int)
    return {
        "auc": roc_auc_score(y, p),
        "balanced_accuracy": balanced_accuracy_score(y, pred),
        "recall_relevant": recall_score(y, pred, pos_label=1),
        "recall_nonrelevant": recall_score(y, pred, pos_label=0),
        "n": int(ok.sum()),
    }


async def signal_columns(names, pairs, ctx):
    """{signal: (columns, values, seconds)} and the dropped signals."""
    from qrelkit import signals

    out, dropped = {}, []
    for name in names:
        sig = signals.build(name)
        why = sig.unavailable(ctx)
        if why:
            dropped.append((name, why))
            continue
        t0 = time.perf_counter()
        x = await signals.values(sig, pairs, ctx)
        secs = time.perf_counter() - t0
        cols = tuple(f"{name}.{f}" if len(sig.FEATURES) > 1 else name for f in sig.FEATURES)
        out[name] = (cols, x, secs)
        print(f"  {name}: {len(pairs)} pairs in {secs:.1f}s", file=sys.stderr)
    return out, dropped


def evaluate(cols, x, qids, y, n_calib: int, per_topic: bool) -> dict:
    from qrelkit.signals import combine

    if per_topic:
        x = combine.per_topic_z(x, qids)
    model = combine.fit(x[:n_calib], y[:n_calib], cols, per_topic=per_topic)
    if model is None:
        return {}
    return scores(model.probabilities(x[n_calib:]), y[n_calib:])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calib", type=int, default=200)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--signals", default="pmi+ql+dense+lexical+pool")
    ap.add_argument("--per-topic", action="store_true", help="also report per-topic z-scored features")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workspace", type=Path, default=None, help="keep the workspace (and its caches) here")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--model", default="local")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--splits", type=int, default=0,
                    help="also: the combination's mean and sd over N re-splits of the same pairs (cached values)")
    ap.add_argument("--experiment", default="embedded", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if not (a.data / "qrels.txt").exists():
        print(f"no data at {a.data} (expected topics.tsv, qrels.txt, passages.jsonl)", file=sys.stderr)
        return 2
    from qrelkit import signals
    from qrelkit.data import read_docs, read_qrels, read_topics
    from qrelkit.llm import make_client
    from qrelkit.store import Store

    names = signals.parse_signals(a.signals)
    qrels = list(read_qrels(a.data / "qrels.txt"))
    labelled, judged = draw(qrels, a.calib, a.n, a.seed)
    pairs = [(q.qid, q.docid) for q in labelled + judged]
    y = np.array([int(q.grade >= 2) for q in labelled + judged])
    ws = a.workspace or Path(tempfile.mkdtemp(prefix="qrelkit-embedded-"))
    fresh = not (ws / "qrelkit.sqlite").exists()
    with (Store.create(ws) if fresh else Store.open(ws)) as store:
        if fresh:
            store.upsert_topics(read_topics(a.data / "topics.tsv"))
            store.upsert_docs(read_docs(a.data / "passages.jsonl"))
        client = make_client(a.model, store=store, concurrency=a.concurrency) if {"pmi", "ql"} & set(names) else None
        ctx = signals.context_from_store(store, client=client)
        cols, dropped = asyncio.run(signal_columns(names, pairs, ctx))
    qids = [p[0] for p in pairs]
    rows = []
    for variant in (False, True) if a.per_topic else (False,):
        for name, (c, x, secs) in cols.items():
            rows.append((name, variant, evaluate(c, x, qids, y, a.calib, variant), secs / len(pairs)))
        if len(cols) > 1:
            allc = tuple(c for c, _, _ in cols.values())
            allx = np.hstack([x for _, x, _ in cols.values()])
            secs = sum(s for _, _, s in cols.values())
            rows.append(("+".join(cols), variant, evaluate(sum(allc, ()), allx, qids, y, a.calib, variant),
                         secs / len(pairs)))
    print_table(a, rows, dropped, ws, y)
    if a.splits and cols:
        resplits(a, cols, qids, y)
    return 0


def resplits(a, cols, qids, y) -> None:
    """The combination over ``--splits`` seeded re-draws of which pairs are the labelled ones."""
    allc = sum((c for c, _, _ in cols.values()), ())
    allx = np.hstack([x for _, x, _ in cols.values()])
    out = []
    for k in range(a.splits):
        order = np.random.default_rng(1000 + k).permutation(len(y))
        m = evaluate(allc, allx[order], [qids[i] for i in order], y[order], a.calib, False)
        out.append((m["auc"], m["balanced_accuracy"]))
    auc, ba = np.array(out).T
    print(f"{'+'.join(cols)} over {a.splits} re-splits ({a.calib} labelled / {len(y) - a.calib} judged): "
          f"AUC {auc.mean():.3f} ± {auc.std():.3f}, BA {ba.mean():.3f} ± {ba.std():.3f} (min {ba.min():.3f})")


def print_table(a, rows, dropped, ws, y) -> None:
    print(f"{a.data.name}: {a.calib} labelled pairs, {a.n} judged (uniform, seed {a.seed}); "
          f"relevant (grade>=2) among judged: {y[a.calib:].mean():.3f}")
    print(f"{'signals':<32} {'norm':<6} {'AUC':>6} {'BA':>6} {'rec+':>6} {'rec-':>6} {'s/pair':>8}")
    for name, per_topic, m, spp in rows:
        if not m:
            print(f"{name:<32} {'topic' if per_topic else 'none':<6}  (cannot fit: one class only)")
            continue
        print(f"{name:<32} {'topic' if per_topic else 'none':<6} {m['auc']:>6.3f} {m['balanced_accuracy']:>6.3f} "
              f"{m['recall_relevant']:>6.3f} {m['recall_nonrelevant']:>6.3f} {spp:>8.4f}")
    for name, why in dropped:
        print(f"dropped {name}: {why}")
    print(f"workspace: {ws}")


if __name__ == "__main__":
    sys.exit(main())
