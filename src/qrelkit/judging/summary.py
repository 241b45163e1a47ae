"""What a judging run reports: progress while it runs, and a summary when it is done.

Counts (judged, relevant, escalations, errors, ...) are over the whole selection,
so a resumed run reports the same outcome as an uninterrupted one; usage (calls,
tokens, cost) is this run's alone — the client's totals after minus before.
Calls a learning judge spent before judging (inducing narratives) are reported
apart as ``narrative_calls``/``narrative_cost``, and added to the totals only
when another client made them (the assessor's client already counted its own).
"""

from __future__ import annotations

import dataclasses
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from qrelkit.judges.learning import Learned

if TYPE_CHECKING:
    from qrelkit.judging.context import RunContext
from qrelkit.types import Usage


@dataclass(frozen=True)
class ProgressUpdate:
    """Sent to the ``progress`` callback after each finished case."""

    done: int
    total: int
    usage: Usage  # this run's so far
    escalations: int
    errors: int
    stage: str = "judging"  # or a stage before it ("preparing the judge: ...")
    already: int = 0  # cases of the selection an earlier run judged (a continuation says so)


@dataclass(frozen=True)
class JudgeSummary:
    """The outcome over the selected cases (counts) and this run's usage (calls, tokens, cost).

    The usage fields are flat because they are the JSON keys of ``qrelkit judge --json``;
    :attr:`usage` gives them back as one value."""

    method: str
    model: str
    task: str
    share: str
    cases: int
    judged: int
    relevant: int
    escalations: int
    errors: int
    escalation_ratio: float
    calls: int
    cache_hits: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    new: int = 0
    dropped: int = 0
    no_text: int = 0  # pairs of the share whose document has no text: not cases, never judged
    unanswered: int = 0  # cases this run could not judge because the server gave no answer
    undecided: int = 0
    adjudicated: int = 0
    seconds: float = 0.0
    calibration: dict = field(default_factory=dict, hash=False)
    narrative_calls: int = 0  # calls spent inducing narratives (part of ``calls`` unless a separate instructor)
    narrative_cost: float = 0.0
    guarded: int = 0  # of ``escalations``: cases the guard sent to people, whose document addresses the judge

    @property
    def usage(self) -> Usage:
        return Usage.from_dict(asdict(self))

    def as_dict(self) -> dict:
        return asdict(self)


def summarise(run: "RunContext", usage: Usage, new: int, calibration: dict, learned: Learned,
              unanswered: int = 0) -> JudgeSummary:
    """The summary of a run whose own usage was ``usage``; the counts are over the run's
    selection (a :class:`qrelkit.store.Selection`), counted in SQL."""
    import time

    selection, method, model, task, share = run.selection, run.method, run.model, run.task, run.share
    seconds = time.perf_counter() - run.t0
    n = selection.counts(method, model)
    if learned.separate_client:
        usage = usage + learned.usage
    out = JudgeSummary(
        method=method,
        model=model,
        task=task.name,
        share=share,
        cases=len(selection),
        judged=n.judged,
        relevant=n.relevant,
        escalations=n.escalations,
        errors=n.errors,
        escalation_ratio=round(n.escalations / len(selection), 4) if len(selection) else 0.0,
        new=new,
        dropped=n.dropped,
        undecided=n.undecided,
        adjudicated=n.adjudicated,
        guarded=n.guarded,
        no_text=_no_text(run),
        unanswered=unanswered,
        seconds=round(seconds, 3),
        calibration=calibration,
        **usage.as_dict(),
    )
    return dataclasses.replace(
        out, narrative_calls=learned.usage.calls, narrative_cost=round(learned.usage.cost_usd, 8)
    )


def _no_text(run: "RunContext") -> int:
    from qrelkit.judging.selection import share_filter

    return run.store.cases_without_text(*share_filter(run.share))


def command_totals(client_usage: dict, summary: JudgeSummary) -> dict:
    """The record stored with the ``judge`` command: the client's totals, the summary (without
    its calibration), and this run's usage under ``usage_this_run``."""
    totals = dict(client_usage)
    totals.update({k: v for k, v in summary.as_dict().items() if k != "calibration"})
    totals["usage_this_run"] = summary.usage.as_dict()
    return totals
