"""What a method costs per case, in the shape of DREAM's Table 11.

Calls and tokens come from the judgments themselves (a case's calls, counted even when
the cache answered them, so a method costs the same whether or not another method
asked the same prompt first). Dollars are priced from those tokens with the model's
price table (:mod:`qrelkit.llm.prices`), for the same reason: a cached call's stored
cost is zero.

Latency is measured, not priced: *serial* is the summed latency of the calls a case
makes (the mean latency of the calls the method's runs sent to the model, times its
calls per case: one API session, as the paper's non-parallel column), *parallel* is
the wall time of those runs per case at the run's concurrency. Both come from the runs
that reached the model (:meth:`qrelkit.store.Store.comparison_cost`); a method whose
every call was answered by the cache has no latency of its own to report (None).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Optional, Sequence


@dataclass(frozen=True)
class Cost:
    calls_per_case: float
    tokens_per_case: float
    usd_per_case: float
    latency_serial: Optional[float]  # seconds per case, one call at a time
    latency_parallel: Optional[float]  # seconds per case at ``concurrency``
    concurrency: Optional[int]

    def to_dict(self) -> dict:
        return asdict(self)


def cost_of(judgments: Sequence[Any], prices: Any, run: Any) -> Cost:
    """``judgments``: the method's judgments of the sample; ``prices``: the model's
    :class:`qrelkit.llm.base.Prices`; ``run``: its :class:`qrelkit.store.RunCost` or None."""
    n = len(judgments) or 1
    calls = sum(j.calls for j in judgments) / n
    prompt = sum(j.prompt_tokens for j in judgments)
    completion = sum(j.completion_tokens for j in judgments)
    usd = prices.cost(prompt, completion) / n
    serial = parallel = conc = None
    if run is not None and run.new_calls and run.cases:
        serial = run.call_latency / run.new_calls * calls
        parallel = run.seconds / run.cases
        conc = run.concurrency
    return Cost(calls, (prompt + completion) / n, usd, serial, parallel, conc)
