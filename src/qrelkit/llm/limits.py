"""Requests-per-minute and tokens-per-minute limits as token buckets.

Hosted APIs reject bursts beyond a per-minute quota with 429s; pacing on our
side wastes no attempts. The bucket starts full (a minute's quota may go out
at once, as the provider's own accounting allows) and refills continuously.
Waiters queue in FIFO order behind one lock, so no caller starves.
"""

from __future__ import annotations

import asyncio
import time


class TokenBucket:
    def __init__(self, per_minute: float):
        if per_minute <= 0:
            raise ValueError("per-minute limit must be positive")
        self.capacity = float(per_minute)
        self.rate = per_minute / 60.0
        self.level = self.capacity
        self.stamp = time.monotonic()
        self._lock = asyncio.Lock()

    def _refill(self) -> None:
        now = time.monotonic()
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.rate)
        self.stamp = now

    async def acquire(self, n: float = 1.0) -> None:
        # A request larger than the whole bucket would wait forever; let it
        # through once the bucket is full instead.
        n = min(float(n), self.capacity)
        async with self._lock:
            while True:
                self._refill()
                if self.level >= n:
                    self.level -= n
                    return
                await asyncio.sleep((n - self.level) / self.rate)

    def adjust(self, n: float) -> None:
        """Debit (or credit, when negative) the difference between an estimate and the real use."""
        self._refill()
        self.level = min(self.capacity, self.level - n)
