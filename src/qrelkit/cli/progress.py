"""Progress on stderr, on every stream: a bar on a terminal, a line every few seconds elsewhere.

`fill` with its output sent to a file used to print nothing for minutes (a minute just reading
DL'19's documents), and Ctrl-C printed nothing either. Now every long stage names itself when it
starts (reading the collection, pooling, preparing the judge, judging, merging, the report), the
judging stage reports cases done of total, calls, cache hits, errors, the rate and an ETA — as a
rich bar on a terminal, as a plain line every ``QRELKIT_PROGRESS_SECONDS`` (5) seconds on a pipe
or file when something changed (an unchanged line again only after :data:`SAME_SECONDS`) — and an
interrupted command says how far it got (:func:`interrupted_message`). A continuation says how
many cases an earlier run judged.
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Optional

from rich.console import Console
from rich.markup import escape

SAME_SECONDS = 60.0  # an unchanged judging line is said again after this long, as a sign of life
_last: dict[str, Any] = {}  # the last judging update of this process, for the interrupted message


class Reporter:
    """Called with the runner's ProgressUpdate values; :meth:`stage` names a stage."""

    def __init__(self, console: Console, bar: Any = None, task: Any = None, every: float = 5.0):
        self.console, self.bar, self.task, self.every = console, bar, task, every
        self.started = time.monotonic()
        self.printed = 0.0
        self.current = ""
        self.last: Any = None  # the last judging update, for the heartbeat
        self.done0 = 0  # cases already done when judging started
        self.announced = False  # "judging N cases" said
        self.stage_at = self.started
        self.lock = threading.Lock()
        self.state: Any = None  # what the last judging line said (done, total, calls, ...)

    def stage(self, text: str, key: Optional[str] = None) -> None:
        """A long stage starts: one line, on every stream."""
        self.current = key or text
        self.stage_at = self.printed = time.monotonic()
        self.console.print(f"[dim]{time.strftime('%H:%M:%S')}[/dim] {escape(text)}", highlight=False, soft_wrap=True)

    def __call__(self, p: Any) -> None:
        _last.update(done=p.done, total=p.total)
        stage = getattr(p, "stage", "judging")
        if stage != "judging":
            if stage != self.current:
                self.stage(stage)
            return
        if self.current != "judging":
            if self.announced:  # back from a step inside judging (a batch judge scoring): no new line
                self.current = "judging"
            elif p.total == 0:  # a continuation whose cases all have verdicts: nothing to count
                self.stage("nothing left to judge" + _already(p), key="judging")
                self.announced = True
                return
            else:
                self.stage(f"judging {p.total} cases" + _already(p), key="judging")
                self.announced = True
                self.started = time.monotonic() - 1e-3  # the rate and ETA count judging, not what came before
                self.done0 = p.done
        if self.bar is not None:
            self.bar.update(self.task, total=p.total, completed=p.done, info=_info(p))
            return
        with self.lock:
            self.last = p
            now = time.monotonic()
            if now - self.printed < self.every and p.done < p.total:
                return
            self._print(p, now)

    def _print(self, p: Any, now: float) -> None:
        state = (p.done, p.total, p.usage.calls, p.usage.cache_hits, p.escalations, p.errors)
        if state == self.state and now - self.printed < SAME_SECONDS:
            return  # nothing changed: the same line again is noise (122 lines of it were printed in one run)
        self.printed, self.state = now, state
        rate = (p.done - self.done0) / max(now - self.started, 1e-9)
        if p.done >= p.total:
            eta = f"done in {now - self.started:.0f} s"
        else:
            eta = f"ETA {(p.total - p.done) / rate:.0f} s" if rate > 0 else "ETA -"
        self.console.print(f"judging: {p.done}/{p.total} cases · {_info(p)} · {rate:.2f} cases/s · {eta}",
                           highlight=False, soft_wrap=True)

    def heartbeat(self, stop: threading.Event) -> None:
        """Off a terminal: the status line again every ``every`` seconds while nothing else is said
        (a batch judge scores for minutes between two updates)."""
        while not stop.wait(self.every):
            with self.lock:
                now = time.monotonic()
                if now - self.printed < self.every or not self.current:
                    continue
                if self.current == "judging" and self.last is not None:
                    if self.last.done < self.last.total:  # once all are judged, "done in N s" was said
                        self._print(self.last, now)
                elif self.current != "judging":
                    self.printed = now
                    self.console.print(f"… {self.current} ({now - self.stage_at:.0f} s)", highlight=False,
                                       soft_wrap=True)


def _already(p: Any) -> str:
    """What a continuation says about the cases an earlier run judged."""
    return f" ({p.already} already judged)" if p.already else ""


def _info(p: Any) -> str:
    return (f"calls {p.usage.calls} (cached {p.usage.cache_hits}) · tokens {p.usage.prompt_tokens}"
            f"+{p.usage.completion_tokens} · ${p.usage.cost_usd:.4f} · escalations {p.escalations} "
            f"(errors {p.errors})")


@contextmanager
def progress_reporter(console: Console, transient: bool = False) -> Iterator[Reporter]:
    """A Reporter for anything that judges (judge, fill, build, demo)."""
    every = float(os.environ.get("QRELKIT_PROGRESS_SECONDS", "5") or 5)
    if not console.is_terminal:
        reporter, stop = Reporter(console, every=every), threading.Event()
        beat = threading.Thread(target=reporter.heartbeat, args=(stop,), daemon=True, name="qrelkit-progress")
        beat.start()
        try:
            yield reporter
        finally:
            stop.set()
            beat.join(timeout=1)
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("judging"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.fields[info]}"), console=console, transient=transient) as bar:
        yield Reporter(console, bar, bar.add_task("judging", total=None, info=""), every)


def interrupted_message() -> str:
    """What an interrupted command prints: how far judging got, and how to continue."""
    if _last.get("total"):
        return (f"interrupted after {_last['done']} of {_last['total']} cases; finished work is saved in the "
                "workspace: run the same command to continue")
    return "interrupted; finished work is saved in the workspace: run the same command to continue"


def reset() -> Optional[dict]:
    """Forget the last update (a new command in the same process, e.g. tests)."""
    old = dict(_last)
    _last.clear()
    return old
