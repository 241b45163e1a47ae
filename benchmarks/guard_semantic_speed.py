"""The guard on TREC DL 2019 with and without its embedding stage, in one run (issue 44).

    python benchmarks/guard_semantic_speed.py [--repeats 1] [--data ../shared/data/trec-dl-2019]

The machine is shared and its load changes from minute to minute, so the two figures mean
something only side by side: the guard reads the 10,818 passages as ``qrelkit guard`` does
(:func:`qrelkit.judging.guard.scan`, 256 documents a chunk) without the embedding stage and
with it, in turn, ``--repeats`` times. Printed: seconds, flagged passages, the windows the
embedding stage read and the load average at the end of each pass.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from qrelkit.data.docs import read_docs  # noqa: E402
from qrelkit.judging import guard_semantic  # noqa: E402
from qrelkit.judging.guard import check, scan  # noqa: E402


def run(docs: list, semantic: bool) -> dict:
    """One pass over ``docs``: seconds, flagged, e5 windows, load."""
    before = guard_semantic.embedded.windows
    t0 = time.perf_counter()
    flagged = [(d, v.rule) for d, v in scan(((d.docid, d.text, d.title) for d in docs), semantic=semantic)
               if v.flagged]
    return {"semantic": semantic, "seconds": round(time.perf_counter() - t0, 1), "flagged": len(flagged),
            "by_semantic": sum(r == guard_semantic.RULE for _, r in flagged),
            "e5_windows": guard_semantic.embedded.windows - before, "load": round(os.getloadavg()[0], 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--data", type=Path, default=Path("../shared/data/trec-dl-2019"))
    a = ap.parse_args()
    docs = list(read_docs(a.data / "passages.jsonl"))
    check("warm-up: the rules compile once")
    guard_semantic.encoder()  # loaded once per process (under a second)
    rows = []
    for _ in range(a.repeats):
        for semantic in (False, True):
            rows.append(run(docs, semantic))
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print(json.dumps({"passages": len(docs), "runs": rows}))


if __name__ == "__main__":
    main()
