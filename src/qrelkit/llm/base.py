"""The one interface every judge uses to talk to a model.

Backends only know how to make one call. Everything done once for all
judges — caching, retries, concurrency limits, rate limits, accounting — is
in :class:`qrelkit.llm.client.Client`, which wraps a backend. A judge never
sees an exception from a failed call: it gets a result with ``error`` set and
turns it into an error-escalation, so that no label is ever invented.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Protocol, Sequence

from qrelkit.types import USAGE_KEYS, Usage  # noqa: F401  (the LLM layer's accounting value)

# Capabilities a backend may declare; judges check them up front.
CHAT = "chat"
JSON_SCHEMA = "json_schema"
TOP_LOGPROBS = "top_logprobs"
SCORE = "score"


@dataclass(frozen=True)
class Message:
    role: str  # system | user | assistant
    content: str


@dataclass(frozen=True)
class TokenLogprob:
    """One generated token with its log-probability and the top alternatives."""

    token: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class Completion:
    """What a call returned (or why it failed, in ``error``, after retries)."""

    text: str
    parsed: Any = None  # the JSON object when a schema was given and the reply parsed
    logprobs: tuple[TokenLogprob, ...] = ()
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency: float = 0.0
    cached: bool = False
    cost_usd: float = 0.0
    model: str = ""
    attempts: int = 1
    error: Optional[str] = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class ScoreResult:
    """Summed log-probability of a continuation given a prefix."""

    logprob: float
    tokens: int = 0
    token_logprobs: tuple[float, ...] = ()
    prompt_tokens: int = 0
    latency: float = 0.0
    cached: bool = False
    cost_usd: float = 0.0
    model: str = ""
    attempts: int = 1
    error: Optional[str] = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def completion_tokens(self) -> int:
        """Scoring generates nothing (so a score bills prompt tokens only)."""
        return 0


class Backend(Protocol):
    """One model behind one transport. Raises on failure; the Client retries.

    Optional attributes the Client looks for: ``max_concurrency`` (a backend
    that can run only so many calls at once, e.g. the embedded model: 1) and
    ``cache_extra`` (request settings outside the messages that change
    answers, e.g. extra server body fields; they join the cache key). Engines
    look for ``load()``: load the model now, not on the first call (Ray actors
    call it when they start, so a model that cannot load fails the start).
    A judging client looks for ``async check()``: raise
    :class:`qrelkit.errors.ModelUnavailable` when the server cannot be used at
    all; it runs once, before the first call (:mod:`qrelkit.llm.availability`).
    """

    model_id: str  # canonical, enters the cache key and provenance
    capabilities: frozenset[str]

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        schema: Optional[dict] = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
        top_logprobs: int = 0,
        stop: Optional[Sequence[str]] = None,
    ) -> Completion: ...

    async def score(self, prefix: str, continuation: str) -> ScoreResult: ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True)
class Prices:
    """Dollars per million input / output tokens; zero for local models."""

    input_per_mtok: float = 0.0
    output_per_mtok: float = 0.0
    extra: tuple[tuple[str, float], ...] = field(default=())

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input_per_mtok + completion_tokens * self.output_per_mtok) / 1e6


class CallFailed(Exception):
    """A backend's way to tell the Client how to treat one failed attempt.

    Backends raise this (or any other exception, which the Client treats as
    retryable) instead of deciding about retries themselves, so that retry
    policy lives in one place. ``retry_after`` is the server's own hint in
    seconds (from a ``Retry-After`` header) and overrides the backoff.
    ``unanswered``: the server gave no answer at all (refused connection, timeout),
    which a judging job treats as a dead server, not as a case for people
    (:mod:`qrelkit.llm.availability`).
    """

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = True,
        retry_after: Optional[float] = None,
        status: Optional[int] = None,
        unanswered: bool = False,
    ):
        super().__init__(message)
        self.unanswered = unanswered
        self.retryable = retryable
        self.retry_after = retry_after
        self.status = status
