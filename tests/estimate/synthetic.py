"""A small synthetic collection whose truth is known: topics, pairs, people's grades, a noisy judge, runs.

The judge is biased (it over-grades by one level a third of the time) and its bias differs by topic,
as an LLM's does; runs rank relevant pairs higher than others with run-specific skill, so their scores
differ. Everything is seeded; the collection is small enough for hundreds of estimates in seconds.
"""
from __future__ import annotations

import numpy as np


def collection(seed: int = 0, topics: int = 8, pairs: int = 60, runs: int = 6, depth: int = 20):
    rng = np.random.default_rng(seed)
    universe = [(f"q{t}", f"d{t}-{i}") for t in range(topics) for i in range(pairs)]
    rate = rng.uniform(0.1, 0.5, size=topics)
    truth = {}
    for (q, d) in universe:
        r = rate[int(q[1:])]
        truth[(q, d)] = int(rng.choice(4, p=[1 - r, r * 0.4, r * 0.4, r * 0.2]))
    bias = rng.uniform(0.1, 0.5, size=topics)
    judge = {p: int(min(3, max(0, g + (rng.random() < bias[int(p[0][1:])]) - (rng.random() < 0.1))))
             for p, g in truth.items()}
    ranked = {}
    for r in range(runs):
        skill = 0.4 + 0.25 * r
        ranked[f"run{r}"] = {
            f"q{t}": [d for _, d in sorted(((-(truth[(f"q{t}", f"d{t}-{i}")] * skill + rng.normal()), f"d{t}-{i}")
                                            for i in range(pairs)))][:depth]
            for t in range(topics)
        }
    return universe, truth, judge, ranked
