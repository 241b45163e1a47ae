"""Move-to-front over every topic of a collection, one round of judging at a time.

This is what ``build`` drives when MTF pools a real collection (:mod:`qrelkit.pooling.live`): each round,
:meth:`MtfRounds.propose` gives every topic's next ``batch`` pairs (within the topic's
share of ``n`` or of the budget, :mod:`qrelkit.pooling.budget`), people or a judge label
them, and :meth:`MtfRounds.record` hands the labels back. Topics move independently: a
topic waiting on a label proposes nothing that round, and the others go on. Run with an
oracle that answers every round at once, the pairs read are exactly those of
:func:`qrelkit.pooling.choose` for the same spec.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from qrelkit.errors import UsageError
from qrelkit.pooling.build import qids_of, quotas, topic_lists
from qrelkit.pooling.mtf import MoveToFront
from qrelkit.pooling.spec import PoolSpec

Pair = tuple[str, str]


class MtfRounds:
    """MTF state for every topic, and how many pairs each topic may still read."""

    def __init__(self, spec: PoolSpec, runs: Sequence[Any], topics: Any = None):
        if spec.name != "mtf":
            raise UsageError(f"rounds of judging are for mtf; {spec} is fixed before judging starts")
        lists = topic_lists(runs, qids_of(topics))
        self.batch = spec["batch"]
        self.quota = quotas(spec, lists)
        self.states = {q: MoveToFront(lists[q].docids) for q in sorted(lists)}
        self.read: Counter = Counter()

    def propose(self) -> list[Pair]:
        """This round's pairs: each topic's next ``batch`` within its quota."""
        out: list[Pair] = []
        for q, state in self.states.items():
            left = self.quota[q] - self.read[q]
            if left > 0:
                docs = state.propose(min(self.batch, left))
                self.read[q] += len(docs)
                out += [(q, d) for d in docs]
        return out

    def record(self, labels: Mapping[Pair, bool]) -> None:
        """Labels of proposed pairs (relevant or not); pairs not given stay pending."""
        by_topic: dict[str, dict[str, bool]] = {}
        for (q, d), relevant in labels.items():
            by_topic.setdefault(q, {})[d] = relevant
        for q, given in by_topic.items():
            self.states[q].record(given)

    @property
    def pending(self) -> list[Pair]:
        return [(q, d) for q, s in self.states.items() for _, d in s.pending]

    def topic_finished(self, q: str) -> bool:
        """Topic ``q`` has read its quota or every run of it, and awaits no label."""
        s = self.states[q]
        return not s.pending and (self.read[q] >= self.quota[q] or s.front() is None)

    @property
    def finished(self) -> bool:
        """Every topic has read its quota or every run of it, and no label is awaited."""
        return all(self.topic_finished(q) for q in self.states)

    @property
    def unsettled(self) -> int:
        """Pairs of the quota still without a label: proposed and pending, or not read yet
        (topics that ran out of documents owe nothing)."""
        return sum((0 if s.front() is None else self.quota[q] - self.read[q]) + len(s.pending)
                   for q, s in self.states.items() if not self.topic_finished(q))
