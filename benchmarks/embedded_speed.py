"""The embedded judge's cost, signal by signal, for each layout of the embedded model, side by side.

    python benchmarks/embedded_speed.py [--calib 40] [--n 60] [--rounds 2] [--variants 1x2,2x1]
                                        [--data ../shared/data/llmjudge-dev] [--json OUT]

On ``--calib + --n`` LLMJudge dev pairs drawn as ``benchmarks/embedded.py`` draws them (uniform,
seed 0), each variant computes every signal of the default ``learned`` judge from nothing (a
fresh workspace: no cached score, no cached MiniLM vector) and fits the judge's combination
(``pmi+ql+dense+lexical+feedback``, per-topic z of the query signals, feedback z-scored with
K = 40, C = 0.1) on the first ``--calib`` pairs, scoring the others. A variant is a layout of
the embedded model, ``WORKERSxTHREADS`` (:mod:`qrelkit.llm.local_pool`): ``1x2`` is one copy
with two threads (the layout before), ``2x1`` two copies with one thread each (the default).

The variants run in turn, ``--rounds`` times, the order reversed every other round (ABBA), so
that the shared machine's drifting load falls on both alike. Printed, per variant (the mean of
its rounds): model loading (once per process, so the first round's; run one variant alone for a
clean figure), each signal's wall and CPU seconds per pair, the learning step, the whole
judge's pairs per second (wall) and per CPU-second; then the largest |difference| of each
signal's values from the first variant's (0 means the same numbers), and the balanced accuracy
and AUC of the fitted combination. CPU seconds are the process's (every thread), so a thread
that spins while it waits counts. The load average is printed with each round.
"""
from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from embedded import DEFAULT_DATA, draw, feedback_z, judged_of, query_columns, scores  # noqa: E402

SIGNALS = ("pmi", "ql", "dense", "lexical", "feedback")


def parse_layout(text: str):
    from qrelkit.llm.local_pool import Layout

    w, t = text.lower().split("x")
    return Layout(int(w), int(t))


class Clock:
    """Wall and process CPU seconds of each named step."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    def step(self, name: str, fn):
        w, c = time.perf_counter(), time.process_time()
        out = fn()
        self.wall[name] = self.wall.get(name, 0.0) + time.perf_counter() - w
        self.cpu[name] = self.cpu.get(name, 0.0) + time.process_time() - c
        return out


def one_variant(layout, pairs, y, calib: int, data: Path) -> dict:
    """Every signal from nothing in a fresh workspace, then the fit: seconds and values."""
    from qrelkit import signals
    from qrelkit.data import read_docs, read_topics
    from qrelkit.llm import make_client
    from qrelkit.llm.local import LocalBackend
    from qrelkit.signals import minilm
    from qrelkit.store import Store

    clock = Clock()
    ws = Path(tempfile.mkdtemp(prefix="qrelkit-speed-"))
    values: dict[str, np.ndarray] = {}
    with Store.create(ws) as store:
        store.upsert_topics(read_topics(data / "topics.tsv"))
        store.upsert_docs(read_docs(data / "passages.jsonl"))
        backend = LocalBackend(layout=layout)
        clock.step("load llama", lambda: backend.pool().first())
        clock.step("load minilm", lambda: minilm.load())
        client = make_client("local", store=store, backend=backend, concurrency=8)
        ctx = signals.context_from_store(store, client=client)
        for name in SIGNALS[:-1]:
            sig = signals.build(name)
            values[name] = clock.step(name, lambda sig=sig: asyncio.run(signals.values(sig, pairs, ctx)))
        lab = pairs[:calib]
        fctx = dataclasses.replace(ctx, judged=judged_of(lab, y[:calib]))
        values["feedback"] = clock.step(
            "feedback", lambda: asyncio.run(signals.values(signals.build("feedback"), pairs, fctx)))
    quality = clock.step("learning", lambda: fit_and_score(values, pairs, y, calib))
    return {"wall": clock.wall, "cpu": clock.cpu, "values": values, "quality": quality,
            "load": os.getloadavg()[0], "workspace": str(ws)}


def fit_and_score(values: dict, pairs, y, calib: int) -> dict:
    """The default combination as the judge fits it, on the first ``calib`` pairs."""
    from qrelkit import signals
    from qrelkit.signals import combine

    qids = [q for q, _ in pairs]
    fx = feedback_z(values["feedback"], qids, values["feedback"][:calib], qids[:calib], combine.FEEDBACK_K0)
    cols = tuple(f"{n}.{f}" for n in SIGNALS for f in signals.build(n).FEATURES)
    x = np.hstack([values[n] for n in SIGNALS[:-1]] + [fx])
    x = combine.per_topic_z(x, qids, only=query_columns(cols))
    model = combine.fit(x[:calib], y[:calib], cols, per_topic=True, c=0.1, seed=0)
    return scores(model.probabilities(x[calib:]), y[calib:]) if model is not None else {}


def mean_of(rounds: list[dict], kind: str, step: str) -> float:
    """A step's seconds, averaged over the rounds (loading: the first round's, when it loaded)."""
    if step.startswith("load"):
        return rounds[0][kind].get(step, 0.0)
    return float(np.mean([r[kind].get(step, 0.0) for r in rounds]))


def table(results: dict, n_pairs: int) -> list[str]:
    steps = ["load llama", "load minilm", *SIGNALS, "learning"]
    names = list(results)
    out = [f"{'step':<22}" + "".join(f"{n + ' wall':>16}{n + ' cpu':>14}" for n in names)]
    for s in steps:
        per = "" if s.startswith("load") or s == "learning" else "/pair"
        row = f"{s + (' (s' + per + ')'):<22}"
        for n in names:
            div = 1 if not per else n_pairs
            row += f"{mean_of(results[n], 'wall', s) / div:>16.4f}{mean_of(results[n], 'cpu', s) / div:>14.4f}"
        out.append(row)
    row_w, row_c = f"{'judge pairs/s':<22}", f"{'judge pairs/CPU-s':<22}"
    work = [*SIGNALS, "learning"]
    for n in names:
        row_w += f"{n_pairs / sum(mean_of(results[n], 'wall', s) for s in work):>16.3f}{'':>14}"
        row_c += f"{'':>16}{n_pairs / sum(mean_of(results[n], 'cpu', s) for s in work):>14.3f}"
    return out + [row_w, row_c]


def main(argv=None) -> int:
    from qrelkit.data import read_qrels

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calib", type=int, default=40)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--variants", default="1x2,2x1", help="layouts WORKERSxTHREADS, the first is the reference")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    a = ap.parse_args(argv)
    if not (a.data / "qrels.txt").exists():
        print(f"no data at {a.data} (expected topics.tsv, qrels.txt, passages.jsonl)", file=sys.stderr)
        return 2
    labelled, judged = draw(list(read_qrels(a.data / "qrels.txt")), a.calib, a.n, 0)
    pairs = [(q.qid, q.docid) for q in labelled + judged]
    y = np.array([int(q.grade >= 2) for q in labelled + judged])
    names = a.variants.split(",")
    results: dict[str, list[dict]] = {n: [] for n in names}
    for k in range(a.rounds):
        for n in (names if k % 2 == 0 else names[::-1]):
            r = one_variant(parse_layout(n), pairs, y, a.calib, a.data)
            results[n].append(r)
            print(f"round {k + 1} {n}: {sum(r['wall'].values()):.1f} s wall, {sum(r['cpu'].values()):.1f} s CPU, "
                  f"load average {r['load']:.1f}", file=sys.stderr, flush=True)
    ref = results[names[0]][0]["values"]
    print(f"embedded judge, {len(pairs)} LLMJudge dev pairs ({a.calib} labelled), {a.rounds} rounds ABBA, "
          f"mean of the rounds (loading: the first, in a fresh process); load average {os.getloadavg()[0]:.1f}; variants WORKERSxTHREADS")
    print("\n".join(table(results, len(pairs))))
    diffs = {n: {s: float(max(np.nanmax(np.abs(r["values"][s] - ref[s])) for r in results[n])) for s in SIGNALS}
             for n in names}
    print("max |value - " + names[0] + " round 1's| over every round: "
          + "; ".join(f"{n}: " + ", ".join(f"{s} {d:.2g}" for s, d in diffs[n].items()) for n in names))
    for n in names:
        q = results[n][0]["quality"]
        print(f"{n}: balanced accuracy {q.get('balanced_accuracy', float('nan')):.3f}, "
              f"AUC {q.get('auc', float('nan')):.3f} on {q.get('n', 0)} judged pairs")
    if a.json:
        slim = {n: [{k: v for k, v in r.items() if k != "values"} for r in rs] for n, rs in results.items()}
        a.json.write_text(json.dumps({"pairs": len(pairs), "rounds": slim, "max_abs_diff": diffs}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
