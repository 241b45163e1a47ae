"""``pool``: how many runs retrieved the pair, and how high.

In a pooled collection the runs' agreement is evidence: a document retrieved near the top by many
systems is more often relevant. Features: ``log_runs`` = log(1 + runs that retrieved the pair
within the pool depth) and ``inv_rank`` = 1 / best rank (0 for a pair outside the pool). Read
from the workspace's cases, so it costs nothing and is not cached. Without runs it is dropped.
"""
from __future__ import annotations

import math
from typing import Optional, Sequence

import numpy as np

from qrelkit.signals import Pair, Signal, SignalContext, register


@register
class Pool(Signal):
    NAME = "pool"
    FEATURES = ("log_runs", "inv_rank")
    CACHED = False

    def unavailable(self, ctx: SignalContext) -> Optional[str]:
        if not ctx.has_runs:
            return "no runs in the workspace, so no pool position (add runs with init --runs and pool)"
        return None

    def version(self, ctx: SignalContext) -> str:
        return "pool-v1"

    async def compute(self, pairs: Sequence[Pair], ctx: SignalContext) -> np.ndarray:
        out = []
        for p in pairs:
            c = ctx.cases.get(p)
            if c is None or c.best_rank <= 0:
                out.append((0.0, 0.0))
            else:
                out.append((math.log1p(len(c.runs)), 1.0 / c.best_rank))
        return np.array(out, dtype=float).reshape(len(pairs), 2)
