"""The LLM call cache: one row per distinct request, keyed by its signature.

A call whose key is here is never paid for twice: a re-run, a resumed job or
another method asking the same prompt of the same model reads the response.
"""
from __future__ import annotations

import json
from typing import Optional

from qrelkit.store.core import now


class LLMCallStore:
    """The cache of LLM requests and responses (mixin of :class:`qrelkit.store.Store`)."""

    def cache_get(self, key: str) -> Optional[dict]:
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
        self.execute(
            "INSERT INTO llm_calls(key, model, request, response, prompt_tokens, completion_tokens, latency, "
            "cost_usd, created_at) VALUES(?,?,?,?,?,?,?,?,?) ON CONFLICT(key) DO UPDATE SET "
            "response=excluded.response, prompt_tokens=excluded.prompt_tokens, "
            "completion_tokens=excluded.completion_tokens, latency=excluded.latency, cost_usd=excluded.cost_usd",
            (
                key, model, request if isinstance(request, str) else json.dumps(request, sort_keys=True),
                json.dumps(response, sort_keys=True),
                prompt_tokens, completion_tokens, latency, cost_usd, now(),
            ),
        )

    def calls_between(self, start: float, end: Optional[float] = None) -> dict:
        """What the calls first cached in ``[start, end)`` cost: the spend of a
        command that was killed before it could write its own totals."""
        row = self.query(
            "SELECT COUNT(*), COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0), "
            "COALESCE(SUM(cost_usd), 0) FROM llm_calls WHERE created_at >= ? AND created_at < ?",
            (start, float("inf") if end is None else end),
        )[0]
        return {"calls": row[0], "cache_hits": 0, "prompt_tokens": row[1], "completion_tokens": row[2],
                "cost_usd": round(row[3], 8)}
