"""Speed of the cheap relevance signals: passages (or pairs) per second on this machine.

    python benchmarks/signals.py [--n 1000] [--data ../shared/data/llmjudge-dev]

Prints one row per signal: how many texts, seconds, and per second. The target for the dense
signal (all-MiniLM-L6-v2 in numpy) is >= 200 passages/s on 2 cores (issue 18).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from qrelkit.signals import lexical, minilm  # noqa: E402


def passages(data: Path, n: int, seed: int) -> list[str]:
    with open(data / "passages.jsonl", encoding="utf-8") as f:
        texts = [json.loads(line)["doc"] for line in f]
    return random.Random(seed).sample(texts, min(n, len(texts)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--data", default="../shared/data/llmjudge-dev")
    args = ap.parse_args()
    data = Path(args.data)
    if not (data / "passages.jsonl").is_file():
        sys.exit(f"{data}/passages.jsonl not found: run from the repo root next to ../shared/data")
    texts = passages(data, args.n, args.seed)
    t0 = time.perf_counter()
    model = minilm.load()
    load_s = time.perf_counter() - t0
    n_tok = sum(len(i) for i in model.token_ids(texts))
    print(f"{'signal':<10} {'texts':>6} {'seconds':>8} {'per_s':>8}  notes")
    t0 = time.perf_counter()
    model.encode(texts, batch_size=args.batch)
    s = time.perf_counter() - t0
    print(f"{'dense':<10} {len(texts):>6} {s:>8.2f} {len(texts) / s:>8.0f}  "
          f"load {load_s:.1f}s, {n_tok / len(texts):.0f} tokens/passage (<= {minilm.MAX_SEQ_LENGTH}), batch {args.batch}")
    t0 = time.perf_counter()
    index = lexical.BM25Index.build({str(i): t for i, t in enumerate(texts)})
    index.scores([("q", "what is the capital of france", str(i)) for i in range(len(texts))])
    s = time.perf_counter() - t0
    print(f"{'lexical':<10} {len(texts):>6} {s:>8.2f} {len(texts) / s:>8.0f}  index build + one score per passage")


if __name__ == "__main__":
    main()
