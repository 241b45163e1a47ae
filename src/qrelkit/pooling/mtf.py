"""Move-to-front pooling (Cormack, Palmer and Clarke, SIGIR 1998): read deeper in the runs
that keep finding relevant documents.

Per topic, every run starts with the same priority. The run with the highest priority
(ties: the first in run order) is read from the top, skipping documents already read
through another run; a relevant document keeps the run where it is, a non-relevant one
lowers its priority by one, and the next document comes from whichever run now has the
highest priority. A run whose list is used up drops out. With equal priorities the runs
are thus taken in turn, and a run that found something is read on until it misses.

So the order depends on the labels of what was read before: MTF is a function of a
label oracle (:data:`qrelkit.pooling.spec.Relevant`), and a real collection can only
run it in rounds, as labels come back:

1. ``propose(b)`` gives each topic's next ``b`` documents, all from its front run;
2. people or a judge label them;
3. ``record(labels)`` lowers the front run's priority once per non-relevant label.

With ``b = 1`` this is exactly Cormack et al.'s MTF, one document per topic per round
(topics are independent, so a round judges one document of every topic at once). With
``b > 1`` a round reads ``b`` documents of the front run before its labels are known,
which is MTF's rule applied a batch late: fewer rounds, somewhat more non-relevant
reading. A pair left without a label (an error, an escalation people have not answered
yet) holds its topic: the topic proposes nothing until the pair is recorded.
``mtf(batch=B)`` simulates such rounds with an oracle (the benchmark measures the cost).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Optional

from qrelkit.pooling.spec import PoolSpec, Relevant, Strategy, TopicLists, register
from qrelkit.specs import Param, integer


class MoveToFront:
    """One topic's MTF state: which run is read next, how far each run has been read."""

    def __init__(self, lists: Sequence[Sequence[str]]):
        self.lists = [tuple(docs) for docs in lists]
        self.position = [0] * len(self.lists)
        self.priority = [0] * len(self.lists)
        self.read: set[str] = set()
        self.pending: list[tuple[int, str]] = []  # (run index, docid) proposed, not yet labelled

    def propose(self, b: int = 1) -> list[str]:
        """The next ``b`` documents of the front run (fewer when it runs out; none while
        a proposed document has no label yet, or when every run is used up)."""
        if self.pending:
            return []
        r = self.front()
        out: list[str] = []
        while r is not None and len(out) < b and self._skip_read(r):
            d = self.lists[r][self.position[r]]
            self.read.add(d)
            self.pending.append((r, d))
            out.append(d)
        return out

    def record(self, labels: Mapping[str, bool]) -> None:
        """Labels of proposed documents (docid -> relevant); others stay pending."""
        still = []
        for r, d in self.pending:
            if d not in labels:
                still.append((r, d))
            elif not labels[d]:
                self.priority[r] -= 1
        self.pending = still

    def front(self) -> Optional[int]:
        """The run read next: highest priority among runs with unread documents, first in order."""
        live = [r for r in range(len(self.lists)) if self._skip_read(r)]
        return max(live, key=lambda r: (self.priority[r], -r)) if live else None

    def _skip_read(self, r: int) -> bool:
        """Move run ``r`` past documents already read; whether it has one left."""
        docs, i = self.lists[r], self.position[r]
        while i < len(docs) and docs[i] in self.read:
            i += 1
        self.position[r] = i
        return i < len(docs)


@register
class MTF(Strategy):
    NAME = "mtf"
    PARAMS = {"batch": Param(1, integer(1), "documents read from the front run per round (1: Cormack et al.'s MTF)")}
    needs_labels = True

    def order(self, spec: PoolSpec, lists: TopicLists, quota: int, relevant: Optional[Relevant]) -> list[str]:
        if relevant is None:
            raise ValueError("mtf needs the labels of what it read so far: pass a label oracle")
        state = MoveToFront(lists.docids)
        out: list[str] = []
        while len(out) < quota:
            batch = state.propose(min(spec["batch"], quota - len(out)))
            if not batch:
                break
            out += batch
            state.record({d: relevant(d) for d in batch})
        return out
