"""One LLM call per distinct request, run concurrently, each result saved as it arrives.

Generation and grading share this shape: many (system, query) items, fewer
distinct requests (two systems with the same top-k context ask the same
question; two systems with the same answer need the same grade). Grouping
items by what determines the request makes "identical contexts cost one call"
a property of the code rather than of the cache, and saving each group's
rows the moment its call returns makes a killed run lose at most the calls in
flight.
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Hashable, Mapping, Optional, Sequence, TypeVar

Item = TypeVar("Item")


@dataclass(frozen=True)
class UsageDelta:
    """What the client did during one command (cache hits count as calls, cost nothing)."""

    calls: int = 0
    cache_hits: int = 0
    errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0

    @classmethod
    def between(cls, before: dict, after: dict) -> "UsageDelta":
        return cls(**{k: after[k] - before[k] for k in cls.__dataclass_fields__})

    def as_dict(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__} | {"cost_usd": round(self.cost_usd, 8)}


async def run_groups(
    groups: Mapping[Hashable, Sequence[Item]],
    call: Callable[[Hashable, Sequence[Item]], Awaitable[list[Any]]],
    save: Optional[Callable[[list[Any]], Any]],
    concurrency: int,
    progress: Optional[Callable[[int, int], None]] = None,
) -> list[Any]:
    """Await ``call(key, items)`` once per group (at most ``concurrency`` at once); ``save``
    each group's rows as soon as they exist. Returns all rows, groups in the given order."""
    sem = asyncio.Semaphore(max(1, concurrency))
    done = 0
    total = len(groups)

    async def one(key: Hashable, items: Sequence[Item]) -> list[Any]:
        nonlocal done
        async with sem:
            rows = await call(key, items)
        if save is not None and rows:
            save(rows)
        done += 1
        if progress is not None:
            progress(done, total)
        return rows

    results = await asyncio.gather(*(one(k, v) for k, v in groups.items()))
    return [row for rows in results for row in rows]
