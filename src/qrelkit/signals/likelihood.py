"""``pmi`` and ``ql``: the embedded model's query likelihood, as signals.

Both come from one scoring pass of :class:`qrelkit.judges.likelihood.Scorer` (the same prompt
template, truncation and calls as the ``likelihood`` judge, so the client's cache serves both
and the judge): ``ql`` is log P(query | document) and ``pmi`` subtracts the topic's
no-document prior (today's likelihood score). The raw log-likelihood carries the query's own
predictability, which a per-topic normalisation in the learned judge can take out; the two
are measured separately because neither dominates (AUC 0.65 and 0.67 on LLMJudge dev, benchmarks/embedded.py).

They need a client that can ``score`` (the embedded model, vLLM); without one they are dropped.
A failed score call gives NaN for that pair (never a guessed value), and it is not cached.
"""
from __future__ import annotations

import asyncio
from typing import Optional, Sequence

import numpy as np

from qrelkit.llm.base import SCORE
from qrelkit.signals import Pair, Signal, SignalContext, register
from qrelkit.types import Case, Usage


class _Likelihood(Signal):
    FEATURES = ("score",)

    def unavailable(self, ctx: SignalContext) -> Optional[str]:
        if ctx.client is None:
            return "no scoring model (give --model, e.g. the embedded model)"
        if SCORE not in ctx.client.capabilities:
            return f"model {ctx.client.model_id} cannot score continuations"
        return None

    def version(self, ctx: SignalContext) -> str:
        from qrelkit.judges.likelihood import Scorer

        return f"{Scorer(ctx.doc_tokens).version}|{ctx.client.model_id}|doc_tokens={ctx.doc_tokens}"

    def pick(self, s) -> Optional[float]:
        raise NotImplementedError

    async def compute(self, pairs: Sequence[Pair], ctx: SignalContext) -> np.ndarray:
        return (await self.measure(pairs, ctx))[0]

    async def measure(self, pairs: Sequence[Pair], ctx: SignalContext) -> tuple[np.ndarray, list[Usage]]:
        """One metered scoring pass per pair: the calls (and cache hits) each pair cost."""
        from qrelkit.judges.base import JudgeInput, Meter, Task
        from qrelkit.judges.likelihood import Scorer

        scorer = Scorer(ctx.doc_tokens)
        task = Task()

        async def one(p: Pair) -> tuple[float, Usage]:
            meter = Meter()
            inp = JudgeInput(Case(*p), ctx.topics[p[0]], ctx.docs(p[1]), task)
            s, _ = await scorer.score(inp, ctx.client, meter)
            v = self.pick(s)
            return (np.nan if v is None else v), meter.usage

        done = await asyncio.gather(*(one(p) for p in pairs))
        return np.array([v for v, _ in done], dtype=float).reshape(len(pairs), 1), [u for _, u in done]


@register
class PMI(_Likelihood):
    NAME = "pmi"

    def pick(self, s) -> Optional[float]:
        return s.score


@register
class QL(_Likelihood):
    NAME = "ql"

    def pick(self, s) -> Optional[float]:
        return s.logp_doc
