"""What the report reads from a workspace, read lean.

At 10^5 pooled pairs ``qrelkit report`` peaked at 674 MB (benchmarks/scale.py):
every run held as frozen ``RunEntry`` records to full depth (230 MB), every
judgment with its provenance and rationale (100 MB) and every merged label with
its provenance (70 MB), although the report's analyses need much less:

- runs: the hole rates, pool growth and RAG alignment look at the top ``cut``
  of each run only, as docids (:class:`TopRun`, from the lean reader
  :mod:`qrelkit.data.rankings`); the system scores stream each run from its
  file to full depth, one at a time (:func:`full_rankings`), as ``evaluate`` does;
- merged labels: a pair's grade, and counts (:class:`MergedTally`, one pass
  over :func:`qrelkit.merge.iter_merged`), held per topic with the runs' docid strings
  (:class:`qrelkit.data.qrels.PairGrades`), as are the original qrels;
- judgments: costs and status counts are SQL aggregates; agreement streams the
  labels without their texts (:meth:`qrelkit.store.Store.iter_judgment_labels`) and keeps
  only those of pairs the reference has; only escalations are read whole, for their reasons.

What still grows with the pairs is what the analyses are about: the merged
grades, the runs' top lists and the judges' labels.
"""
from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, Optional

from qrelkit.data.qrels import PairGrades
from qrelkit.errors import InputError

if TYPE_CHECKING:
    from qrelkit.store import Store

Pair = tuple[str, str]


class Entry(NamedTuple):
    """A run entry as the analyses read it: its docid (the list's order is the rank)."""

    docid: str


class TopEntries(Mapping):
    """``{qid: entries}`` over ``{qid: docids}``; entries are made when asked for, so a run
    costs its docids only."""

    def __init__(self, docids: Mapping[str, tuple[str, ...]]):
        self._docids = docids

    def __getitem__(self, qid: str) -> tuple[Entry, ...]:
        return tuple(Entry(d) for d in self._docids[qid])

    def __iter__(self) -> Iterator[str]:
        return iter(self._docids)

    def __len__(self) -> int:
        return len(self._docids)


@dataclass(frozen=True)
class TopRun:
    """A workspace run cut at ``cut``: what hole rates, pool growth and RAG alignment read."""

    name: str
    path: str
    by_topic: TopEntries
    tags: tuple[str, ...] = ()


def workspace_runs(run_rows: Sequence[tuple], cut: int, notes: list[str],
                   intern: Optional[dict[str, str]] = None) -> list[TopRun]:
    """The workspace's runs, top ``cut`` each, under their stored names; a run that cannot be
    read is skipped with a note. A docid or qid that many runs retrieve is held as one string
    (20 runs' top 10s held 6.6 million docids for 10^6 distinct ones), kept in ``intern`` for
    the labels read next (:class:`qrelkit.data.qrels.PairGrades`)."""
    from qrelkit.data.rankings import read_ranking

    runs = []
    one: dict[str, str] = intern if intern is not None else {}
    for name, path, _ in run_rows:
        try:
            r = read_ranking(path, cut)
        except InputError as e:
            notes.append(f"run {name} skipped: {e}")
            continue
        docids = {one.setdefault(q, q): tuple(one.setdefault(d, d) for d in ds) for q, ds in r.docids.items()}
        runs.append(TopRun(name, r.path, TopEntries(docids), r.tags))
    return runs


def full_rankings(runs: Sequence[TopRun]) -> Iterator[Any]:
    """The same runs to full depth, read again one at a time (for the system scores)."""
    from qrelkit.data.rankings import read_ranking

    for run in runs:
        yield dataclasses.replace(read_ranking(run.path), name=run.name)


def _guarded(provenance: str) -> bool:
    """Whether a people's label carries the guard's entry (qrelkit.annotate.votes): the guard sent
    its case to people. Only people's labels are parsed, and they are few."""
    try:
        return isinstance(json.loads(provenance or "{}").get("guard"), dict)
    except (ValueError, AttributeError):
        return False


@dataclass(frozen=True)
class MergedTally:
    """The merged qrels as the report uses them: grades per pair, and counts."""

    grades: PairGrades
    sources: Counter  # original | human | llm -> labels
    statuses: Counter  # status -> labels
    unresolved: int
    guarded: Counter = dataclasses.field(default_factory=Counter)  # "human": people's labels of guarded cases

    @classmethod
    def of(cls, labels: Any, unresolved: int, intern: Optional[Mapping[str, str]] = None) -> "MergedTally":
        """``intern``: docid strings to share (the runs', :func:`workspace_runs`)."""
        sources: Counter = Counter()
        statuses: Counter = Counter()
        guarded: Counter = Counter()

        def rows() -> Iterator[tuple[str, str, int]]:
            for m in labels:
                sources[m.source] += 1
                statuses[m.status] += 1
                if m.source == "human" and _guarded(m.provenance):
                    guarded["human"] += 1
                yield m.qid, m.docid, m.grade

        return cls(PairGrades(rows(), intern), sources, statuses, unresolved, guarded)

    @classmethod
    def from_result(cls, result: Any) -> "MergedTally":
        """From a :class:`qrelkit.merge.MergeResult` a job just made."""
        return cls.of(result.labels, len(result.unresolved))

    @classmethod
    def from_store(cls, store: Store, intern: Optional[Mapping[str, str]] = None) -> Optional["MergedTally"]:
        """Original + people's + the latest judge's labels, streamed (None without judgments)."""
        from qrelkit.merge import MergedLabel, iter_merged, merged_method

        if not store.method_counts():
            return None
        method, model = merged_method(store, None, None)
        unresolved = 0

        def labels() -> Iterator[Any]:
            nonlocal unresolved
            for item in iter_merged(store, method, model):
                if isinstance(item, MergedLabel):
                    yield item
                else:
                    unresolved += 1

        tally = cls.of(labels(), 0, intern)
        return dataclasses.replace(tally, unresolved=unresolved)

    def counts(self) -> dict[str, int]:
        """As :meth:`qrelkit.merge.MergeResult.counts`."""
        return {"labels": sum(self.sources.values()), "original": self.sources.get("original", 0),
                "human": self.sources.get("human", 0), "llm": self.sources.get("llm", 0),
                "unresolved": self.unresolved}
