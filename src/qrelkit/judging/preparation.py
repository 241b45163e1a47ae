"""Getting a judge ready before its first case: the client check, learning, calibration.

Each step reads a declared capability of the judge contract
(:mod:`qrelkit.judges.base`): ``check_client``/``requires``, ``learns`` (the
first learning judge of a chain gets a :class:`LearningContext`) and
``needs_labels``/``calib_n`` (the head of the chain gets a sample of labelled
pairs; a prefilter passes them on to the judge after it). Nothing is learnt or
calibrated when no case is left to judge, so a finished run costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from qrelkit.judges.base import Judge, Task
from qrelkit.judges.learning import Learned
from qrelkit.judging.labels import labelled_pairs, learning_context
from qrelkit.types import Case

if TYPE_CHECKING:
    from qrelkit.llm.client import Client
    from qrelkit.store import Store


def check_client(judge: Judge, client: Client) -> None:
    """Fail before any call: each judge's own, more helpful, message first, then ``requires``;
    then the judges' own clients are made (and checked) too."""
    for j in judge.chain():
        j.check_client(client)
    client.require(*sorted(judge.requires))
    for j in judge.chain():
        j.open_clients(client)


async def prepare(
    judge: Judge, store: Store, task: Task, selected: Sequence[Case], pending: Sequence[Case], client: Client
) -> tuple[dict, Learned]:
    """Learn and calibrate; returns (what the summary reports as ``calibration``, what learning cost)."""
    calibration: dict = {}
    learned = Learned()
    if not pending:
        return calibration, learned
    learner = next((j for j in judge.chain() if j.learns), None)
    if learner is not None:
        learned = await learner.learn(learning_context(store, task, selected, pending), client)
        calibration.update(learned.info)
    if judge.needs_labels:
        n = max(j.calib_n for j in judge.chain())
        labelled = labelled_pairs(store, task, {(c.qid, c.docid) for c in selected}, n)
        calibration.update(await judge.prepare(labelled, client))
    return calibration, learned
