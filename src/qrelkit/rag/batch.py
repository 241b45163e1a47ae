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
from typing import Any, Awaitable, Callable, Hashable, Mapping, Optional, Sequence, TypeVar

from qrelkit.types import Usage

Item = TypeVar("Item")


def paid(result: Any) -> Usage:
    """What one answered call cost this command: a cache hit is no call (its tokens are kept,
    its cost is 0). The records of a group carry it once, on the first (the others cost nothing)."""
    return Usage(calls=int(not result.cached), prompt_tokens=result.prompt_tokens,
                 completion_tokens=result.completion_tokens, cost_usd=result.cost_usd)


def usage_record(u: Usage) -> dict:
    """What the client did during one command, as summaries and command records write it:
    the contract's usage keys with ``errors`` after ``cache_hits`` (cache hits count as calls)."""
    return {"calls": u.calls, "cache_hits": u.cache_hits, "errors": u.errors} | u.as_dict()


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
