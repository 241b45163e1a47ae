"""Two guard models on TREC DL 2019 in one process, alternately: seconds and flagged passages (issue 44).

    python benchmarks/guard_speed.py OLD_MODEL.json.gz [NEW_MODEL.json.gz] [--repeats 3] [--data ../shared/data/trec-dl-2019]

The machine is shared and its load changes from minute to minute, so a speed figure means
something only beside another measured in the same run: each model reads the 10,818 passages
``--repeats`` times, in turn, and the median is reported. NEW_MODEL defaults to the model the
package ships. An older model is read with today's code (rules, folding, windows), so the
difference is the model's alone; the embedding stage is left out (``semantic=False``: its speed is
``guard_semantic_speed.py``'s). Get the previous model with
``git show COMMIT:src/qrelkit/judging/guard_model.json.gz > old.json.gz``.
"""
from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
from importlib import resources
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from qrelkit.data.docs import read_docs  # noqa: E402
from qrelkit.judging import guard, guard_model  # noqa: E402


def _model(raw: bytes) -> guard_model.Model:
    return guard_model.from_dict(json.loads(gzip.decompress(raw)))


def run(model: guard_model.Model, docs: list) -> tuple[float, int]:
    """Seconds for the guard over every passage with ``model``, and how many it flagged."""
    guard_model.load = lambda: model  # the guard asks load() for its model at every check
    t0 = time.perf_counter()
    flagged = sum(guard.check(d.text, d.title, semantic=False).flagged for d in docs)  # the n-gram models alone
    return time.perf_counter() - t0, flagged


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path, nargs="?")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--data", type=Path, default=Path("../shared/data/trec-dl-2019"))
    a = ap.parse_args()
    docs = list(read_docs(a.data / "passages.jsonl"))
    new_raw = a.new.read_bytes() if a.new else resources.files("qrelkit.judging").joinpath(guard_model.MODEL_FILE).read_bytes()
    models = {"old": _model(a.old.read_bytes()), "new": _model(new_raw)}
    guard.check("warm-up: the rules compile once")
    seconds: dict[str, list[float]] = {k: [] for k in models}
    flagged: dict[str, int] = {}
    for _ in range(a.repeats):
        for name, model in models.items():
            s, n = run(model, docs)
            seconds[name].append(s)
            flagged[name] = n
    for name in models:
        times = ", ".join(f"{s:.1f}" for s in seconds[name])
        print(f"{name}: {flagged[name]} of {len(docs):,} flagged; median {statistics.median(seconds[name]):.1f} s ({times})")


if __name__ == "__main__":
    main()
