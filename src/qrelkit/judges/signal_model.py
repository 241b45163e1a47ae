"""Cheap relevance signals resolved against a workspace and combined by a fitted regression.

Why its own module: two judges use it, ``learned`` (which decides with it) and
``prefilter(by=learned)`` (which only ranks with it); what a signal costs, which signals are
dropped and why, and the fitted combination are one concept, apart from either judge's budget
and verdicts (:mod:`qrelkit.judges.learned`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy as np

from qrelkit import signals
from qrelkit.llm.base import Usage
from qrelkit.signals import combine

if TYPE_CHECKING:
    from qrelkit.llm.client import Client
    from qrelkit.store import Store


class SignalModel:
    """The signals of one judge resolved against a workspace, and a combination fitted on labels.

    Shared by the ``learned`` judge and ``prefilter(by=learned)``."""

    def __init__(self, names: str, doc_tokens: int):
        self.names = tuple(names.split("+"))
        self.doc_tokens = doc_tokens
        self.ctx: Optional[signals.SignalContext] = None
        self.active: tuple[signals.Signal, ...] = ()
        self.columns: tuple[str, ...] = ()
        self.dropped: tuple[signals.Dropped, ...] = ()
        self.versions: dict[str, str] = {}
        self.model: Optional[combine.Combination] = None
        self.fit_usage = Usage()

    async def resolve(self, store: Store, client: Client, labels: Sequence[Any] = ()) -> dict:
        """Which signals can be computed here; the others are dropped, with the reason. ``labels``
        (people's :class:`~qrelkit.judges.learning.HumanLabel`) are what ``feedback`` compares with."""
        judged: dict[str, dict[str, int]] = {}
        for h in labels:
            judged.setdefault(h.qid, {})[h.docid] = int(h.label)
        self.ctx = signals.context_from_store(store, client=client, doc_tokens=self.doc_tokens, judged=judged)
        active, dropped, cols = [], [], []
        for name in self.names:
            sig = signals.build(name)
            why = sig.unavailable(self.ctx)
            if why:
                dropped.append(signals.Dropped(name, why))
                continue
            active.append(sig)
            self.versions[name] = sig.version(self.ctx)
            cols += [f"{name}.{f}" if len(sig.FEATURES) > 1 else name for f in sig.FEATURES]
        self.active, self.dropped, self.columns = tuple(active), tuple(dropped), tuple(cols)
        return {"signals": list(self.columns), "dropped": self.dropped_list()}

    async def metered(self, pairs: Sequence[tuple[str, str]]) -> tuple[np.ndarray, list[Usage]]:
        """The pairs' signal vectors and the LLM calls each pair cost (cached values cost none)."""
        if self.ctx is None:
            raise RuntimeError("signals used before resolve(); run the judge through the judging runner")
        blocks, usage = [], [Usage()] * len(pairs)
        for sig in self.active:
            x, spent = await signals.metered(sig, pairs, self.ctx)
            blocks.append(x)
            usage = [a + b for a, b in zip(usage, spent)]
        return (np.hstack(blocks) if blocks else np.zeros((len(pairs), 0))), usage

    async def fit(self, pairs: Sequence[tuple[str, str]], labels: Sequence[int]) -> Optional[list[Optional[float]]]:
        """Fit on labelled pairs; their fitted probabilities, or None when nothing can be fitted.
        What their signals cost is kept in ``fit_usage`` (the summary's ``calls``)."""
        x, usage = await self.metered(pairs)
        self.fit_usage = sum(usage, Usage())
        keep = np.isfinite(x).any(axis=1) if x.shape[1] else np.zeros(len(pairs), bool)
        self.model = combine.fit(x[keep], np.asarray(labels)[keep], self.columns)
        if self.model is None:
            return None
        p = self.model.probabilities(x)
        return [None if not np.isfinite(v) else float(v) for v in p]

    async def probability(self, pair: tuple[str, str], meter: Any = None) -> Optional[float]:
        """P(relevant) of one pair; the calls its signals cost go to ``meter`` (a judge's Meter)."""
        if self.model is None:
            return None
        x, usage = await self.metered([pair])
        if meter is not None:
            meter.add_usage(usage[0])
        p = float(self.model.probabilities(x)[0])
        return None if np.isnan(p) else p

    def dropped_list(self) -> list[dict]:
        return [{"name": d.name, "reason": d.reason} for d in self.dropped]

    def summary(self) -> dict:
        return {"combination": self.model.as_dict() if self.model else None, "dropped": self.dropped_list(),
                "calls": self.fit_usage.calls}
