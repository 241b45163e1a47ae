"""The Ray engine's speed-up with 1 vs 2 actors on this machine.

``python benchmarks/scale.py --engine ray`` runs this (so does ``python
benchmarks/ray_speedup.py``). The same workspace of ``--cases`` cases is judged
by zero-shot three times, each time from an empty workspace so that nothing is
answered from the cache: by the plain engine, and by the Ray engine with 1 and
with 2 actors. The model is scripted but costs CPU like an in-process model: each
call spins for ``--work-ms`` of CPU time in the process that answers it (the
plain engine's own process, or an actor), so the figures measure how judging
work spreads over actors, not a model. The labels of the three runs are compared
(they must be the same). The machine has 2 cores shared with others: compare the
ratios of one run.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))


def answer(messages, params, work_ms: float = 20.0) -> dict:
    """A deterministic grade after ``work_ms`` of CPU (what a small in-process model costs)."""
    end = time.process_time() + work_ms / 1000
    while time.process_time() < end:
        pass
    return {"reason": "scripted", "grade": zlib.crc32(messages[-1].content.encode()) % 4}


class CpuModel:
    """The scripted backend, as a picklable factory an actor loads."""

    def __init__(self, work_ms: float):
        self.work_ms = work_ms

    def __call__(self):
        from qrelkit.llm import ScriptedBackend

        work = self.work_ms
        return ScriptedBackend(lambda m, p: answer(m, p, work))


def _spin(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def machine_parallelism(seconds: float = 1.0) -> float:
    """How much faster two plain processes spin than one after the other, now: the ceiling any
    engine can reach here (2.0 on two idle cores; about 1.0 when other work fills them)."""
    import multiprocessing as mp

    t0 = time.perf_counter()
    _spin(seconds)
    _spin(seconds)
    serial = time.perf_counter() - t0
    procs = [mp.Process(target=_spin, args=(seconds,)) for _ in range(2)]
    t0 = time.perf_counter()
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    return serial / (time.perf_counter() - t0)


def make_ws(path: Path, n: int):
    from qrelkit.store import Store
    from qrelkit.types import Case, Doc, Topic

    store = Store.create(path)
    store.upsert_topics([Topic(f"q{i}", f"query number {i}") for i in range(10)])
    store.upsert_docs([Doc(f"d{i}", f"passage {i} about topic {i % 10}") for i in range(n)])
    store.upsert_cases([Case(f"q{i % 10}", f"d{i}", "llm", i + 1) for i in range(n)])
    return store


def judge_once(root: Path, name: str, n: int, work_ms: float, actors: int, concurrency: int) -> tuple[float, dict]:
    from qrelkit.engines import parse_engine
    from qrelkit.engines.ray import RayBackend
    from qrelkit.judging.runner import run_judging
    from qrelkit.llm import Client

    store = make_ws(root / name, n)
    if actors:
        backend = RayBackend.start(CpuModel(work_ms), parse_engine(f"ray(actors={actors}, cpus=1, batch=4)"))
    else:
        backend = CpuModel(work_ms)()
    client = Client(backend, store=store, concurrency=concurrency)
    t0 = time.perf_counter()
    run_judging(store, "zeroshot", client, task="graded", concurrency=concurrency)
    seconds = time.perf_counter() - t0
    if actors:
        backend.shutdown()
    labels = {(j.qid, j.docid): j.grade for j in store.judgments()}
    store.close()
    return seconds, labels


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--work-ms", type=float, default=20.0, help="CPU per model call (ms)")
    ap.add_argument("--concurrency", type=int, default=8)
    args = ap.parse_args([a for a in sys.argv[1:] if a not in ("--engine", "ray")])
    import ray

    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=80 * 1024 * 1024, log_to_driver=False,
             logging_level="warning")
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    rows = []
    with tempfile.TemporaryDirectory(prefix="qrelkit-ray-") as tmp:
        for name, actors in (("plain engine", 0), ("ray, 1 actor", 1), ("ray, 2 actors", 2)):
            seconds, labels = judge_once(Path(tmp), name.replace(" ", "_").replace(",", ""), args.cases,
                                         args.work_ms, actors, args.concurrency)
            rows.append((name, seconds, labels))
    ray.shutdown()
    ideal = args.cases * args.work_ms / 1000
    print(f"\n{args.cases} cases, {args.work_ms:g} ms of CPU per call (ideal on one core: {ideal:.1f} s)")
    print(f"{'engine':<16}{'seconds':>9}{'cases/s':>9}{'vs 1 actor':>12}")
    one = rows[1][1]
    for name, seconds, _ in rows:
        print(f"{name:<16}{seconds:9.2f}{args.cases / seconds:9.1f}{one / seconds:11.2f}x")
    print(f"two plain processes vs one after the other, measured now: {machine_parallelism():.2f}x "
          "(the ceiling for 2 actors on this machine at this moment)")
    same = all(r[2] == rows[0][2] for r in rows)
    print(f"same labels in all three runs: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
