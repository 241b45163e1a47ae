"""Which cases a judging run covers, and which task it judges them on.

A run's selection is stable (same workspace, same options, same cases in the
same order), so that a re-run with the same ``--limit`` completes the same set
and a resumed run skips exactly what is done.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Optional

from qrelkit.errors import UsageError
from qrelkit.judges.base import ANSWER, GRADED, Task
from qrelkit.types import Case

if TYPE_CHECKING:
    from qrelkit.store import Store

SHARES = ("llm", "people", "all", "judged")


def share_filter(share: str) -> tuple[Optional[str], bool]:
    """The cases of a ``--share`` as the store's filters: (share or None for every share, judged)."""
    return (share if share in ("llm", "people") else None), share == "judged"


def resolve_task(store: Store, task: str = "auto", threshold: int | str = "auto") -> Task:
    """``auto``, the one rule of every command: new labels must be on the collection's
    own scale, so a graded collection (some grade > 1) gets the graded task even
    when its topics carry answers; otherwise the answer task when every topic has
    answers, else graded (whose binary label is what merge writes).

    The binary threshold of the graded task is resolved against the workspace's
    qrels like every measure's (:mod:`qrelkit.relevance`): on a binary
    collection an LLM grade of 1 is relevant, as the collection's own 1s are;
    a fixed 2 would write every such pair as non-relevant."""
    top = store.max_qrel_grade()  # what the rules read of the qrels (not all of them: 10^6 pairs)
    if task == "auto":
        topics = store.topics()
        answered = bool(topics) and all(t.answers for t in topics.values())
        task = ANSWER if answered and not (top is not None and top > 1) else GRADED
    if task not in (ANSWER, GRADED):
        raise UsageError(f"--task {task!r}: choose auto, answer or graded")
    if task == ANSWER and not all(t.answers for t in store.topics().values()):
        raise UsageError(
            "--task answer needs answers for every topic; the workspace has topics without answers"
        )
    from qrelkit.relevance import resolve_threshold  # the measures' one rule

    resolved = resolve_threshold(threshold, {} if top is None else {("", ""): top}, "the workspace's qrels")
    return Task(task, resolved.value)


def open_selection(store: Store, share: str = "llm", limit: Optional[int] = None,
                   cases: Optional[Iterable[Case]] = None) -> Any:
    """The cases a run covers as a :class:`qrelkit.store.Selection` (a temporary table, paged
    and counted in SQL; drop it when done), in stable order (``limit`` applies before
    resuming, so a re-run with the same limit completes the same set). ``cases`` replaces it."""
    if cases is not None:
        return store.selection(cases=cases)
    if share not in SHARES:
        raise UsageError(f"--share {share!r}: choose from {', '.join(SHARES)}")
    if limit is not None and limit < 0:
        raise UsageError("--limit must be >= 0")
    of, judged = share_filter(share)
    # a pair without document text is not a case (nothing to judge): counted apart, as ``no_text``
    sel = store.selection(share=of, judged=judged, limit=limit, with_text=True)
    if share == "judged" and not sel.size and not store.counts().pooled:
        # a workspace made from qrels without runs: the labelled pairs are the cases
        sel.drop()
        labelled = [Case(q, d, "llm", 0, (), True) for q, d in sorted(store.qrels())]
        sel = store.selection(cases=labelled[:limit] if limit is not None else labelled)
    return sel


def select_cases(store: Store, share: str = "llm", limit: Optional[int] = None) -> list[Case]:
    """The cases a run covers, in stable order, as a list (see :func:`open_selection`)."""
    sel = open_selection(store, share, limit)
    try:
        return sel.cases()
    finally:
        sel.drop()
