"""The guard on long pages: checked whole, or in windows around trigger words (issue 44).

    python benchmarks/guard_windows.py [--data ../shared/data/llmjudge-dev] [--insertions 300] [--seed 0]
                                       [--rounds 3] [--json]

On a text longer than ``qrelkit.judging.guard.LONG`` characters the ``local`` rules run in
windows of RADIUS characters around its trigger words; this script sets LONG beyond any text to
get the whole-text check, the guard as it was before the windows. It reports the seconds of
both over the corpus (once), over its pages longer than LONG, its five longest pages and the
insertions (``--rounds`` times, alternately: the median), and whether the two give the same
verdict (flagged, rule, reason and span) on every page and on ``--insertions`` phrasings of the
development and held-out files inserted (at the start, the middle or the end, under an
obfuscation of ``qrelkit.judging.guard_probes``) into the corpus's long pages, cut to 4,001 to
16,000 characters so that the whole-text check stays affordable.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from qrelkit.data.docs import read_docs  # noqa: E402
from qrelkit.judging import guard  # noqa: E402
from qrelkit.judging.guard_probes import OBFUSCATIONS, POSITIONS, insert, read_phrasings  # noqa: E402

HERE = Path(__file__).resolve().parent
PHRASINGS = ("guard_dev.txt", "guard_heldout.txt", "guard_heldout2.txt", "guard_heldout3.txt")
WHOLE = 10**12  # LONG beyond any text: every text checked whole


def verdicts(texts: list[tuple[str, str | None]], long: int) -> tuple[list[tuple], float]:
    """The verdict on each ``(text, title)`` with ``guard.LONG = long``, and the seconds."""
    saved, guard.LONG = guard.LONG, long
    try:
        t0 = time.perf_counter()
        out = [tuple(guard.check(t, title).__dict__.values()) for t, title in texts]
        return out, time.perf_counter() - t0
    finally:
        guard.LONG = saved


def insertions(docs: list, n: int, seed: int) -> list[tuple[str, None]]:
    """``n`` phrasings inserted into long pages cut to 4,001-16,000 characters."""
    rng = random.Random(seed)
    long = [d.text for d in docs if len(d.text) > guard.LONG]
    phrasings = [p for name in PHRASINGS for p in read_phrasings(HERE / name)]
    out = []
    for _ in range(n):
        p, (name, obfuscate) = rng.choice(phrasings), rng.choice(list(OBFUSCATIONS.items()))
        page = rng.choice(long)[: rng.randint(guard.LONG + 1, 16_000)]
        out.append((insert(page, obfuscate(p.text, random.Random(f"{seed}:{p.line}:{name}")),
                           rng.choice(POSITIONS)), None))
    return out


def compare(name: str, texts: list, rows: list[dict], rounds: int) -> None:
    """Both ways, alternately ``rounds`` times (the machine's load changes from minute to
    minute); the seconds are the medians."""
    t_win, t_whole = [], []
    for _ in range(rounds):
        windowed, t = verdicts(texts, guard.LONG)
        t_win.append(t)
        whole, t = verdicts(texts, WHOLE)
        t_whole.append(t)
    rows.append({"texts": name, "n": len(texts), "flagged_whole": sum(v[0] for v in whole),
                 "flagged_windowed": sum(v[0] for v in windowed),
                 "differ": sum(a != b for a, b in zip(whole, windowed)),
                 "seconds_whole": round(statistics.median(t_whole), 2),
                 "seconds_windowed": round(statistics.median(t_win), 2)})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path("../shared/data/llmjudge-dev"))
    ap.add_argument("--insertions", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    corpus = a.data / "passages.jsonl"
    if not corpus.exists():
        sys.exit(f"{corpus}: not found (see docs/reproducing.md)")
    docs = list(read_docs(corpus))
    guard.check("warm-up: the rules compile once")
    texts = [(d.text, d.title) for d in docs]
    longest = sorted(texts, key=lambda t: -len(t[0]))[:5]
    rows: list[dict] = []
    long = [t for t in texts if len(t[0]) > guard.LONG]
    compare(f"{corpus.parent.name}, five longest pages", longest, rows, a.rounds)
    compare(f"{corpus.parent.name}, pages over {guard.LONG:,} characters", long, rows, a.rounds)
    compare(f"{corpus.parent.name}, every page", texts, rows, 1)
    compare("phrasings inserted in long pages", insertions(docs, a.insertions, a.seed), rows, a.rounds)
    if a.json:
        print(json.dumps({"rows": rows, "radius": guard.RADIUS, "long": guard.LONG}))
        return
    print("| texts | n | flagged (whole) | flagged (windows) | verdicts that differ | s whole | s windows |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['texts']} | {r['n']:,} | {r['flagged_whole']} | {r['flagged_windowed']} | {r['differ']} "
              f"| {r['seconds_whole']} | {r['seconds_windowed']} |")


if __name__ == "__main__":
    main()
