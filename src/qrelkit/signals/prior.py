"""``prior``: how often people found the topic's judged documents relevant, as log-odds.

Why: topics differ far more in how many of their documents are relevant than any per-pair
signal shows (LLMJudge dev: from 1% to 39% of a topic's pairs; DL 2019 alike), and the query
signals are z-scored within their topic (``per_topic=query``), which removes exactly that. The
people's labels of a topic say it directly: a pair from a topic where most judged documents were
relevant is more likely relevant itself. The regression weighs this against the pair's own
evidence; with it, DL 2019's hidden pairs are ranked far better (docs/embedded-judge.md).

Value, for a pair (qid, docid): ``log(p / (1 - p))`` with ``p = (r + k m) / (n + k)``, where ``r``
of the topic's ``n`` judged documents other than docid itself are relevant (leave-one-out, as in
:mod:`qrelkit.signals.feedback`: a pair's own label never enters its own value), ``m`` is the
share of relevant labels over all topics and ``k`` the beta-binomial prior's weight in
pseudo-labels, estimated by the method of moments from the topics' shares (their variance less
what sampling alone puts there; clipped to [1, 200]: a topic with few labels is pulled toward
``m``, one with hundreds speaks for itself). A topic nobody judged gets ``log(m / (1 - m))``;
``p`` is kept within [1e-4, 1 - 1e-4]. The labels are the context's ``judged`` (the people's
labels the judge learns from); the version holds their digest, so a cached value never outlives a
changed label.
"""
from __future__ import annotations

from typing import Mapping, Optional, Sequence

import numpy as np

from qrelkit.signals import Pair, Signal, SignalContext, register
from qrelkit.signals.feedback import judged_digest

VERSION = "prior-v1|beta-binomial-mom|loo"
MIN_K, MAX_K = 1.0, 200.0
EPS = 1e-4


def strength(judged: Mapping[str, Mapping[str, int]]) -> tuple[float, float]:
    """(m, k): the share of relevant labels over all topics and the prior's weight in pseudo-labels,
    by the method of moments (Kleinman 1973): the between-topic variance of the true shares is the
    label-weighted variance of the topics' shares less the binomial variance of a topic's share."""
    counts = [(sum(int(v) for v in labels.values()), len(labels)) for labels in judged.values() if labels]
    if not counts:
        return 0.5, MAX_K
    r = np.array([c[0] for c in counts], float)
    n = np.array([c[1] for c in counts], float)
    m = float(r.sum() / n.sum())
    tau2 = float(np.average((r / n - m) ** 2, weights=n) - m * (1 - m) * np.mean(1 / n))
    if tau2 <= 0:
        return m, MAX_K
    return m, float(np.clip(m * (1 - m) / tau2 - 1, MIN_K, MAX_K))


@register
class Prior(Signal):
    NAME = "prior"
    FEATURES = ("log_odds",)

    def unavailable(self, ctx: SignalContext) -> Optional[str]:
        if not any(ctx.judged.values()):
            return "no document judged by people for these topics (prior counts their labels)"
        return None

    def version(self, ctx: SignalContext) -> str:
        return f"{VERSION}|judged={judged_digest(ctx.judged)}"

    async def compute(self, pairs: Sequence[Pair], ctx: SignalContext) -> np.ndarray:
        m, k = strength(ctx.judged)
        out = np.zeros((len(pairs), 1))
        for i, (q, d) in enumerate(pairs):
            labels = ctx.judged.get(q, {})
            own = labels.get(d)
            r = sum(int(v) for v in labels.values()) - (int(own) if own is not None else 0)
            n = len(labels) - (own is not None)
            p = float(np.clip((r + k * m) / (n + k), EPS, 1 - EPS))
            out[i, 0] = np.log(p / (1 - p))
        return out
