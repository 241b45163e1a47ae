"""Copies of the embedded model side by side, each with its own threads and one call at a time.

Why it exists: llama.cpp splits every operation of a decode between its threads and makes them
meet at a barrier after each one (hundreds per decode of SmolLM2); with
``OMP_WAIT_POLICY=PASSIVE`` (see :func:`qrelkit.llm.local.import_llama_cpp`) a thread that
arrives first sleeps until its partner is done. Two copies with one thread each decode two
different calls at the same time with no barrier between them, which should use two free cores
better. Measured, it did not (``benchmarks/embedded_speed.py`` and docs/embedded-judge.md,
7 December 2026, load average 12-19 on 2 cores): one copy with two threads scored as many or
more pairs per second (0.26-0.45 against 0.13-0.33 in alternating 10-pair runs) and per
CPU-second, and the judge's whole cost was the same (1.0 CPU-second per pair; 73% of it in
llama.cpp's ``ggml_vec_dot_q4_1_q8_1``, which no layout changes). So the default stays one copy
with two threads; the layout is a setting for machines where more copies measure faster.

The values do not depend on the layout: each output of a matrix product is computed whole by one
thread with the same kernel whatever the number of threads, so a copy with one thread gives the
numbers one copy with two threads gives (tests/llm_layer/test_local_pool.py compares them on
real pairs, bit for bit). The weights are memory-mapped, so the copies share them; each has its
own KV cache (about 50 MB at a 2,048-token context).

``QRELKIT_LOCAL_WORKERS`` (copies, default 1) and ``QRELKIT_LOCAL_THREADS`` (threads per copy,
default 2) set the layout. A copy is loaded when a call finds every loaded copy busy, so a
process that makes one call at a time loads one.
"""
from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Generic, Iterator, TypeVar

from qrelkit.errors import BackendError

WORKERS_ENV = "QRELKIT_LOCAL_WORKERS"
THREADS_ENV = "QRELKIT_LOCAL_THREADS"
DEFAULT_WORKERS = 1
DEFAULT_THREADS = 2  # two cores is the target machine

T = TypeVar("T")


@dataclass(frozen=True)
class Layout:
    """How many copies of the model run side by side, and with how many threads each."""

    workers: int = DEFAULT_WORKERS
    threads: int = DEFAULT_THREADS

    def __str__(self) -> str:
        return f"{self.workers} x {self.threads} thread(s)"


def _positive(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise BackendError(f"{name}={raw!r}: give a whole number of at least 1")
    return value


def layout() -> Layout:
    """The layout the environment asks for (read when a backend is made, so it can change between runs)."""
    return Layout(_positive(WORKERS_ENV, DEFAULT_WORKERS), _positive(THREADS_ENV, DEFAULT_THREADS))


class Instances(Generic[T]):
    """Up to ``size`` copies made by ``make``, each lent to one caller at a time.

    A caller takes an idle copy, or loads a new one while fewer than ``size`` exist, or waits.
    The copy used last is lent first (its KV cache holds the latest prompt, whose prefix the
    next call may share)."""

    def __init__(self, make: Callable[[], T], size: int):
        if size < 1:
            raise ValueError("size must be >= 1")
        self.make = make
        self.size = size
        self.loaded: list[T] = []
        self._idle: list[T] = []
        self._loading = 0
        self._cond = threading.Condition()

    def acquire(self) -> T:
        with self._cond:
            while not self._idle and len(self.loaded) + self._loading >= self.size:
                self._cond.wait()
            if self._idle:
                return self._idle.pop()
            self._loading += 1
        try:
            copy = self.make()
        except BaseException:
            with self._cond:
                self._loading -= 1
                self._cond.notify()
            raise
        with self._cond:
            self._loading -= 1
            self.loaded.append(copy)
        return copy

    def release(self, copy: T) -> None:
        with self._cond:
            self._idle.append(copy)
            self._cond.notify()

    @contextmanager
    def use(self) -> Iterator[T]:
        copy = self.acquire()
        try:
            yield copy
        finally:
            self.release(copy)

    def first(self) -> T:
        """A loaded copy (loading one if none is): for reading what every copy shares."""
        with self._cond:
            if self.loaded:
                return self.loaded[0]
        with self.use() as copy:
            return copy
