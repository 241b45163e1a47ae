"""The LLM call cache: one row per distinct request, keyed by its signature.

A call whose key is here is never paid for twice: a re-run, a resumed job or
another method asking the same prompt of the same model reads the response.
"""
from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
from typing import Optional

from qrelkit.errors import StorageError
from qrelkit.jsontext import sorted_json
from qrelkit.store.core import now

log = logging.getLogger(__name__)


_PUT = (
    "INSERT INTO llm_calls(key, model, request, response, prompt_tokens, completion_tokens, latency, "
    "cost_usd, created_at) VALUES(?,?,?,?,?,?,?,?,?) ON CONFLICT(key) DO UPDATE SET "
    "response=excluded.response, prompt_tokens=excluded.prompt_tokens, "
    "completion_tokens=excluded.completion_tokens, latency=excluded.latency, cost_usd=excluded.cost_usd"
)


class LLMCallStore:
    """The cache of LLM requests and responses (mixin of :class:`qrelkit.store.Store`).

    Answers that arrive inside a running event loop are held for ``FLUSH_SECONDS`` and written
    together in one transaction (:meth:`flush_calls`; a verdict write flushes them first, so a
    verdict is never stored before its call). Why: one commit per answer was a third of the
    store's CPU in a judging run at hundreds of calls a second. A delay rather than the loop's
    next iteration, because the client lets waiting workers send between the answers of one
    burst (``client._after_waiters``), which spreads a burst over many iterations: flushed per
    iteration, commits tripled (2.4 answers each instead of 6.9 at 256 in flight). A kill loses
    at most the answers of the last ``FLUSH_SECONDS``, which are paid again on the next run; a
    loop that ends writes what is held (see :meth:`cache_put`), and so do a client closing
    (``Client.aclose``), a verdict write and the store closing. Outside an event loop (threads,
    scripts) each answer is written at once. Until written, an answer is read from memory, so
    the same request is never paid twice in one process."""

    FLUSH_SECONDS = 0.02

    _pending_calls: dict[str, tuple]  # key -> the row to write (StoreCore.__init__)
    _flush_loop: object = None  # the event loop whose flush task will write them

    def cache_get(self, key: str) -> Optional[dict]:
        if self._pending_calls:
            with self._lock:
                row = self._pending_calls.get(key)
            if row is not None:
                return json.loads(row[3])
        rows = self.query("SELECT response FROM llm_calls WHERE key=?", (key,))
        return json.loads(rows[0][0]) if rows else None

    def cache_put(
        self,
        key: str,
        model: str,
        request: dict | str,
        response: dict,
        prompt_tokens: int = 0,
        completion_tokens: int = 0,
        latency: float = 0.0,
        cost_usd: float = 0.0,
    ) -> None:
        row = (
            key, model, request if isinstance(request, str) else json.dumps(request, sort_keys=True),
            sorted_json(response), prompt_tokens, completion_tokens, latency, cost_usd, now(),
        )
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        with self._lock:
            if loop is None or self._depth:  # no loop to write it soon, or a caller's transaction
                self.execute(_PUT, row)
                return
            first = not self._pending_calls or self._flush_loop is not loop
            self._pending_calls[key] = row
            if first:
                self._flush_loop = loop
        if first:
            # a task, not a timer: a loop that ends (asyncio.run returning, Ctrl-C) cancels its
            # tasks, even those not started, and their done callbacks run; a timer is dropped
            loop.create_task(asyncio.sleep(self.FLUSH_SECONDS)).add_done_callback(self._flush_calls_soon)

    def flush_calls(self) -> None:
        """Write the answers still held (see the class docstring), in one transaction."""
        with self._lock:
            if not self._pending_calls:
                return
            rows = list(self._pending_calls.values())
            with self.transaction() as c:
                c.executemany(_PUT, rows)
            self._pending_calls.clear()

    def close(self) -> None:
        try:
            self.flush_calls()
        finally:
            super().close()  # type: ignore[misc]  (StoreCore's, last in the Store's bases)

    def _flush_calls_soon(self, _done: object = None) -> None:
        try:
            self.flush_calls()
        except StorageError:  # a full or read-only disk: the store keeps it (write_failed), the
            with self._lock:   # client makes no new call and the run stops with it, one line
                self._pending_calls = {}
        except (sqlite3.Error, OSError) as e:  # as an answer that could not be cached always was
            with self._lock:
                lost, self._pending_calls = len(self._pending_calls), {}
            log.warning("could not cache %d LLM answers (%s: %s); they will be paid again next run",
                        lost, type(e).__name__, e)

    def calls_between(self, start: float, end: Optional[float] = None) -> dict:
        """What the calls first cached in ``[start, end)`` cost: the spend of a
        command that was killed before it could write its own totals."""
        self.flush_calls()
        row = self.query(
            "SELECT COUNT(*), COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0), "
            "COALESCE(SUM(cost_usd), 0) FROM llm_calls WHERE created_at >= ? AND created_at < ?",
            (start, float("inf") if end is None else end),
        )[0]
        return {"calls": row[0], "cache_hits": 0, "prompt_tokens": row[1], "completion_tokens": row[2],
                "cost_usd": round(row[3], 8)}
