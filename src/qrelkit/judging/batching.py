"""Running a batch judge (:class:`qrelkit.judges.base.BatchJudge`) over a selection.

The judge scores each case (concurrently, through the cached client), then
decides a whole batch at once from the scores and every human label available
so far — original qrels, people's labels and, in simulation (``oracle``), the
reference answers to its own earlier escalations. Judgments are written per
batch. The order is a seeded shuffle of the selection, so that every batch
mixes topics and the budget is spent evenly over them; a resumed run keeps it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from typing import TYPE_CHECKING, Any, Callable, Sequence

from qrelkit.judges.base import ERROR, ESCALATE, BatchJudge, BatchProgress, JudgeInput, Task, Verdict
from qrelkit.judges.learning import HumanLabel, sample_labels
from qrelkit.judging.context import RunContext
from qrelkit.judging.labels import human_labels
from qrelkit.types import Case

if TYPE_CHECKING:
    from qrelkit.store import Store

Pair = tuple[str, str]


async def bounded(factories: Sequence[Callable[[], Any]], concurrency: int) -> list[Any]:
    """Await coroutine factories with at most ``concurrency`` in flight; results in order."""
    sem = asyncio.Semaphore(max(1, concurrency))

    async def one(f: Callable[[], Any]) -> Any:
        async with sem:
            return await f()

    return list(await asyncio.gather(*(one(f) for f in factories)))


def _teaching_labels(
    judge: BatchJudge,
    store: Store,
    selected: Sequence[Case],
    pending: Sequence[Case],
    task: Task,
    earlier: Sequence[Any],
) -> list[HumanLabel]:
    """Every label won on the selection (people's, or the oracle's answers to earlier escalations)
    plus a sample of ``calib_n`` labels of other pairs."""
    keys = {(c.qid, c.docid) for c in selected}
    pending_keys = {(c.qid, c.docid) for c in pending}
    labels = human_labels(store, task, {c.qid for c in selected}, exclude_original=keys, exclude=pending_keys)
    answered: dict[Pair, HumanLabel] = {}
    for j in earlier:
        g = j.prov.oracle if j.status == ESCALATE else None
        if g is not None and (j.qid, j.docid) not in labels:
            answered[(j.qid, j.docid)] = HumanLabel(j.qid, j.docid, g, task.binary(g), "oracle")
    own = [h for k, h in labels.items() if k in keys] + list(answered.values())
    rest = sample_labels([h for k, h in labels.items() if k not in keys], judge.calib_n, judge.seed)
    return sorted(own + rest, key=lambda h: (h.qid, h.docid))


async def judge_in_batches(
    run: RunContext,
    selected: Sequence[Case],
    pending: Sequence[Case],
    make_input: Callable[[Case], JudgeInput | Verdict],
    record: Callable[[Case, Verdict], None],
    say: Callable[[str], None] = lambda text: None,
) -> dict:
    """Score and decide ``pending`` batch by batch; returns what the summary reports."""
    judge, store, task, client, oracle = run.judge, run.store, run.task, run.client, run.oracle
    assert isinstance(judge, BatchJudge)
    method, model, concurrency = run.method, run.model, run.concurrency
    keys = {(c.qid, c.docid) for c in selected}
    pending_keys = {(c.qid, c.docid) for c in pending}
    earlier = [
        j for j in store.judgments(method=method, model=model) if (j.qid, j.docid) in keys and j.status != ERROR
    ]
    teach = _teaching_labels(judge, store, selected, pending, task, earlier)
    # a labelled pair keeps its place in the pool (features such as its best rank use it)
    pooled = {(c.qid, c.docid): c for c in store.cases()}
    inputs = [(h, make_input(pooled.get((h.qid, h.docid)) or Case(h.qid, h.docid, judged=True))) for h in teach]
    usable = [(h, inp) for h, inp in inputs if isinstance(inp, JudgeInput)]
    say(f"scoring {len(usable)} labelled pairs to fit the {judge.NAME} judge")
    scored = await bounded([lambda inp=inp: judge.score(inp, client) for _, inp in usable], concurrency)
    labelled: list[tuple[Any, int]] = [(s, h.label) for (h, _), s in zip(usable, scored)]
    calib_calls = sum(s.usage.calls for s in scored)

    order = sorted(selected, key=lambda c: (c.qid, c.docid))
    random.Random(judge.seed).shuffle(order)
    todo = [c for c in order if (c.qid, c.docid) in pending_keys]
    done = len(earlier)
    escalated = sum(1 for j in earlier if j.status == ESCALATE)
    answers = 0
    for b, start in enumerate(range(0, len(todo), judge.batch_size)):
        cases = todo[start : start + judge.batch_size]
        say(f"scoring batch {b + 1} of {-(-len(todo) // judge.batch_size)} ({len(cases)} cases)")
        made = [(c, make_input(c)) for c in cases]
        ready = [(c, inp) for c, inp in made if isinstance(inp, JudgeInput)]
        scores = await bounded([lambda inp=inp: judge.score(inp, client) for _, inp in ready], concurrency)
        verdicts = judge.decide(
            [(inp, s) for (_, inp), s in zip(ready, scores)],
            list(labelled),
            BatchProgress(total=len(selected), done=done, escalated=escalated, batch=b),
        )
        learned_now: list[tuple[Any, int]] = []
        for (c, _), s, v in zip(ready, scores, verdicts):
            if v.status == ESCALATE:
                escalated += 1
                g = oracle.get((c.qid, c.docid)) if oracle is not None else None
                if g is not None:
                    v = dataclasses.replace(v, provenance={**v.provenance, "oracle": int(g)})
                    learned_now.append((s, task.binary(int(g))))
                    answers += 1
            record(c, v)
        for c, inp in made:
            if isinstance(inp, Verdict):
                record(c, inp)
        done += len(cases)
        labelled.extend(learned_now)  # an answered escalation teaches the later batches
    out = dict(judge.report())
    out.update({"labelled": len(labelled), "labelled_calls": calib_calls, "oracle_answers": answers})
    return out
