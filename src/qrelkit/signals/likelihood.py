"""``pmi`` and ``ql``: the embedded model's query likelihood, as signals.

Both come from one scoring pass of :class:`Scorer` (defined here; the ``likelihood`` judge uses
the same prompt template, truncation and calls, so the client's cache serves both
and the judge): ``ql`` is log P(query | document) and ``pmi`` subtracts the topic's
no-document prior (today's likelihood score). The raw log-likelihood carries the query's own
predictability, which a per-topic normalisation in the learned judge can take out; the two
are measured separately because neither dominates (AUC 0.65 and 0.67 on LLMJudge dev, benchmarks/embedded.py).

They need a client that can ``score`` (the embedded model, vLLM); without one they are dropped.
A failed score call gives NaN for that pair (never a guessed value), and it is not cached.
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy as np

from qrelkit import prompts
from qrelkit.llm.base import SCORE
from qrelkit.signals import Pair, Signal, SignalContext, register
from qrelkit.types import Topic, Usage

if TYPE_CHECKING:
    from qrelkit.llm.client import Client

TEMPLATE = "likelihood"


@dataclass(frozen=True)
class QLScore:
    """One case's query-likelihood score, or why it could not be computed."""

    logp_doc: Optional[float]
    logp_prior: Optional[float]
    error: Optional[str] = None

    @property
    def score(self) -> Optional[float]:
        if self.logp_doc is None or self.logp_prior is None:
            return None
        return self.logp_doc - self.logp_prior


class Scorer:
    """Computes QL scores; memoises the per-topic no-document term.

    It lives with the signals, which the judges (``likelihood``, ``confidence(score=likelihood)``,
    ``prefilter``) build on, so that signals never depend on judges."""

    def __init__(self, doc_tokens: int):
        self.doc_tokens = doc_tokens
        self._prior: dict[str, asyncio.Future] = {}
        self.template = prompts.load(TEMPLATE)

    @property
    def version(self) -> str:
        return self.template.version

    def continuation(self, inp: Any) -> str:
        return self.template.render("continuation", query=inp.topic.text)

    async def _prior_of(self, inp: Any, client: Client, meter: Any) -> Any:
        qid = inp.topic.qid
        fut = self._prior.get(qid)
        if fut is None or (fut.done() and not fut.result().ok):
            fut = asyncio.ensure_future(
                client.score(
                    self.template.render("without_document"),
                    self.continuation(inp),
                    version=self.version,
                )
            )
            self._prior[qid] = fut
            res = await fut
            meter.add(res)
            return res
        return await asyncio.shield(fut)

    async def score(self, inp: Any, client: Client, meter: Any) -> tuple[QLScore, prompts.Truncation]:
        """``inp`` has the ``topic`` and the document's ``text`` (a judge's JudgeInput, or a signal's
        pair); each answered call is added to ``meter`` (``add(result)``)."""
        shown, tr = prompts.truncate(inp.text, self.doc_tokens)
        prefix = self.template.render("with_document", document=shown)
        doc_res, prior_res = await asyncio.gather(
            client.score(prefix, self.continuation(inp), version=self.version),
            self._prior_of(inp, client, meter),
        )
        meter.add(doc_res)
        if not doc_res.ok:
            return QLScore(None, None, f"score call failed: {doc_res.error}"), tr
        if not prior_res.ok:
            return QLScore(doc_res.logprob, None, f"prior score call failed: {prior_res.error}"), tr
        return QLScore(doc_res.logprob, prior_res.logprob), tr


@dataclass(frozen=True)
class _Pair:
    """What the scorer reads of a pair: its topic and its document's text."""

    topic: Topic
    text: str


class _Meter:
    """The calls one pair's scoring made."""

    def __init__(self) -> None:
        self.usage = Usage()

    def add(self, result: Any) -> Any:
        self.usage += Usage.of(result)
        return result



class _Likelihood(Signal):
    FEATURES = ("score",)
    QUERY = True

    def unavailable(self, ctx: SignalContext) -> Optional[str]:
        if ctx.client is None:
            return "no scoring model (give --model, e.g. the embedded model)"
        if SCORE not in ctx.client.capabilities:
            return f"model {ctx.client.model_id} cannot score continuations"
        return None

    def version(self, ctx: SignalContext) -> str:
        return f"{Scorer(ctx.doc_tokens).version}|{ctx.client.model_id}|doc_tokens={ctx.doc_tokens}"

    def pick(self, s) -> Optional[float]:
        raise NotImplementedError

    async def compute(self, pairs: Sequence[Pair], ctx: SignalContext) -> np.ndarray:
        return (await self.measure(pairs, ctx))[0]

    async def measure(self, pairs: Sequence[Pair], ctx: SignalContext) -> tuple[np.ndarray, list[Usage]]:
        """One metered scoring pass per pair: the calls (and cache hits) each pair cost."""
        scorer = Scorer(ctx.doc_tokens)

        async def one(p: Pair) -> tuple[float, Usage]:
            meter = _Meter()
            s, _ = await scorer.score(_Pair(ctx.topics[p[0]], ctx.text(p[1])), ctx.client, meter)
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
