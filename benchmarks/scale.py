"""How cost grows with the work, on one machine.

A seeded synthetic collection is made for each size (pooled pairs at depth 10):
topics, a document corpus (at least ``--min-corpus`` documents, 10^6 for the
largest size of the issue), 20 runs whose top lists overlap as real systems'
do (each run re-scores a topic's shared candidates with its own noise, so
strong candidates are retrieved by many runs and weak ones by few), and
original qrels for a third of the pool, so that two thirds are holes.

Every stage runs as the real command in a child process, behind its own probe
process, so that its wall time and peak RSS (``ru_maxrss`` of the child) are
its own: ``docs`` (init with topics and docs only: documents per second),
``init`` (topics, docs, qrels, runs), ``pool``, ``judge`` (a scripted model
through the real Client, cache and store: no LLM cost, so the orchestration and
the store are what is measured), ``export``, ``evaluate`` and ``report``.

Targets: seconds per 1,000 pairs of every stage at the largest size within
1.5x of the smallest; peak memory of judge and export flat in the pair count;
documents loaded at >= 100k/s. The machine is shared: compare the ratios of
one run, not figures across runs.

Run: python benchmarks/scale.py [--sizes 1e4,1e5,1e6] [--keep DIR]
     python benchmarks/scale.py --sizes 1e4,1e6 --keep DIR --stages report   (again, on the kept run)
     python benchmarks/scale.py --engine ray    (the Ray engine, 1 vs 2 actors: benchmarks/ray_speedup.py)
The default (10^4 and 10^5 pairs) takes a few minutes; 10^6 took 45 minutes on the
shared 2-core machine (most of it judge, evaluate and report).
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
N_RUNS = 20
RUN_DEPTH = 20  # entries per topic in each run file (the pool takes the top 10)
POOL_DEPTH = 10
CANDIDATES = 60  # shared candidates per topic the runs choose from
STAGES = ("docs", "init", "pool", "judge", "export", "evaluate", "report")

JUDGE = r"""
import json, sys, zlib
from qrelkit.judging.runner import run_judging
from qrelkit.llm import Client, ScriptedBackend
from qrelkit.store import Store

class Forget(list):  # the scripted backend keeps every request for tests; a benchmark must not
    def append(self, item):
        pass

def answer(messages, params):
    h = zlib.crc32(messages[-1].content.encode()) % 4  # deterministic, no model
    return {"reason": "scripted", "grade": h}

with Store.open(sys.argv[1]) as store:
    backend = ScriptedBackend(answer)
    backend.requests = Forget()
    client = Client(backend, store=store, backoff_base=0.0, concurrency=64)
    s = run_judging(store, "zeroshot", client, task="graded", share="llm", concurrency=64)
    print(json.dumps({"judged": s.judged, "calls": s.calls}), file=sys.stderr)
"""

PROBE = (
    "import resource, subprocess, sys, time;"
    "t = time.perf_counter();"
    "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True);"
    "dt = time.perf_counter() - t;"
    "sys.stderr.write(r.stderr[-2000:] if r.returncode else '');"
    "print(dt, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, r.returncode)"
)


def measure(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS in MB of ``cmd``, run behind its own probe process."""
    out = subprocess.run([sys.executable, "-c", PROBE, *cmd], capture_output=True, text=True)
    dt, mb, rc = out.stdout.split()
    if rc != "0":
        raise SystemExit(f"{' '.join(cmd[:4])} ... failed (exit {rc}):\n{out.stderr}")
    return float(dt), float(mb)


# ------------------------------------------------------------------ synthetic data
def words(rng: np.random.Generator, n: int, length: int) -> list[str]:
    vocab = np.array([f"w{i}" for i in range(5000)])
    idx = rng.zipf(1.3, size=(n, length)) % len(vocab)
    return [" ".join(row) for row in vocab[idx]]


def make_collection(out: Path, pairs: int, min_corpus: int, seed: int) -> dict:
    """Write topics.tsv, docs.jsonl, qrels.txt and runs/*.run.gz; returns the counts."""
    rng = np.random.default_rng(seed)
    per_topic = _pool_per_topic(rng)
    n_topics = max(1, round(pairs / per_topic))
    n_docs = max(min_corpus, n_topics * CANDIDATES)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "topics.tsv", "w") as fh:
        for q, text in enumerate(words(rng, n_topics, 5)):
            fh.write(f"q{q}\t{text}\n")
    with open(out / "docs.jsonl", "w") as fh:
        for start in range(0, n_docs, 100_000):
            texts = words(rng, min(100_000, n_docs - start), 40)
            fh.writelines(
                json.dumps({"docid": f"d{start + i}", "text": t}) + "\n" for i, t in enumerate(texts)
            )
    cand = rng.choice(n_docs, size=(n_topics, CANDIDATES), replace=True)
    strength = rng.gamma(1.0, size=(n_topics, CANDIDATES))
    runs_dir = out / "runs"
    runs_dir.mkdir(exist_ok=True)
    pooled: set[tuple[int, int]] = set()
    for r in range(N_RUNS):
        score = strength + rng.gumbel(scale=0.6, size=strength.shape)
        top = np.argsort(-score, axis=1)[:, :RUN_DEPTH]
        with gzip.open(runs_dir / f"sys{r:02d}.run.gz", "wt", compresslevel=1) as fh:
            for q in range(n_topics):
                seen = set()
                rank = 0
                for j in top[q]:
                    d = int(cand[q, j])
                    if d in seen:
                        continue
                    seen.add(d)
                    rank += 1
                    if rank <= POOL_DEPTH:
                        pooled.add((q, d))
                    fh.write(f"q{q} Q0 d{d} {rank} {score[q, j]:.4f} sys{r:02d}\n")
    judged = sorted(pooled)[:: 3]
    with open(out / "qrels.txt", "w") as fh:
        fh.writelines(f"q{q} 0 d{d} {int(rng.integers(0, 4))}\n" for q, d in judged)
    return {"topics": n_topics, "docs": n_docs, "pooled": len(pooled), "judged": len(judged)}


def _pool_per_topic(rng: np.random.Generator) -> float:
    """Pooled documents per topic for this generator (measured on a sample)."""
    strength = rng.gamma(1.0, size=(200, CANDIDATES))
    union = np.zeros(strength.shape, dtype=bool)
    for _ in range(N_RUNS):
        top = np.argsort(-(strength + rng.gumbel(scale=0.6, size=strength.shape)), axis=1)[:, :POOL_DEPTH]
        np.put_along_axis(union, top, True, axis=1)
    return float(union.sum(axis=1).mean())


# ------------------------------------------------------------------ stages
def stage_commands(data: Path, ws: Path) -> dict[str, list[str]]:
    cli = [sys.executable, "-m", "qrelkit"]
    return {
        "docs": cli + ["init", "-w", str(ws) + "-docs", "--topics", str(data / "topics.tsv"),
                       "--docs", str(data / "docs.jsonl")],
        "init": cli + ["init", "-w", str(ws), "--topics", str(data / "topics.tsv"), "--docs",
                       str(data / "docs.jsonl"), "--qrels", str(data / "qrels.txt"), "--runs", str(data / "runs")],
        "pool": cli + ["pool", "-w", str(ws), "--depth", str(POOL_DEPTH), "--human-depth", "0"],
        "judge": [sys.executable, "-c", JUDGE, str(ws)],
        "export": cli + ["export", "-w", str(ws), "--out", str(ws / "new.qrels")],
        "evaluate": cli + ["evaluate", "--runs", str(data / "runs"), "--qrels", str(data / "qrels.txt"),
                           "--qrels", str(ws / "new.qrels"), "--bootstrap", "0", "--json"],
        "report": cli + ["report", "-w", str(ws), "--out", str(ws / "report.html")],
    }


def run_size(pairs: int, min_corpus: int, seed: int, root: Path, stages: tuple[str, ...] = STAGES) -> dict:
    """Every stage of one size; with ``stages`` a subset, on the data and workspace an earlier
    ``--keep`` run left in ``root`` (a stage re-measured after a change, without the hour of 10^6)."""
    data = root / f"data-{pairs}"
    ws = root / f"ws-{pairs}"
    if stages == STAGES:
        shutil.rmtree(ws, ignore_errors=True)
        shutil.rmtree(str(ws) + "-docs", ignore_errors=True)
        counts = make_collection(data, pairs, min_corpus, seed)
        (data / "counts.json").write_text(json.dumps(counts))
    elif (data / "counts.json").is_file() and ws.is_dir():
        counts = json.loads((data / "counts.json").read_text())
    else:
        raise SystemExit(f"--stages needs the data and workspace of an earlier full run: --keep {root}")
    results = {}
    load = [os.getloadavg()[0]]  # the machine is shared: the load goes with the figures
    for name, cmd in stage_commands(data, ws).items():
        if name not in stages:
            continue
        results[name] = measure(cmd)
        print(f"  {pairs:>9,} pairs  {name:<8} {results[name][0]:8.2f} s {results[name][1]:7.0f} MB",
              file=sys.stderr, flush=True)
    load.append(os.getloadavg()[0])
    return {"counts": counts, "stages": results, "load": load}


def print_tables(sizes: list[int], out: dict[int, dict], stages: tuple[str, ...] = STAGES) -> None:
    head = "".join(f"{out[s]['counts']['pooled']:>14,}" for s in sizes)
    print(f"\nseconds per 1,000 pooled pairs (docs: per 1,000 documents)\n{'stage':<10}{head}{'last/first':>12}")
    for stage in stages:
        per = []
        for s in sizes:
            c = out[s]["counts"]
            unit = c["docs"] if stage == "docs" else c["pooled"]
            per.append(out[s]["stages"][stage][0] / unit * 1000)
        ratio = per[-1] / per[0] if per[0] else float("nan")
        print(f"{stage:<10}" + "".join(f"{p:14.3f}" for p in per) + f"{ratio:12.2f}")
    print(f"\npeak RSS (MB)\n{'stage':<10}{head}{'last/first':>12}")
    for stage in stages:
        mb = [out[s]["stages"][stage][1] for s in sizes]
        print(f"{stage:<10}" + "".join(f"{m:14.0f}" for m in mb) + f"{mb[-1] / mb[0]:12.2f}")
    if "docs" in stages:
        print("\ndocuments loaded per second (docs stage): " + ", ".join(
            f"{out[s]['counts']['docs'] / out[s]['stages']['docs'][0]:,.0f}" for s in sizes))
    print("machine load (1-minute average, before and after each size): " + ", ".join(
        f"{out[s]['load'][0]:.1f}/{out[s]['load'][1]:.1f}" for s in sizes))
    print("corpus: " + ", ".join(f"{out[s]['counts']['docs']:,} docs / {out[s]['counts']['topics']:,} topics"
                                 for s in sizes))


def main() -> None:
    if "--engine" in sys.argv:
        if sys.argv[sys.argv.index("--engine") + 1:][:1] != ["ray"]:
            sys.exit("scale.py --engine takes only 'ray' (the local engine is the default)")
        sys.path.insert(0, str(Path(__file__).parent))
        import ray_speedup

        return ray_speedup.main()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1e4,1e5", help="pooled pairs, comma-separated (1e4,1e5,1e6)")
    ap.add_argument("--min-corpus", type=float, default=None,
                    help="documents in the corpus at least (default: 10^6 when 10^6 pairs are asked, else 10x pairs)")
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--keep", type=Path, default=None, help="keep data and workspaces in this folder")
    ap.add_argument("--stages", default=",".join(STAGES),
                    help="only these stages, on what an earlier --keep run left there (e.g. report,evaluate)")
    args = ap.parse_args()
    sizes = sorted(int(float(x)) for x in args.sizes.split(","))
    stages = tuple(s for s in STAGES if s in args.stages.split(","))
    if stages != STAGES and args.keep is None:
        raise SystemExit("--stages re-measures a kept run: pass --keep DIR of an earlier full run")
    os.environ["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")
    root = args.keep or Path(tempfile.mkdtemp(prefix="qrelkit-scale-"))
    root.mkdir(parents=True, exist_ok=True)
    out = {}
    try:
        for s in sizes:
            corpus = int(args.min_corpus) if args.min_corpus else (10**6 if s >= 10**6 else 10 * s)
            out[s] = run_size(s, corpus, args.seed, root, stages)
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    print_tables(sizes, out, stages)


if __name__ == "__main__":
    main()
