"""The embedded judge's signals, alone and combined, against people's labels.

    python benchmarks/embedded.py [--collection llmjudge|dl19|demo] [--calib 200] [--n 1000] [--splits 20]
                                  [--signals pmi+ql+dense+lexical+feedback] [--workspace DIR]
                                  [--data DIR] [--model local] [--per-topic [all|query]] [--c 0.1,cv]
    (also: python benchmarks/judges.py --experiment embedded ...)
    (time per signal and pairs per second of each layout of the embedded model, side by side,
     with the values compared: python benchmarks/embedded_speed.py)

``llmjudge`` (the default; LLMJudge dev): from the collection's qrels (binary relevance = grade
>= 2), ``--calib + --n`` pairs are drawn uniformly at random (seed 0), not stratified by grade.
Each of ``--splits`` seeded re-draws makes ``--calib`` of them the labelled pairs (people's labels)
and judges the others. Every document of the collection is in the workspace, so BM25's
statistics are the collection's. ``feedback`` compares with the labelled pairs only (the people's
labels of that re-draw), leaving each labelled pair's own label out.

``dl19`` (TREC DL 2019, leave one group out): the labels that only the ``idst`` runs contributed
to the depth-10 pool of the official runs (57 pairs, 24 relevant) are hidden and judged; the
rest of the NIST qrels are the people's labels, all of them what ``feedback`` compares with.
Each re-draw takes ``--calib`` labelled pairs to fit on, from a fixed seeded set of
``2 x --calib`` candidates (so the likelihood signals are computed once for them). With
``--fill`` the default ``learned`` judge also fills the holes end to end (``qrelkit fill``).

``demo`` (bundled, no ``../shared``): fitted on the demo's 143 qrels, judged on its 44 holes, scored
against the full labels it ships; one draw, as ``qrelkit demo`` decides it (so ± is 0).

For each signal alone and each combination, a class-balanced logistic regression over
standardised features is fitted on the labelled pairs and applied to the judged ones; mean ± sd
over the re-draws of AUC, balanced accuracy (P >= 0.5) and false positives, and seconds per pair
of computing the signal in this run (cached values are free: give ``--workspace`` to keep them;
the first pass's seconds are the cost). ``c=cv`` rows choose C by cross-validation on the
labelled pairs (:func:`qrelkit.signals.combine.choose_c`). A signal that cannot be computed
(no runs -> no ``pool``) is dropped and listed.
"""
from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

DATA = Path("../shared/data")
DEFAULT_DATA = DATA / "llmjudge-dev"
GROUP = "idst"
OLD_DEFAULT = "pmi+ql+dense+lexical+pool"


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
        "false_positives": int(((pred == 1) & (y == 0)).sum()),
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


def evaluate(cols, x, qids, y, n_calib: int, per_topic: bool, c="0.1", seed: int = 0) -> dict:
    """Fit on the first ``n_calib`` rows, score the others."""
    from qrelkit.signals import combine

    if per_topic:
        x = combine.per_topic_z(x, qids, only=query_columns(cols) if per_topic == "query" else None)
    model = combine.fit(x[:n_calib], y[:n_calib], cols, per_topic=bool(per_topic),
                        c=c if c == combine.CV else float(c), seed=seed)
    if model is None:
        return {}
    return scores(model.probabilities(x[n_calib:]), y[n_calib:])


def query_columns(cols) -> list[bool]:
    """Which columns come from a signal that compares the document with the query."""
    from qrelkit import signals

    return [signals.build(c.split(".")[0]).QUERY for c in cols]


def rows_to_test(names, single: bool = True) -> list[tuple[str, tuple[str, ...]]]:
    """Every signal alone, then the combinations compared (those whose signals are all present)."""
    out = [(n, (n,)) for n in names] if single else []
    combos = [OLD_DEFAULT, "pmi+ql+dense+lexical", "pmi+ql+dense+lexical+feedback",
              "pmi+ql+dense+lexical+pool+feedback", "dense+lexical+feedback", "dense+lexical+pool+feedback"]
    for combo in combos:
        parts = tuple(combo.split("+"))
        if set(parts) <= set(names) and (combo, parts) not in out:
            out.append((combo, parts))
    return out


def summarise(results: list[dict]) -> dict:
    keys = ("auc", "balanced_accuracy", "false_positives", "recall_relevant", "recall_nonrelevant")
    return {k: (float(np.mean([r[k] for r in results])), float(np.std([r[k] for r in results])))
            for k in keys} if results and all(results) else {}


def table(title: str, rows, dropped, n_pairs: int, splits: int) -> None:
    print(title)
    print(f"{'signals':<38} {'C':<4} {'AUC':>13} {'BA':>13} {'FP':>11} {'rec+':>6} {'rec-':>6} {'s/pair':>8}")
    for name, c, m, spp in rows:
        if not m:
            print(f"{name:<38} {c:<4} (cannot fit: one class only)")
            continue
        auc, ba, fp = m["auc"], m["balanced_accuracy"], m["false_positives"]
        print(f"{name:<38} {c:<4} {auc[0]:>6.3f} ± {auc[1]:.3f} {ba[0]:>6.3f} ± {ba[1]:.3f} "
              f"{fp[0]:>5.1f} ± {fp[1]:<3.1f} {m['recall_relevant'][0]:>6.3f} {m['recall_nonrelevant'][0]:>6.3f} "
              f"{spp:>8.4f}")
    for name, why in dropped:
        print(f"dropped {name}: {why}")
    print(f"({splits} re-draws; s/pair: this run's seconds per pair over {n_pairs} pairs, cached values cost ~0)")


async def feedback_values(store, ctx, pairs, judged):
    """The feedback signal's values with ``judged`` as the people's labels (leave-one-out)."""
    from qrelkit import signals

    fctx = dataclasses.replace(ctx, judged=judged)
    t0 = time.perf_counter()
    x = await signals.values(signals.build("feedback"), pairs, fctx)
    return x, time.perf_counter() - t0


def judged_of(pairs, y) -> dict:
    out: dict = {}
    for (q, d), label in zip(pairs, y):
        out.setdefault(q, {})[d] = int(label)
    return out


def feedback_z(fx: np.ndarray, qids, src: np.ndarray, src_qids, k0) -> np.ndarray:
    """``learned(feedback_z=k0)``: feedback's similarities as z-scores within the topic against the
    labelled pairs' own values ``src`` (the people's labels feedback compares with), the moments
    shrunk toward theirs over all topics (:func:`qrelkit.signals.combine.shrunk_moments`)."""
    from qrelkit.signals import combine
    from qrelkit.signals.feedback import Feedback

    if k0 == "off":
        return fx
    only = [f in Feedback.SIMILARITIES for f in Feedback.FEATURES]
    moments, fallback = combine.shrunk_moments(src, src_qids, float(k0), only)
    return combine.per_topic_z(fx, qids, moments, fallback=fallback)


def stacked(blocks: dict, parts, rows=slice(None)) -> tuple[tuple[str, ...], np.ndarray]:
    """One combination's column names and feature matrix from the signals' ``(columns, values)``."""
    return sum((blocks[p][0] for p in parts), ()), np.hstack([blocks[p][1][rows] for p in parts])


def pooled_workspace(ws: Path, topics, docs, qrels, runs) -> None:
    """The fill's workspace, pooled at depth 10 with no people's share, not judged (kept if present)."""
    from qrelkit.store import Store
    from qrelkit.workspace import load_collection, pool_workspace

    if (ws / "qrelkit.sqlite").exists():
        return
    with Store.create(ws) as store:
        load_collection(store, str(topics), str(docs), str(qrels), [str(r) for r in runs])
        pool_workspace(store, depth=10, human_depth=0)


def run_splits(cols, pairs, y, n_calib, splits, feedback, per_topic, cs=("0.1", "cv")):
    """{(row, c): [metrics per split]}; ``feedback(k, order)`` gives split k's feedback values."""
    names = list(cols) + (["feedback"] if feedback else [])
    tests = rows_to_test(names)
    out: dict = {}
    for k in range(splits):
        order = np.random.default_rng(1000 + k).permutation(len(y))
        blocks = {n: (c, x[order]) for n, (c, x, _) in cols.items()}
        if feedback:
            fcols, fx = feedback(k, order)
            blocks["feedback"] = (fcols, fx)
        qids = [pairs[i][0] for i in order]
        for name, parts in tests:
            c_all, x = stacked(blocks, parts)
            for c in cs if len(parts) > 1 else cs[:1]:
                out.setdefault((name, c), []).append(evaluate(c_all, x, qids, y[order], n_calib, per_topic, c, seed=k))
    return out


def llmjudge(a) -> None:
    from qrelkit import signals
    from qrelkit.data import read_docs, read_qrels, read_topics
    from qrelkit.llm import make_client
    from qrelkit.signals.feedback import Feedback
    from qrelkit.store import Store

    names = [n for n in signals.parse_signals(a.signals) if n != "feedback"]
    use_feedback = "feedback" in signals.parse_signals(a.signals)
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
        client = make_client(a.model, store=store, concurrency=a.concurrency) if {"pmi", "ql", "pmi_u", "ql_u"} & set(names) else None
        ctx = signals.context_from_store(store, client=client)
        cols, dropped = asyncio.run(signal_columns(names, pairs, ctx))
        fsecs: list = []

        def feedback(k, order):
            lab = [pairs[i] for i in order[: a.calib]]
            x, s = asyncio.run(feedback_values(store, ctx, [pairs[i] for i in order],
                                               judged_of(lab, y[order[: a.calib]])))
            fsecs.append(s)
            qids = [pairs[i][0] for i in order]
            x = feedback_z(x, qids, x[: a.calib], qids[: a.calib], a.feedback_z)
            return tuple(f"feedback.{f}" for f in Feedback.FEATURES), x

        res = run_splits(cols, pairs, y, a.calib, a.splits, feedback if use_feedback else None, a.per_topic, a.c)
    secs = {n: s for n, (_, _, s) in cols.items()} | ({"feedback": float(np.mean(fsecs))} if fsecs else {})
    rows = [(name, c, summarise(r), sum(secs.get(p, 0.0) for p in name.split("+")) / len(pairs))
            for (name, c), r in res.items()]
    table(f"{a.data.name}: {a.calib} labelled pairs, {a.n} judged (uniform, seed {a.seed}); relevant (grade>=2) "
          f"among all: {y.mean():.3f}; per_topic={a.per_topic or 'false'}, feedback_z={a.feedback_z}; "
          f"load average {os.getloadavg()[0]:.1f}", rows, dropped, len(pairs), a.splits)
    print(f"workspace: {ws}")


def dl19(a) -> None:
    from qrelkit import signals
    from qrelkit.data import load_qrels, read_runs, write_qrels
    from qrelkit.evaluate.leaveout import dropped_pairs
    from qrelkit.job.run import fill, recovered
    from qrelkit.llm import make_client
    from qrelkit.signals.feedback import Feedback
    from qrelkit.store import Store
    from qrelkit.types import Qrel

    dl = a.data
    runs = read_runs([str(dl / "runs" / "official")])
    nist = load_qrels(str(dl / "qrels.txt")).pairs
    (drop,) = [g for g in dropped_pairs(runs, nist, 10) if g.group == GROUP]
    hidden = sorted(drop.pairs)
    ws = a.workspace or Path(tempfile.mkdtemp(prefix="qrelkit-embedded-dl19-"))
    ws.mkdir(parents=True, exist_ok=True)
    partial = ws.parent / f"{ws.name}.qrels.hidden.txt"
    write_qrels(partial, [Qrel(q, d, g) for (q, d), g in sorted(nist.items()) if (q, d) not in drop.pairs])
    pooled_workspace(ws, dl / "topics.tsv", dl / "passages.jsonl", partial, [dl / "runs" / "official"])
    if a.fill:
        t0 = time.perf_counter()
        result = fill(ws, auto=True, topics=str(dl / "topics.tsv"), docs=str(dl / "passages.jsonl"),
                      qrels=str(partial), runs=[str(dl / "runs" / "official")], method=a.method, report=False,
                      rejudge=a.rejudge)
        rec = recovered(result.qrels, partial, dl / "qrels.txt")
        print(f"fill --auto --method {a.method!r}: {rec['recovered_relevant']} of {rec['hidden_relevant']} hidden "
              f"relevant recovered, {rec['false_relevant']} false positives, balanced accuracy "
              f"{rec['balanced_accuracy']:.3f} ({time.perf_counter() - t0:.0f} s; method id {result.method})")
    hidden_qids = {q for q, _ in hidden}
    people = {k: int(g >= 2) for k, g in nist.items() if k not in drop.pairs and k[0] in hidden_qids}
    rng = random.Random(0)
    candidates = rng.sample(sorted(people), min(len(people), 2 * a.calib))
    pairs = candidates + hidden
    y = np.array([people[p] for p in candidates] + [int(nist[p] >= 2) for p in hidden])
    names = [n for n in signals.parse_signals(a.signals) if n != "feedback"]
    with Store.open(ws) as store:
        client = make_client(a.model, store=store, concurrency=a.concurrency) if {"pmi", "ql", "pmi_u", "ql_u"} & set(names) else None
        ctx = signals.context_from_store(store, client=client)
        cols, dropped = asyncio.run(signal_columns(names, pairs, ctx))
        fx, fsec = asyncio.run(feedback_values(store, ctx, pairs, judged_of(list(people), list(people.values()))))
        if a.feedback_z != "off":  # the moments: every people label's own value, as the judge takes them
            every, _ = asyncio.run(feedback_values(store, ctx, list(people), judged_of(list(people),
                                                                                     list(people.values()))))
            fx = feedback_z(fx, [q for q, _ in pairs], every, [q for q, _ in people], a.feedback_z)
    n_cand = len(candidates)
    res: dict = {}
    tests = rows_to_test(list(cols) + ["feedback"])
    blocks = {n: (c, x) for n, (c, x, _) in cols.items()}
    blocks["feedback"] = (tuple(f"feedback.{f}" for f in Feedback.FEATURES), fx)
    for k in range(a.splits):
        pick = np.random.default_rng(2000 + k).permutation(n_cand)[: a.calib]
        order = np.concatenate([pick, np.arange(n_cand, len(pairs))])
        qids = [pairs[i][0] for i in order]
        for name, parts in tests:
            c_all, x = stacked(blocks, parts, order)
            for c in a.c if len(parts) > 1 else a.c[:1]:
                res.setdefault((name, c), []).append(evaluate(c_all, x, qids, y[order], a.calib, a.per_topic, c, k))
    secs = {n: s for n, (_, _, s) in cols.items()} | {"feedback": fsec}
    rows = [(name, c, summarise(r), sum(secs.get(p, 0.0) for p in name.split("+")) / len(pairs))
            for (name, c), r in res.items()]
    table(f"trec-dl-2019 leave out {GROUP}: {len(hidden)} hidden pairs ({int(y[n_cand:].sum())} relevant) judged; "
          f"{a.calib} labelled pairs per re-draw from {n_cand} candidates; feedback compares with all {len(people)} "
          f"other NIST labels of those topics; per_topic={a.per_topic or 'false'}, feedback_z={a.feedback_z}; "
          f"load average {os.getloadavg()[0]:.1f}", rows, dropped, len(pairs),
          a.splits)
    print(f"workspace: {ws}")


def demo(a) -> None:
    """The bundled demo: fitted on its qrels (the old runs' depth-10 pool), judged on its holes (the
    new runs' pairs nobody judged), scored against the full labels it ships; one draw, as
    ``qrelkit demo`` decides it (calib=200 takes all 143 labelled pairs)."""
    from qrelkit import signals
    from qrelkit.data import load_qrels
    from qrelkit.demo import demo_paths
    from qrelkit.llm import make_client
    from qrelkit.signals.feedback import Feedback
    from qrelkit.store import Store

    d = demo_paths()
    ws = a.workspace or Path(tempfile.mkdtemp(prefix="qrelkit-embedded-demo-"))
    pooled_workspace(ws, d.topics, d.docs, d.qrels, d.runs)
    full = load_qrels(str(d.full_qrels)).pairs
    names = [n for n in signals.parse_signals(a.signals) if n != "feedback"]
    with Store.open(ws) as store:
        qrels = store.qrels()
        labelled = sorted(qrels)
        holes = sorted((c.qid, c.docid) for c in store.cases() if (c.qid, c.docid) not in qrels)
        pairs = labelled + holes
        y = np.array([int(qrels[p] >= 2) for p in labelled] + [int(full[p] >= 2) for p in holes])
        client = make_client(a.model, store=store, concurrency=a.concurrency) if {"pmi", "ql", "pmi_u", "ql_u"} & set(names) else None
        ctx = signals.context_from_store(store, client=client)
        cols, dropped = asyncio.run(signal_columns(names, pairs, ctx))
        fx, fsec = asyncio.run(feedback_values(store, ctx, pairs, judged_of(labelled, y[: len(labelled)])))
    qids = [q for q, _ in pairs]
    n = len(labelled)
    fx = feedback_z(fx, qids, fx[:n], qids[:n], a.feedback_z)
    blocks = {k: (c, x) for k, (c, x, _) in cols.items()}
    blocks["feedback"] = (tuple(f"feedback.{f}" for f in Feedback.FEATURES), fx)
    rows = []
    secs = {k: sec for k, (_, _, sec) in cols.items()} | {"feedback": fsec}
    for name, parts in rows_to_test(list(cols) + ["feedback"]):
        c_all, x = stacked(blocks, parts)
        for c in a.c if len(parts) > 1 else a.c[:1]:
            rows.append((name, c, summarise([evaluate(c_all, x, qids, y, n, a.per_topic, c)]),
                         sum(secs.get(p, 0.0) for p in parts) / len(pairs)))
    table(f"demo: {n} qrels fitted on, {len(holes)} holes judged ({int(y[n:].sum())} relevant); "
          f"per_topic={a.per_topic or 'false'}, feedback_z={a.feedback_z}; load average {os.getloadavg()[0]:.1f}",
          rows, dropped, len(pairs), 1)
    print(f"workspace: {ws}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--collection", choices=("llmjudge", "dl19", "demo"), default="llmjudge")
    ap.add_argument("--calib", type=int, default=200)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--signals", default=None, help="default: pmi+ql+dense+lexical+feedback (+pool for dl19)")
    ap.add_argument("--per-topic", nargs="?", const="all", default=None, choices=("all", "query"),
                    help="per-topic z-scored features: all of them, or the query signals' only")
    ap.add_argument("--feedback-z", default=None,
                    help="feedback's similarities z-scored per topic with this many pseudo-pairs, or off "
                         "(default: the judge's, qrelkit.signals.combine.FEEDBACK_K0)")
    ap.add_argument("--c", default="0.1,cv", help="the regularisations compared, joined by commas (0.1: fast)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workspace", type=Path, default=None, help="keep the workspace (and its caches) here")
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--model", default="local")
    ap.add_argument("--concurrency", type=int, default=2)
    ap.add_argument("--splits", type=int, default=20, help="re-draws of which pairs are the labelled ones")
    ap.add_argument("--fill", action="store_true", help="dl19: (re)run fill --auto end to end first")
    ap.add_argument("--method", default="learned", help="dl19 --fill: the method")
    ap.add_argument("--rejudge", action="store_true",
                    help="dl19 --fill: start a new job in a workspace filled with another method")
    ap.add_argument("--experiment", default="embedded", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    a.c = tuple(a.c.split(","))
    if a.feedback_z is None:
        from qrelkit.signals.combine import FEEDBACK_K0

        a.feedback_z = FEEDBACK_K0
    a.signals = a.signals or ("pmi+ql+dense+lexical+feedback" + ("" if a.collection == "llmjudge" else "+pool"))
    if a.collection == "demo":  # bundled with qrelkit: no ../shared needed
        demo(a)
        return 0
    a.data = a.data or (DEFAULT_DATA if a.collection == "llmjudge" else DATA / "trec-dl-2019")
    if not (a.data / "qrels.txt").exists():
        print(f"no data at {a.data} (expected topics.tsv, qrels.txt, passages.jsonl)", file=sys.stderr)
        return 2
    (llmjudge if a.collection == "llmjudge" else dl19)(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
