"""How the ``vllm:`` backend batches a judging run's calls, and what qrelkit costs around them.

A real vLLM needs a GPU (there is none here), so the engine is the tests' fake ``vllm`` package
(tests/llm_layer/fake_vllm) with a fixed ``--step-ms`` per engine call, whatever the batch size:
roughly a GPU decoding a moderate batch, whose time is bound by reading the weights, not by the
number of prompts. Everything else is real: zero-shot(output=label) judges ``--cases`` cases of a
fresh workspace (nothing cached) through the Client, the store and the runner at several
``--concurrency`` values. The table shows the engine calls made, their mean batch, the wall time,
cases per second and qrelkit's own CPU per case (the fake's work is a few list operations).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests" / "llm_layer" / "fake_vllm"))


def run(cases: int, concurrency: int, step_ms: float) -> dict:
    import vllm

    from qrelkit.judging.runner import run_judging
    from qrelkit.llm import make_client, vllm_backend
    from qrelkit.store import Store
    from qrelkit.types import Case, Doc, Topic

    vllm.reset()
    vllm.DELAY = step_ms / 1000
    vllm_backend._engines.clear()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.create(Path(tmp) / "ws")
        store.upsert_topics([Topic(f"q{i}", f"query {i}") for i in range(10)])
        store.upsert_docs([Doc(f"d{i}", f"passage {'beacon' if i % 3 else 'plain'} {i}") for i in range(cases)])
        store.upsert_cases([Case(f"q{i % 10}", f"d{i}", "llm", i + 1) for i in range(cases)])
        client = make_client("vllm:fake/model", store=store, concurrency=concurrency)
        t0, c0 = time.perf_counter(), time.process_time()
        summary = run_judging(store, "zero-shot(output=label)", client, task="graded", concurrency=concurrency)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        store.close()
    batches = client.backend.batches
    return {"concurrency": concurrency, "judged": summary.judged, "engine_calls": len(batches),
            "mean_batch": sum(batches) / len(batches), "seconds": wall, "cases_per_s": cases / wall,
            "cpu_ms_per_case": 1000 * cpu / cases}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=512)
    ap.add_argument("--step-ms", type=float, default=20.0)
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 64, 256])
    args = ap.parse_args()
    rows = [run(args.cases, c, args.step_ms) for c in args.concurrency]
    print(f"{args.cases} cases, {args.step_ms:g} ms per engine call (fake engine)")
    print("| --concurrency | engine calls | mean batch | seconds | cases/s | qrelkit CPU ms/case |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r['concurrency']} | {r['engine_calls']} | {r['mean_batch']:.1f} | {r['seconds']:.2f} | "
              f"{r['cases_per_s']:.0f} | {r['cpu_ms_per_case']:.2f} |")


if __name__ == "__main__":
    main()
