"""People's labels read from a workspace: the original qrels, then people's decided labels (which
win), and — in simulation only — the oracle's answers to escalations. What judges receive and the
one sampling rule are the contract's (:mod:`qrelkit.judges.learning`)."""

from __future__ import annotations

from typing import Optional, Sequence

from qrelkit.judges.base import JudgeInput
from qrelkit.judges.learning import MIN_CALIBRATION, HumanLabel, LearningContext, sample_labels
from qrelkit.relevance import Task
from qrelkit.store import Store
from qrelkit.types import Case

Pair = tuple[str, str]


def human_labels(
    store: Store,
    task: Task,
    qids: Optional[set[str]] = None,
    exclude_original: frozenset[Pair] | set[Pair] = frozenset(),
    exclude: frozenset[Pair] | set[Pair] = frozenset(),
) -> dict[Pair, HumanLabel]:
    """Original qrels, then people's decided labels (which win), of some topics."""
    out: dict[Pair, HumanLabel] = {}
    for (q, d), g in store.qrels().items():
        if (qids is None or q in qids) and (q, d) not in exclude_original and (q, d) not in exclude:
            out[(q, d)] = HumanLabel(q, d, int(g), task.binary(int(g)), "original")
    for j in store.people_labels():
        if (qids is not None and j.qid not in qids) or (j.qid, j.docid) in exclude:
            continue
        if j.effective_grade is None:
            continue
        label = task.binary(j.grade) if j.grade is not None else int(j.label)
        out[(j.qid, j.docid)] = HumanLabel(j.qid, j.docid, j.effective_grade, label, "people")
    return out


def learning_context(
    store: Store, task: Task, selected: Sequence[Case], pending: Sequence[Case]
) -> LearningContext:
    keys = {(c.qid, c.docid) for c in selected}
    qids = {c.qid for c in selected}
    labels = human_labels(store, task, qids, exclude_original=keys, exclude={(c.qid, c.docid) for c in pending})
    topics = {q: t for q, t in store.topics().items() if q in qids}
    return LearningContext(
        store=store,
        task=task,
        topics=topics,
        pending_qids=tuple(sorted({c.qid for c in pending})),
        labels=tuple(labels[k] for k in sorted(labels)),
    )


def labelled_pairs(
    store: Store,
    task: Task,
    exclude: set[Pair],
    n: int,
    seed: int = 0,
) -> list[tuple[JudgeInput, int]]:
    """Up to ``n`` labelled pairs with their binary labels, for a judge's threshold calibration
    (a ``balanced`` sample, see the module docstring).

    The pairs being judged (``exclude``) are left out when at least
    :data:`MIN_CALIBRATION` others of both classes remain."""
    labels = human_labels(store, task)
    others = {k: h for k, h in labels.items() if k not in exclude}
    if len(others) >= MIN_CALIBRATION and len({h.label for h in others.values()}) == 2:
        labels = others
    topics = store.topics()
    out = []
    for h in sample_labels(list(labels.values()), n, seed, balanced=True):
        doc, topic = store.doc(h.docid), topics.get(h.qid)
        if doc is not None and topic is not None:
            out.append((JudgeInput(Case(h.qid, h.docid, judged=True), topic, doc, task), h.label))
    return out
