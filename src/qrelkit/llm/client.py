"""The Client: caching, retries, limits and accounting, done once for every judge.

A judge awaits ``client.complete(...)`` or ``client.score(...)`` and always
gets a result back: a call that still fails after the allowed attempts comes
back with ``error`` set, never as an exception and never as a guessed answer,
so the judge can turn it into an explicit error-escalation.

Why these choices:
- Parse/validation failures are retried like transport failures because a
  reply that does not fit the schema is as useless as no reply. At
  temperature 0 the same prompt would repeat the same bad answer, so a retry
  after a parse failure appends the bad reply and a short corrective user
  message (``CORRECTIVE``). The cache key still uses the original messages.
- The concurrency slot is taken per attempt and released while backing off,
  so one slow retry does not idle a slot other calls could use.
- Identical requests in flight at the same time are sent once; the others
  wait for that answer and count as cache hits (nothing is paid twice).
- ``calls`` counts every request answered, cache hits included; tokens and
  dollars count only work actually done (all attempts, including ones whose
  reply failed to parse, because those were billed too).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Optional, Sequence

from qrelkit.errors import CapabilityError, StorageError
from qrelkit.llm.availability import UNANSWERED_STATUS, Availability, mark_unanswered
from qrelkit.llm.base import (
    JSON_SCHEMA,
    SCORE,
    TOP_LOGPROBS,
    Backend,
    CallFailed,
    Completion,
    Message,
    Prices,
    ScoreResult,
    TokenLogprob,
    Usage,
)
from qrelkit.llm.cache import Answer, MemoryCache, StoreCache, signed_request
from qrelkit.llm.jsonschema import parse_reply
from qrelkit.llm.limits import TokenBucket
from qrelkit.llm.prices import PriceSpec, resolve_prices

if TYPE_CHECKING:
    from qrelkit.store import Store

log = logging.getLogger(__name__)
RETRY_AFTER_CAP = 300.0
CORRECTIVE = "Your previous reply was not valid JSON for the schema; answer with only the JSON object."


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date)."""
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    import email.utils  # here: an HTTP date is rare, and email is ~3 ms of start-up

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def _completion_to_dict(c: Completion) -> dict:
    return {
        "text": c.text,
        "parsed": c.parsed,
        "logprobs": [[t.token, t.logprob, [list(x) for x in t.top]] for t in c.logprobs],
        "prompt_tokens": c.prompt_tokens,
        "completion_tokens": c.completion_tokens,
        "latency": c.latency,
    }


def _completion_from_dict(d: dict, model: str) -> Completion:
    return Completion(
        text=d["text"],
        parsed=d.get("parsed"),
        logprobs=tuple(
            TokenLogprob(tok, float(lp), tuple((str(a), float(b)) for a, b in top))
            for tok, lp, top in d.get("logprobs") or ()
        ),
        prompt_tokens=int(d.get("prompt_tokens", 0)),
        completion_tokens=int(d.get("completion_tokens", 0)),
        latency=0.0,
        cached=True,
        cost_usd=0.0,
        model=model,
        attempts=0,
    )


def _score_to_dict(s: ScoreResult) -> dict:
    return {
        "logprob": s.logprob,
        "tokens": s.tokens,
        "token_logprobs": list(s.token_logprobs),
        "prompt_tokens": s.prompt_tokens,
        "latency": s.latency,
    }


def _score_from_dict(d: dict, model: str) -> ScoreResult:
    return ScoreResult(
        logprob=float(d["logprob"]),
        tokens=int(d.get("tokens", 0)),
        token_logprobs=tuple(float(x) for x in d.get("token_logprobs") or ()),
        prompt_tokens=int(d.get("prompt_tokens", 0)),
        latency=0.0,
        cached=True,
        cost_usd=0.0,
        model=model,
        attempts=0,
    )


async def _after_waiters() -> None:
    """Let a worker that was waiting for the call slot just freed send its request before this
    answer is handled (parsed, cached, turned into a verdict, stored, told to progress, and the
    next case's prompt rendered: ~0.4 ms of CPU per case in a judging run).

    The answers of a round arrive together; handled one after another, each slot they free stayed
    idle until every answer of the round before it was handled, and the server waited for that
    (benchmarks/llm_throughput.py --judge). One turn of the event loop: the waiter takes the slot
    and writes its request in its own task (the attempt's timeout is ``asyncio.timeout``, not
    ``wait_for``, whose task of its own needed a second turn and a task per call); this worker
    resumes behind it."""
    await asyncio.sleep(0)


class _Tally:
    """The client's running totals, counted in place.

    Why not ``Usage`` (frozen) and ``+=``: three to five additions per call each made a new
    dataclass, about a tenth of the client's CPU per call at hundreds of calls a second;
    :attr:`Client.usage` makes the one ``Usage`` a reader asks for."""

    __slots__ = ("calls", "cache_hits", "prompt_tokens", "completion_tokens", "cost_usd", "errors", "latency",
                 "attempts")

    def __init__(self) -> None:
        self.calls = self.cache_hits = self.prompt_tokens = self.completion_tokens = 0
        self.errors = self.attempts = 0
        self.cost_usd = self.latency = 0.0

    def usage(self) -> Usage:
        return Usage(self.calls, self.cache_hits, self.prompt_tokens, self.completion_tokens, self.cost_usd,
                     self.errors, self.latency, self.attempts)


class SharedLimits:
    """Call slots and in-flight requests shared by the clients of one event loop (a comparison's
    methods, each with its own client so that each counts its own usage): together they keep
    at most one client's ``concurrency`` calls in flight, and a request one client is already
    making is answered to the others as a cache hit instead of being sent twice."""

    def __init__(self) -> None:
        self.slots: Optional[asyncio.Semaphore] = None  # made by the first client, at its concurrency
        self.inflight: dict[str, asyncio.Future] = {}


@dataclass(frozen=True)
class ClientSettings:
    """A client's limits, retries, prices and cache use (the keywords of :class:`Client`)."""

    concurrency: int = 8
    max_attempts: int = 4
    timeout: float = 60.0
    rpm: Optional[float] = None
    tpm: Optional[float] = None
    prices: PriceSpec = None
    read_cache: bool = True
    backoff_base: float = 0.5
    backoff_max: float = 30.0
    seed: Optional[int] = None
    fail_fast: bool = False
    shared: Optional[SharedLimits] = None


class Client:
    """One model, wrapped with everything judges should not do themselves."""

    def __init__(
        self,
        backend: Backend,
        store: Optional[Store] = None,
        settings: "Optional[ClientSettings]" = None,
        **given: Any,
    ):
        s = settings if settings is not None else ClientSettings(**given)
        concurrency, max_attempts, timeout = s.concurrency, s.max_attempts, s.timeout
        rpm, tpm, prices = s.rpm, s.tpm, s.prices
        read_cache, backoff_base, backoff_max = s.read_cache, s.backoff_base, s.backoff_max
        seed, fail_fast = s.seed, s.fail_fast
        if concurrency < 1:
            raise ValueError("concurrency must be >= 1")
        if max_attempts < 1:
            raise ValueError("max_attempts must be >= 1")
        self.backend = backend
        self.store = store
        self.cache = StoreCache(store) if store is not None else MemoryCache()
        # A backend that can only run one call at a time (the embedded model)
        # says so; waiting for it then happens here, outside the per-call timeout.
        limit = getattr(backend, "max_concurrency", None)
        self.concurrency = min(concurrency, limit) if limit else concurrency
        self._shared = s.shared
        if s.shared is not None and s.shared.slots is None:
            s.shared.slots = asyncio.Semaphore(self.concurrency)
        self._sem = s.shared.slots if s.shared is not None else asyncio.Semaphore(self.concurrency)
        self._loop: Any = None
        self.max_attempts = max_attempts
        self.timeout = timeout
        self.read_cache = read_cache
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self._rng = random.Random(seed)
        self._rpm_limit, self._tpm_limit = rpm, tpm
        self._rpm = TokenBucket(rpm) if rpm else None
        self._tpm = TokenBucket(tpm) if tpm else None
        self.prices: Prices = resolve_prices(backend.model_id, prices)
        self._inflight: dict[str, asyncio.Future] = s.shared.inflight if s.shared is not None else {}
        self._tally = _Tally()  # running totals of every call this client answered
        # A judging job's client checks the server before its first call and gives up on a dead
        # one (qrelkit.llm.availability); other users get failed results, as always.
        self.availability = Availability() if fail_fast else None

    # ---- introspection -------------------------------------------------------
    @property
    def model_id(self) -> str:
        return self.backend.model_id

    @property
    def capabilities(self) -> frozenset[str]:
        return frozenset(self.backend.capabilities)

    def require(self, *caps: str) -> None:
        """Fail early, naming the model and what it lacks, before any call is made."""
        served = self.backend.capabilities  # read once: every complete() and score() asks
        missing = [c for c in caps if c not in served]
        if missing:
            have = ", ".join(sorted(served)) or "nothing"
            raise CapabilityError(
                f"model {self.model_id} does not support {', '.join(missing)} (it supports: {have})"
            )

    @property
    def usage(self) -> Usage:
        return self._tally.usage()

    def usage_dict(self) -> dict:
        u = self.usage
        return {**u.as_dict(), "errors": u.errors, "attempts": u.attempts, "retries": u.retries}

    async def aclose(self) -> None:
        """Close the backend and write the answers the cache still holds (a workspace's cache
        holds them some milliseconds to write them together: a client that is done writes them now)."""
        try:
            self.cache.flush()
        except StorageError:
            pass  # kept by the store (write_failed); the command that owns the store raises it
        except Exception as e:  # noqa: BLE001 - as a failed put: paid again next run, said so
            log.warning("could not cache the last LLM answers (%s: %s); they will be paid again next run",
                        type(e).__name__, e)
        await self.backend.aclose()

    async def __aenter__(self) -> "Client":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # ---- helpers -------------------------------------------------------------
    def _bind_loop(self) -> None:
        # asyncio primitives belong to one event loop; a CLI may run several
        # loops in turn (asyncio.run per command) with one client.
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            if self._loop is not None and self._shared is None:  # shared limits live in one loop
                self._sem = asyncio.Semaphore(self.concurrency)
                self._rpm = TokenBucket(self._rpm_limit) if self._rpm_limit else None
                self._tpm = TokenBucket(self._tpm_limit) if self._tpm_limit else None
                self._inflight = {}
            self._loop = loop

    def _backoff(self, attempt: int, retry_after: Optional[float]) -> float:
        if retry_after is not None:
            return min(retry_after, RETRY_AFTER_CAP)  # the server knows best, within reason
        base = min(self.backoff_max, self.backoff_base * (2 ** (attempt - 1)))
        return base * (0.5 + self._rng.random())  # jitter: spread retries of a burst apart

    def _writable(self) -> None:
        """No new call once the workspace refused a write (a full disk, a read-only mount): its
        answer could not be kept, so it would be paid again; the run stops with that one line
        (:mod:`qrelkit.store.faults`). At most the calls already in flight are paid."""
        failed = self.store.write_failed if self.store is not None else None
        if failed is not None:
            raise failed

    def _cache_put(self, key: str, answer: Answer) -> None:
        # The answer is already paid for and in hand; a cache that cannot be
        # written (a locked workspace) must not lose it. A disk that refuses writes is kept
        # by the store (write_failed) and stops the next call (_writable) instead.
        try:
            self.cache.put(key, answer)
        except StorageError:
            pass  # the store holds it in write_failed; _writable raises it before the next call
        except Exception as e:  # noqa: BLE001
            log.warning(
                "could not cache an LLM answer (%s: %s); it will be paid again next run", type(e).__name__, e
            )

    def _cached(self, kind: str, request: dict) -> tuple[str, str, Optional[dict]]:
        """The cache key of a request (the backend's answer-changing settings join it), the
        text it signs (stored with the answer) and the stored answer, if reading the cache is on."""
        extra = getattr(self.backend, "cache_extra", None)
        if extra:
            request["backend"] = extra
        key, signed = signed_request(kind, self.model_id, request)
        hit = self.cache.get(key) if self.read_cache else None
        if hit is not None:
            self._hit()
        return key, signed, hit

    async def _attempts(self, estimate: int, call: Callable[[], Awaitable[Any]], take: Callable) -> Any:
        """The one retry loop of ``complete`` and ``score``.

        ``call()`` makes one backend request; ``take(result, seconds, attempt)``
        accounts a returned result and says ``(value, error, retryable, retry_after)``:
        a value ends the loop, an error is retried (backing off) while attempts
        and ``retryable`` allow. Returns the value, or ``(None, error, attempts,
        latency)`` after the last failed attempt (counted as a failed call)."""
        error: Optional[str] = None
        latency = 0.0
        attempt = 0
        self._writable()
        if self.availability is not None:
            await self.availability.before_call(self.backend)
        while attempt < self.max_attempts:
            attempt += 1
            retry_after: Optional[float] = None
            retryable, unanswered, refused = True, False, False
            await self._limits(estimate)
            self._tally.attempts += 1
            async with self._sem:
                self._writable()  # here: a worker may have waited for the slot while a write failed
                t0 = time.perf_counter()
                try:
                    async with asyncio.timeout(self.timeout):
                        res = await call()
                except TimeoutError:
                    res, error, unanswered = None, f"timeout after {self.timeout:g}s", True
                except CallFailed as e:
                    res, error, retryable, retry_after = None, str(e), e.retryable, e.retry_after
                    unanswered = e.unanswered or e.status in UNANSWERED_STATUS
                    refused = e.status is not None  # an HTTP error: the server's or its configuration's
                except NotImplementedError as e:
                    res, error, retryable = None, f"unsupported: {e}", False
                except Exception as e:  # noqa: BLE001 - any backend failure is a failed attempt
                    res, error = None, f"{type(e).__name__}: {e}"
                dt = time.perf_counter() - t0
                waiting = res is not None and self._sem.locked()  # every slot taken: someone waits for ours
            latency += dt
            if res is None:
                self._account(0, 0, 0.0, dt)
            else:
                if self.availability is not None:
                    self.availability.answered()  # the server answered, whatever the answer is worth
                if waiting:
                    try:
                        await _after_waiters()
                    except asyncio.CancelledError:
                        take(res, dt, attempt, latency)  # stopped: the answer is paid for, so cached first
                        raise
                value, error, retryable, retry_after = take(res, dt, attempt, latency)
                if value is not None:
                    self._tally.calls += 1
                    return value
            if not retryable or attempt >= self.max_attempts:
                break
            delay = self._backoff(attempt, retry_after)
            if delay > 0:
                await asyncio.sleep(delay)
        self._tally.calls += 1
        self._tally.errors += 1
        if unanswered or refused:  # not the case's fault: the next run retries it, people never see it
            mark_unanswered()
            if self.availability is not None:  # raises after too many in a row
                self.availability.unanswered(self.model_id, error or "no answer", refused=not unanswered)
        return None, error or "failed", attempt, latency

    def _account(self, ptok: int, ctok: int, cost: float, latency: float) -> None:
        t = self._tally
        t.prompt_tokens += ptok
        t.completion_tokens += ctok
        t.cost_usd += cost
        t.latency += latency

    def _hit(self) -> None:
        """One call answered without the backend (the cache, or an identical request in flight)."""
        self._tally.calls += 1
        self._tally.cache_hits += 1

    async def _limits(self, estimate: int) -> None:
        if self._rpm is not None:
            await self._rpm.acquire(1)
        if self._tpm is not None:
            await self._tpm.acquire(estimate)

    def _settle(self, estimate: int, used: int) -> None:
        if self._tpm is not None:
            self._tpm.adjust(used - estimate)

    async def _single_flight(self, key: str, make: Any, replay: Any) -> Any:
        leader = self._inflight.get(key)
        if leader is not None:
            await asyncio.wait([leader])  # never raises; the leader's outcome is inspected below
            if not leader.cancelled() and leader.exception() is None and leader.result().ok:
                self._hit()
                return replay(leader.result())
            # The leader failed or was cancelled; failures are not shared, try on our own.
        fut = asyncio.get_running_loop().create_future()
        self._inflight[key] = fut
        try:
            res = await make()
        except BaseException:
            fut.cancel()
            raise
        else:
            fut.set_result(res)
            return res
        finally:
            if self._inflight.get(key) is fut:
                del self._inflight[key]

    # ---- complete ------------------------------------------------------------
    async def complete(
        self,
        messages: Sequence[Message],
        *,
        schema: Optional[dict] = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
        top_logprobs: int = 0,
        stop: Optional[Sequence[str]] = None,
        version: str = "",
    ) -> Completion:
        if schema is not None:
            self.require(JSON_SCHEMA)
        if top_logprobs:
            self.require(TOP_LOGPROBS)
        self._bind_loop()
        msgs = [m if isinstance(m, Message) else Message(**m) for m in messages]
        request = {
            "messages": [[m.role, m.content] for m in msgs],
            "schema": schema,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "top_logprobs": top_logprobs,
            "stop": list(stop) if stop else None,
            "version": version,
        }
        key, signed, hit = self._cached("complete", request)
        if hit is not None:
            return _completion_from_dict(hit, self.model_id)

        def replay(c: Completion) -> Completion:
            return replace(c, cached=True, cost_usd=0.0, latency=0.0, attempts=0)

        async def make() -> Completion:
            return await self._complete_uncached(
                key, signed, msgs, schema, max_tokens, temperature, top_logprobs, stop
            )

        return await self._single_flight(key, make, replay)

    async def _complete_uncached(
        self,
        key: str,
        request: str,
        msgs: list[Message],
        schema: Optional[dict],
        max_tokens: int,
        temperature: float,
        top_logprobs: int,
        stop: Optional[Sequence[str]],
    ) -> Completion:
        spent = {"ptok": 0, "ctok": 0, "cost": 0.0}  # over all attempts: a bad reply was billed too
        send = msgs

        def call() -> Awaitable[Completion]:
            return self.backend.complete(
                send, schema=schema, max_tokens=max_tokens, temperature=temperature,
                top_logprobs=top_logprobs, stop=stop,
            )

        def take(res: Completion, dt: float, attempt: int, latency: float) -> tuple:
            nonlocal send
            self._settle(estimate, res.prompt_tokens + res.completion_tokens)
            c = self.prices.cost(res.prompt_tokens, res.completion_tokens)
            spent["ptok"] += res.prompt_tokens
            spent["ctok"] += res.completion_tokens
            spent["cost"] += c
            self._account(res.prompt_tokens, res.completion_tokens, c, dt)
            if res.error:
                return None, res.error, True, None
            parsed, error = parse_reply(res.text, schema) if schema is not None else (None, None)
            if top_logprobs and not res.logprobs and res.completion_tokens and error is None:
                # A server that silently ignores the request would make
                # confidence judges read nothing as certainty.
                return None, "the server returned no log-probabilities", False, None
            if error is not None:
                # A bad reply: retry with the reply shown back and a correction.
                send = msgs + [Message("assistant", res.text[:4000]), Message("user", CORRECTIVE)]
                return None, error, True, 0.0
            out = replace(
                res, parsed=parsed, latency=latency, cached=False, cost_usd=spent["cost"], model=self.model_id,
                attempts=attempt, prompt_tokens=spent["ptok"], completion_tokens=spent["ctok"],
            )
            stored = {**_completion_to_dict(out), "prompt_tokens": res.prompt_tokens,
                      "completion_tokens": res.completion_tokens}  # this attempt's, as the answer replays
            self._cache_put(key, Answer(self.model_id, request, stored, res.prompt_tokens, res.completion_tokens,
                                        dt, c))
            return out, None, True, None

        estimate = sum(len(m.content) for m in msgs) // 4 + max_tokens
        out = await self._attempts(estimate, call, take)
        if isinstance(out, Completion):
            return out
        _, error, attempts, latency = out
        return Completion(
            text="", parsed=None, prompt_tokens=spent["ptok"], completion_tokens=spent["ctok"], latency=latency,
            cached=False, cost_usd=spent["cost"], model=self.model_id, attempts=attempts, error=error,
        )

    # ---- score ---------------------------------------------------------------
    async def score(self, prefix: str, continuation: str, version: str = "") -> ScoreResult:
        self.require(SCORE)
        self._bind_loop()
        request = {"prefix": prefix, "continuation": continuation, "version": version}
        key, signed, hit = self._cached("score", request)
        if hit is not None:
            return _score_from_dict(hit, self.model_id)

        def replay(s: ScoreResult) -> ScoreResult:
            return replace(s, cached=True, cost_usd=0.0, latency=0.0, attempts=0)

        async def make() -> ScoreResult:
            return await self._score_uncached(key, signed, prefix, continuation)

        return await self._single_flight(key, make, replay)

    async def _score_uncached(self, key: str, request: str, prefix: str, continuation: str) -> ScoreResult:
        spent = {"ptok": 0, "cost": 0.0}

        def call() -> Awaitable[ScoreResult]:
            return self.backend.score(prefix, continuation)

        def take(res: ScoreResult, dt: float, attempt: int, latency: float) -> tuple:
            if res.error:
                self._account(0, 0, 0.0, dt)
                return None, res.error, True, None
            self._settle(estimate, res.prompt_tokens)
            c = self.prices.cost(res.prompt_tokens, 0)
            spent["ptok"] += res.prompt_tokens
            spent["cost"] += c
            self._account(res.prompt_tokens, 0, c, dt)
            out = replace(
                res, latency=latency, cached=False, cost_usd=spent["cost"], model=self.model_id,
                attempts=attempt, prompt_tokens=spent["ptok"],
            )
            stored = _score_to_dict(replace(out, prompt_tokens=res.prompt_tokens))
            self._cache_put(key, Answer(self.model_id, request, stored, res.prompt_tokens, 0, dt, c))
            return out, None, True, None

        estimate = (len(prefix) + len(continuation)) // 4 + 1
        out = await self._attempts(estimate, call, take)
        if isinstance(out, ScoreResult):
            return out
        _, error, attempts, latency = out
        return ScoreResult(
            logprob=float("nan"), latency=latency, cost_usd=spent["cost"], model=self.model_id,
            attempts=attempts, error=error, prompt_tokens=spent["ptok"],
        )
