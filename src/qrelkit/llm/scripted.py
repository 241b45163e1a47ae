"""A backend that answers from a Python function: a test double for protocol tests.

Judge and pipeline tests need deterministic answers, injected failures and
call counts without a model; this is that, behind the same Backend protocol
so the Client's caching, retries and accounting are exercised for real.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from typing import Any, Callable, Optional, Sequence

from qrelkit.llm.base import CHAT, JSON_SCHEMA, SCORE, Completion, Message, ScoreResult


def _count_tokens(text: str) -> int:
    return len(text.split())


class ScriptedBackend:
    """Answers ``fn(messages, params)``; ``fn`` may return str, dict, Completion or raise.

    A dict is serialised as the JSON reply; an exception counts as a failed
    attempt (retryable unless it is a ``CallFailed(retryable=False)``).
    ``score_fn(prefix, continuation)`` returns a float, a list of per-token
    log-probabilities, or a ScoreResult. Both may be coroutines.
    Token counts are whitespace words, enough for accounting tests.
    """

    def __init__(
        self,
        fn: Callable[[list[Message], dict], Any],
        capabilities: frozenset[str] = frozenset({CHAT, JSON_SCHEMA}),
        model_id: str = "scripted",
        score_fn: Optional[Callable[[str, str], Any]] = None,
    ):
        self.fn = fn
        self.score_fn = score_fn
        caps = frozenset(capabilities)
        if score_fn is not None:
            caps = caps | {SCORE}
        self.capabilities = caps
        self.model_id = model_id
        self.calls = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.requests: list[tuple[list[Message], dict]] = []

    async def _run(self, fn: Callable, *args: Any) -> Any:
        self.calls += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            out = fn(*args)
            if inspect.isawaitable(out):
                out = await out
            else:
                await asyncio.sleep(0)  # let concurrent calls interleave as real I/O would
            return out
        finally:
            self.in_flight -= 1

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        schema: Optional[dict] = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
        top_logprobs: int = 0,
        stop: Optional[Sequence[str]] = None,
    ) -> Completion:
        msgs = list(messages)
        params = {
            "schema": schema,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "top_logprobs": top_logprobs,
            "stop": list(stop) if stop else None,
        }
        self.requests.append((msgs, params))
        out = await self._run(self.fn, msgs, params)
        prompt_tokens = sum(_count_tokens(m.content) for m in msgs)
        if isinstance(out, Completion):
            return out
        if isinstance(out, (dict, list)):
            text = json.dumps(out)
        elif isinstance(out, str):
            text = out
        else:
            raise TypeError(f"scripted fn returned {type(out).__name__}; expected str, dict or Completion")
        return Completion(
            text=text, prompt_tokens=prompt_tokens, completion_tokens=_count_tokens(text), model=self.model_id
        )

    async def score(self, prefix: str, continuation: str) -> ScoreResult:
        if self.score_fn is None:
            raise NotImplementedError("scripted backend has no score_fn")
        out = await self._run(self.score_fn, prefix, continuation)
        if isinstance(out, ScoreResult):
            return out
        if isinstance(out, (list, tuple)):
            lps = tuple(float(x) for x in out)
            return ScoreResult(
                logprob=sum(lps),
                tokens=len(lps),
                token_logprobs=lps,
                prompt_tokens=_count_tokens(prefix) + len(lps),
                model=self.model_id,
            )
        n = _count_tokens(continuation)
        return ScoreResult(
            logprob=float(out), tokens=n, prompt_tokens=_count_tokens(prefix) + n, model=self.model_id
        )

    async def aclose(self) -> None:
        return None
