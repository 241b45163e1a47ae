"""The bridge preset's measurements on a filled collection: what hole filling changed per system.

BRIDGE (Ban et al., §4–5) pools 25 retrievers, fills the holes with DREAM and reports, per
system, Hole@10 (detected holes in the top 10 ÷ 10, against the original labels: Table 4) and
Hit@10 on the filled qrels with its gain over the original (Table 5). A run is matched to a
paper row by its name (case-insensitive: a run named ``bm25`` fills the BM25 row); ``*`` is the
average over every run given. RAGAlign@10 (Table 6) needs generated answers
(``qrelkit ragalign``) and is left to that command.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

Pair = tuple[str, str]


def measure(runs: Sequence[Any], original: Mapping[Pair, int], new: Mapping[Pair, int], threshold: int) -> dict:
    """``{run name (lower case) or "*": {figure: value}}``."""
    from qrelkit.evaluate.holes import hole_at_k
    from qrelkit.evaluate.systems import evaluate_runs, prepare_runs

    holes = hole_at_k(runs, original, new, 10, threshold)
    filled = {**original, **new}
    topics = sorted({q for q, _ in original})
    prepared = prepare_runs(runs)
    before = evaluate_runs(prepared, original, ["Success@10"], threshold=threshold, topics=topics).of("Success@10")
    after = evaluate_runs(prepared, filled, ["Success@10"], threshold=threshold, topics=topics).of("Success@10")
    out: dict[str, dict] = {}
    for i, name in enumerate(prepared.names):
        b, a = float(before[i].mean()), float(after[i].mean())
        out[name.lower()] = {"hole_at_10": holes.get(name), "hit_at_10_after": a, "hit_at_10_gain": a - b}
    rates = [v for v in holes.values() if v is not None]
    out["*"] = {"hole_at_10": sum(rates) / len(rates) if rates else None}
    return out
