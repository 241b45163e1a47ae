"""The LLM call cache: same request, same answer, paid once.

The key is a sha256 over everything that can change the answer — canonical
model id, full messages (or prefix/continuation), schema, sampling
parameters and the prompt-template version — so editing a template or
switching models never replays a stale answer. Endpoint URLs are left out on
purpose: several servers of one model share one cache.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from qrelkit.jsontext import fast_sorted

if TYPE_CHECKING:
    from qrelkit.store import Store


def cache_key(kind: str, model: str, payload: dict) -> str:
    return signed_request(kind, model, payload)[0]


def signed_request(kind: str, model: str, payload: dict) -> tuple[str, str]:
    """The key and the JSON text it is the sha256 of, which the cache stores as the request:
    one serialisation of the prompt per call instead of two.

    The text is ``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)``, the
    definition every key ever stored was made with. msgspec writes the same bytes ~15x faster
    (a judge's request: ~2 us against ~28 us, 4% of a judging run's CPU) for everything but
    floats outside [1e-4, 1e16) (``1e-05``: msgspec ``0.00001``), NaN/infinity and a few types it
    takes that json refuses; :func:`qrelkit.jsontext.fast_sorted` sends those to json, so no key changes
    (tests/llm_layer/test_cache_key.py compares the two on generated requests)."""
    obj = {"kind": kind, "model": model, **payload}
    raw = fast_sorted(obj)
    if raw is not None:
        return hashlib.sha256(raw).hexdigest(), raw.decode("utf-8")
    blob = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest(), blob


@dataclass(frozen=True)
class Answer:
    """One paid answer as the cache keeps it: the request (for audit; as a dict, or the signed
    JSON text of :func:`signed_request`), the response (to replay) and what the one successful
    attempt cost."""

    model: str
    request: dict | str
    response: dict
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency: float = 0.0
    cost_usd: float = 0.0


class MemoryCache:
    """Per-client cache when there is no workspace (library use, tests)."""

    def __init__(self) -> None:
        self._d: dict[str, dict] = {}

    def get(self, key: str) -> Optional[dict]:
        return self._d.get(key)

    def put(self, key: str, answer: Answer) -> None:
        self._d[key] = answer.response

    def flush(self) -> None:
        """Nothing is held: every answer is in the dict."""

    def __len__(self) -> int:
        return len(self._d)


class StoreCache:
    """The workspace database's ``llm_calls`` table, shared by every command and process."""

    def __init__(self, store: Store):
        self.store = store

    def get(self, key: str) -> Optional[dict]:
        return self.store.cache_get(key)

    def put(self, key: str, answer: Answer) -> None:
        a = answer
        self.store.cache_put(
            key, a.model, a.request, a.response, a.prompt_tokens, a.completion_tokens, a.latency, a.cost_usd
        )

    def flush(self) -> None:
        """Write the answers held for the next group commit now (:class:`qrelkit.store.llm_calls.LLMCallStore`)."""
        self.store.flush_calls()
