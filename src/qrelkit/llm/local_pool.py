"""Copies of the embedded model side by side, one llama.cpp thread each, one call at a time each.

Why: llama.cpp splits every operation of a decode between its threads and makes them meet at a
barrier after each one (hundreds per decode of SmolLM2); with ``OMP_WAIT_POLICY=PASSIVE`` (see
:func:`qrelkit.llm.local.import_llama_cpp`) a thread that arrives first sleeps until its partner
is done, so the two threads of one decode advance at the pace of the slower and give up the core
at every barrier. Measured on this machine at load 7-8, two threads evaluated prompts no faster
than one (46-59 against 47-68 tokens/s, the :mod:`qrelkit.llm.local` docstring). Two copies with
one thread each decode two different calls at the same time, with no barrier between them.

What it gains depends on the machine: on a saturated one (load average 15-19 on 2 cores,
``benchmarks/embedded_speed.py``, 7 December 2026) both layouts got the same share of the CPU
and the same pairs per second (1.0 CPU-second per pair either way: 73% of it in llama.cpp's
``ggml_vec_dot_q4_1_q8_1``, which the layout does not change); see docs/embedded-judge.md.

The values do not depend on the layout: each output of a matrix product is computed whole by one
thread with the same kernel whatever the number of threads, so a copy with one thread gives the
numbers one copy with two threads gives (tests/llm_layer/test_local_pool.py compares them on
real pairs, bit for bit). The weights are memory-mapped, so the copies share them; each has its
own KV cache (about 50 MB at a 2,048-token context).

``QRELKIT_LOCAL_WORKERS`` (copies, default 2) and ``QRELKIT_LOCAL_THREADS`` (threads per copy,
default 1) set the layout; ``QRELKIT_LOCAL_WORKERS=1 QRELKIT_LOCAL_THREADS=2`` is the layout
before (one copy, two threads), kept for comparison and for machines where it measures faster.
A copy is loaded when a call finds every loaded copy busy, so a process that makes one call at a
time loads one.
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
DEFAULT_WORKERS = 2  # two cores is the target machine
DEFAULT_THREADS = 1

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
