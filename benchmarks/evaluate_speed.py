"""`qrelkit evaluate` against reading the runs with ir_measures and scoring directly.

Both sides score the 61 TREC DL 2019 runs (../shared/data/trec-dl-2019) with
the NIST qrels on the same seven measures (binary ones at rel=2), each in its
own child process, so that wall time and peak RSS (ru_maxrss of the child) are
measured the same way and one side's memory cannot hide in the other's. The
two are run alternately ``--repeat`` times and the best of each is kept: the
machine is shared, and the ratio of one run is what counts.

Target: qrelkit no slower than the direct script, within 2x of its memory.

Run: python benchmarks/evaluate_speed.py [--repeat 2] [--data ../shared/data/trec-dl-2019]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

DIRECT = r"""
import sys, glob, ir_measures
from ir_measures import nDCG, P, RR, R, AP, Success, Judged
qrels_path, runs_dir = sys.argv[1], sys.argv[2]
measures = [nDCG@10, P(rel=2)@10, RR(rel=2)@10, R(rel=2)@100, AP(rel=2)@1000, Success(rel=2)@10, Judged@10]
qrels = list(ir_measures.read_trec_qrels(qrels_path))
evaluator = ir_measures.evaluator(measures, qrels)
n = 0
for path in sorted(glob.glob(runs_dir + "/*/*.run.gz")):
    run = ir_measures.read_trec_run(path)
    for metric in evaluator.iter_calc(run):
        n += 1
print(n)
"""


def child(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one command run in a fresh grandchild.

    ru_maxrss of RUSAGE_CHILDREN is the maximum over all children waited for so
    far, so each measurement runs behind its own intermediate Python process."""
    probe = (
        "import resource, subprocess, sys, time;"
        "t = time.perf_counter();"
        "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL);"
        "dt = time.perf_counter() - t;"
        "print(dt, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, r.returncode)"
    )
    out = subprocess.run([sys.executable, "-c", probe, *cmd], capture_output=True, text=True, check=True)
    dt, mb, rc = out.stdout.split()
    if rc != "0":
        raise SystemExit(f"{' '.join(cmd)} failed with exit code {rc}")
    return float(dt), float(mb)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "trec-dl-2019"))
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    data = Path(args.data)
    if not (data / "qrels.txt").exists():
        raise SystemExit(f"no TREC DL 2019 data at {data}; pass --data")
    qrels, runs = str(data / "qrels.txt"), str(data / "runs")
    env_py = [sys.executable]
    os.environ["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")
    qrelkit = env_py + ["-m", "qrelkit", "evaluate", "--runs", runs + "/*/*.run.gz", "--qrels", qrels,
                        "--bootstrap", "0", "--json"]
    direct = env_py + ["-c", DIRECT, qrels, runs]
    best = {"direct ir_measures": (1e9, 1e9), "qrelkit evaluate": (1e9, 1e9)}
    for _ in range(args.repeat):
        for name, cmd in (("direct ir_measures", direct), ("qrelkit evaluate", qrelkit)):
            t, mb = child(cmd)
            bt, bm = best[name]
            best[name] = (min(t, bt), min(mb, bm))
    dt, dm = best["direct ir_measures"]
    qt, qm = best["qrelkit evaluate"]
    print(f"{'61 DL19 runs, 7 measures':<28} {'seconds':>8} {'peak MB':>8}")
    print(f"{'direct ir_measures':<28} {dt:8.2f} {dm:8.0f}")
    print(f"{'qrelkit evaluate':<28} {qt:8.2f} {qm:8.0f}")
    print(f"{'ratio qrelkit / direct':<28} {qt / dt:8.2f} {qm / dm:8.2f}   (targets <= 1.00 and <= 2.00)")


if __name__ == "__main__":
    main()
