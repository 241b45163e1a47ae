"""The Ray engine: model calls answered by Ray actors, each holding one loaded model or client.

:class:`RayBackend` is the driver's side. It is a model backend like any other
(:class:`qrelkit.llm.Backend`), so the driver's :class:`qrelkit.llm.Client`
keeps doing what it does for every engine — answering cache hits itself,
retrying, accounting, writing the cache — and the runner keeps selecting,
resuming, budgeting and writing verdicts as they arrive. What it adds:

- batches: calls waiting in the driver are shipped to a free actor up to
  ``batch`` at a time (one Ray task per batch, not per call: a Ray task costs
  about a millisecond, a scripted answer microseconds);
- one dispatcher per actor, so a slow actor never holds back the others;
- failure: when an actor dies (killed, out of memory, its node lost) the calls
  of its batch go back to the front of the queue, where the next free actor
  takes them, and a fresh actor replaces the dead one (at most
  ``REPLACEMENTS_PER_ACTOR`` times per actor, so a model that cannot load fails
  the calls as errors instead of looping). A call's outcome reaches the Client
  exactly once, so a retried batch is neither counted nor cached twice.

A failure *inside* a call (a server's 500, a bad reply) is not the engine's
business: the actor returns it and the driver's Client retries it as it would
locally. Killing the driver loses only the calls in flight; a re-run resumes
from the workspace like any other.
"""
from __future__ import annotations

import asyncio
import collections
import logging
import math
import os
import socket
from typing import Any, Callable, Optional

from qrelkit.errors import BackendError, UsageError
from qrelkit.llm.base import CallFailed

INSTALL_HINT = "--engine ray needs Ray, an optional extra: pip install 'qrelkit[ray]'"
# Ray's smallest object store; batches of prompts and answers are small, and the
# machine is shared (Ray's default takes 30% of memory).
OBJECT_STORE_BYTES = 80 * 1024 * 1024
REPLACEMENTS_PER_ACTOR = 3
# Loading the embedded model takes seconds, a large GGUF or a vLLM engine minutes; an actor that
# cannot be placed at all (too few CPUs/GPUs free) would otherwise wait forever.
START_TIMEOUT = float(os.environ.get("QRELKIT_RAY_START_TIMEOUT", "600"))
log = logging.getLogger(__name__)


def require_ray() -> Any:
    """The ``ray`` module, or a usage error that says how to install it."""
    try:
        import ray
    except ImportError:
        raise UsageError(INSTALL_HINT) from None
    return ray


class ModelActor:
    """One loaded model (or server client) in a Ray worker; answers batches of calls.

    Outcomes travel back as plain tuples, not exceptions, so that every failure
    kind (and its retry hint) survives pickling:
    ``("ok", result)`` | ``("failed", message, retryable, retry_after)``."""

    def __init__(self, factory: Callable[[], Any]):
        self.backend = factory()
        load = getattr(self.backend, "load", None)
        if load is not None:
            load()  # an engine that loads lazily (vLLM) loads now, so failing to is a clear start error
        self.name = f"{socket.gethostname()}:{os.getpid()}"

    def describe(self) -> dict:
        return {
            "name": self.name,
            "model_id": self.backend.model_id,
            "capabilities": frozenset(self.backend.capabilities),
            "cache_extra": getattr(self.backend, "cache_extra", None),
        }

    async def run(self, calls: list) -> list:
        return list(await asyncio.gather(*(self._one(*c) for c in calls)))

    async def _one(self, kind: str, args: tuple, kwargs: dict) -> tuple:
        try:
            return ("ok", await getattr(self.backend, kind)(*args, **kwargs))
        except CallFailed as e:
            return ("failed", str(e), e.retryable, e.retry_after)
        except NotImplementedError as e:
            return ("failed", f"unsupported: {e}", False, None)
        except Exception as e:  # noqa: BLE001 - any backend failure is one failed attempt, as locally
            return ("failed", f"{type(e).__name__}: {e}", True, None)


def _connect(ray: Any, address: str, cpus_needed: float, gpus_needed: float) -> bool:
    """Join or start Ray; True when this call started it (and so must stop it)."""
    if ray.is_initialized():
        return False
    if address == "local":
        ray.init(
            num_cpus=max(1, math.ceil(cpus_needed)), num_gpus=math.ceil(gpus_needed),
            include_dashboard=False, object_store_memory=OBJECT_STORE_BYTES,
            log_to_driver=False, logging_level=logging.WARNING,
        )
    else:
        try:
            ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
        except ConnectionError as e:
            raise BackendError(f"cannot reach the Ray cluster at {address}: {e}") from None
    return True


class RayBackend:
    """The driver's side of a pool of :class:`ModelActor` (see the module docstring)."""

    def __init__(self, ray: Any, factory: Callable[[], Any], engine: Any, started: bool):
        self.ray, self.factory, self.engine, self.started = ray, factory, engine, started
        self._actor_class = ray.remote(num_cpus=engine.cpus, num_gpus=engine.gpus)(ModelActor)
        self.actors: list[Any] = []
        self.names: list[str] = []
        self.replacements = 0
        self.failed_batches = 0
        self.lost_slots = 0
        self.batches = 0
        self.calls_by_actor: collections.Counter = collections.Counter()
        self._queue: collections.deque = collections.deque()
        self._wake: Optional[asyncio.Event] = None
        self._tasks: list[asyncio.Task] = []
        self._loop: Any = None

    @classmethod
    def start(cls, factory: Callable[[], Any], engine: Any) -> "RayBackend":
        """Connect to (or start) Ray and load the model in ``engine.actors`` actors."""
        ray = require_ray()
        started = _connect(ray, engine.address, engine.actors * engine.cpus, engine.actors * engine.gpus)
        self = cls(ray, factory, engine, started)
        try:
            for _ in range(engine.actors):
                self.actors.append(self._actor_class.remote(factory))
            infos = ray.get([a.describe.remote() for a in self.actors], timeout=START_TIMEOUT)
        except ray.exceptions.GetTimeoutError:
            self.shutdown()
            raise BackendError(
                f"Ray could not start {engine.actors} actors of {engine.cpus:g} CPUs and {engine.gpus:g} GPUs "
                f"within {START_TIMEOUT:g}s; the cluster has {ray.available_resources()} free"
            ) from None
        except Exception as e:
            self.shutdown()
            raise BackendError(f"a Ray actor could not load the model: {_cause(e)}") from None
        self.names = [i["name"] for i in infos]
        self.model_id = infos[0]["model_id"]
        self.capabilities = infos[0]["capabilities"]
        if infos[0]["cache_extra"]:
            self.cache_extra = infos[0]["cache_extra"]
        return self

    # ---- the Backend protocol -------------------------------------------------
    async def complete(self, messages: Any, **kwargs: Any) -> Any:
        return await self._submit("complete", (list(messages),), kwargs)

    async def score(self, prefix: str, continuation: str) -> Any:
        return await self._submit("score", (prefix, continuation), {})

    async def aclose(self) -> None:
        for t in self._tasks:
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        self.shutdown()

    def shutdown(self) -> None:
        """Stop the actors, and Ray itself when this backend started it."""
        for a in self.actors:
            try:
                self.ray.kill(a)
            except Exception:  # noqa: BLE001 - already gone
                pass
        self.actors = []
        if self.started and self.ray.is_initialized():
            self.ray.shutdown()

    # ---- dispatching ----------------------------------------------------------
    async def _submit(self, kind: str, args: tuple, kwargs: dict) -> Any:
        self._bind_loop()
        fut = asyncio.get_running_loop().create_future()
        self._queue.append(((kind, args, kwargs), fut))
        self._wake.set()
        outcome = await fut
        if outcome[0] == "ok":
            return outcome[1]
        _, message, retryable, retry_after = outcome
        raise CallFailed(message, retryable=retryable, retry_after=retry_after)

    def _bind_loop(self) -> None:
        # asyncio objects belong to one loop; a command may run several loops in turn.
        loop = asyncio.get_running_loop()
        if loop is self._loop:
            return
        self._loop, self._wake = loop, asyncio.Event()
        self._queue.clear()
        self._tasks = [loop.create_task(self._serve(i)) for i in range(len(self.actors))]

    async def _take(self) -> list:
        """The next batch: up to ``engine.batch`` waiting calls whose caller still waits."""
        while True:
            while not self._queue:
                self._wake.clear()
                await self._wake.wait()
            batch = []
            while self._queue and len(batch) < self.engine.batch:
                item = self._queue.popleft()
                if not item[1].done():  # a caller that timed out is not answered
                    batch.append(item)
            if batch:
                return batch

    async def _serve(self, slot: int) -> None:
        """Ship batches to actor ``slot`` until cancelled; on its death hand the batch back."""
        lost = 0
        while True:
            batch = await self._take()
            try:
                outcomes = await self.actors[slot].run.remote([call for call, _ in batch])
            except (self.ray.exceptions.RayActorError, self.ray.exceptions.ActorUnavailableError) as e:
                self.failed_batches += 1
                lost += 1
                self._queue.extendleft(reversed(batch))  # first in line for the next free actor
                self._wake.set()
                log.warning("Ray actor %s failed (%s); its %d calls are retried", self.names[slot],
                            type(e).__name__, len(batch))
                if lost > REPLACEMENTS_PER_ACTOR or not await self._replace(slot):
                    self.lost_slots += 1
                    if self.lost_slots < len(self.actors):
                        return  # the other actors take its calls
                    await self._fail_forever(f"Ray actor {self.names[slot]} keeps failing: {_cause(e)}")
                continue
            self.batches += 1
            self.calls_by_actor[self.names[slot]] += len(batch)
            for (_, fut), out in zip(batch, outcomes):
                if not fut.done():
                    fut.set_result(out)

    async def _replace(self, slot: int) -> bool:
        """A fresh actor in ``slot``; False when it cannot even start."""
        actor = self._actor_class.remote(self.factory)
        try:
            info = await actor.describe.remote()
        except Exception as e:  # noqa: BLE001
            log.warning("a replacement Ray actor could not start: %s", _cause(e))
            return False
        self.actors[slot], self.names[slot] = actor, info["name"]
        self.replacements += 1
        return True

    async def _fail_forever(self, message: str) -> None:
        """Every actor is lost: answer each call as a failure (the driver records error verdicts,
        which a later run retries) instead of waiting forever."""
        while True:
            batch = await self._take()
            for _, fut in batch:
                if not fut.done():
                    fut.set_result(("failed", message, False, None))


def _cause(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[-1] if text else type(e).__name__
