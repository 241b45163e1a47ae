"""Move-to-front in a workspace with real labels: ``build --pool 'mtf(n=N)'``, one round of judging at a time.

MTF reads deeper in the runs that keep finding relevant documents, so which pair comes next
depends on the labels of the pairs read before (:mod:`qrelkit.pooling.mtf`). Outside a
simulation those labels come from the judge and from people, so the pool is grown in rounds
(:class:`~qrelkit.pooling.rounds.MtfRounds`): each round proposes every topic's next pairs,
they become cases of the workspace, the judge's share is judged at once, people's share and
escalations wait for the app, and the labels go back to MTF before the next round. A topic
whose pair has no label yet holds (it proposes nothing); the others go on. The rounds end when
every topic has spent its share of ``n`` (or of the ``budget``) or waits for a label.

Resuming needs no state of its own: every call replays the rounds from the first, reading
each proposed pair's label from the store (original qrels, people's decisions, the job's
verdicts: :func:`known_labels`, merge's precedence). MTF is deterministic in its labels, so
the replay proposes the same pairs, and only pairs without a label are handed to the judge
(the runner skips those it has finished, an escalation included, and retries an error once).
A complete re-run makes no call.

People's share is the pairs within any run's top ``k_human`` (``--human-depth``; ``depth`` is
the only people's strategy that decides pair by pair, so it is the one MTF rounds take).
A retrieved document without text is not a case (nothing can judge it), so MTF reads past it
rather than wait on it for ever. ``limit`` caps the judge's share of the pool: a pair past it is neither pooled nor judged,
and holds its topic until a later call raises the limit.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from qrelkit.errors import InputError, UsageError
from qrelkit.pooling.build import _provenance
from qrelkit.pooling.rounds import MtfRounds
from qrelkit.pooling.spec import PoolSpec
from qrelkit.types import Case, Usage

if TYPE_CHECKING:
    from qrelkit.relevance import Task
    from qrelkit.store import Store

Pair = tuple[str, str]
Judge = Callable[[Sequence[Case]], Usage]  # judge these cases (the judge's share); the calls it cost
Labels = Callable[[], Mapping[Pair, bool]]  # every labelled pair of the workspace -> relevant


@dataclass(frozen=True)
class RoundsOutcome:
    """Where the rounds stand after one call."""

    spec: str
    rounds: int  # rounds gone through, replayed ones included
    quota: int  # pairs the spec reads in all (its n per topic, or its budget)
    read: int  # pairs proposed (the pool)
    unsettled: int  # pairs of the quota without a label yet: waiting, held back, or not read
    cut: int  # proposed but past --limit: not pooled, not judged
    usage: Usage  # what this call's rounds of judging cost
    finished: bool

    def counts(self) -> dict[str, Any]:
        return {"pool": self.spec, "rounds": self.rounds, "quota": self.quota, "read": self.read,
                "unsettled": self.unsettled}


def known_labels(store: "Store", method: str, model: str, task: "Task") -> dict[Pair, bool]:
    """Every pair with a label, relevant or not, by merge's precedence (original, people, the
    job's judge); an escalation or an error is no label."""
    from qrelkit.merge import MergedLabel, iter_merged

    return {(m.qid, m.docid): bool(task.binary(m.grade))
            for m in iter_merged(store, method, model) if isinstance(m, MergedLabel)}


def run_rounds(store: "Store", spec: PoolSpec, k_human: int, labels: Labels, judge: Judge,
               limit: Optional[int] = None) -> RoundsOutcome:
    """Replay and continue the MTF rounds of ``spec`` over the workspace's runs (module docstring)."""
    runs, topics = _runs(store), list(store.topics())
    have = store.docids()  # a document without text is not a case: MTF reads past it, it holds no topic
    state = MtfRounds(spec, [r._replace(by_topic={q: tuple(d for d in ds if d in have) for q, ds in r.by_topic.items()})
                             for r in runs], topics)
    cases = _CaseMaker(runs, store.qrels(), k_human)
    known, pooled, usage = labels(), {}, Usage()
    llm, cut, rounds = 0, 0, 0
    while batch := state.propose():
        rounds += 1
        fresh = []
        for pair in batch:
            case = cases(pair)
            if case.share == "llm" and not case.judged:
                if limit is not None and llm >= limit:
                    cut += 1
                    continue
                llm += 1
                if pair not in known:
                    fresh.append(case)
            pooled[pair] = case
        store.upsert_cases([pooled[p] for p in batch if p in pooled])
        if fresh:
            usage = usage + judge(fresh)
            known = labels()
        state.record({p: known[p] for p in batch if p in known})
    store.remove_cases_except(set(pooled))
    return RoundsOutcome(str(spec), rounds, sum(state.quota.values()), len(pooled), state.unsettled, cut, usage,
                         state.finished)


class _CaseMaker:
    """A proposed pair as a case: its best rank in any run, the runs that retrieved it, its share
    (:func:`qrelkit.pooling.build._provenance` over the topic's whole lists, once per topic)."""

    def __init__(self, runs: Sequence[Any], reference: Mapping[Pair, int], k_human: int):
        self.runs, self.reference, self.k_human = runs, reference, k_human
        self.best: dict[Pair, int] = {}
        self.who: dict[Pair, list[str]] = {}
        self.seen: set[str] = set()

    def __call__(self, pair: Pair) -> Case:
        q, d = pair
        if q not in self.seen:  # each topic's ranks once, when MTF first reads it
            self.seen.add(q)
            every = {q: {e for r in self.runs for e in r.by_topic.get(q, ())}}
            best, who = _provenance(self.runs, every, None)
            self.best.update(best)
            self.who.update(who)
        best = self.best[pair]
        return Case(q, d, "people" if best <= self.k_human else "llm", best, tuple(sorted(self.who[pair])),
                    pair in self.reference)


def _runs(store: "Store") -> list:
    """The workspace's runs, every retrieved document (MTF may read to the bottom of a run)."""
    from qrelkit.workspace import _pool_inputs, gone_hint

    stored = store.runs()
    if not stored:
        raise UsageError(f"{store.workspace}: the workspace has no runs; add them with "
                         f"`qrelkit init -w {store.workspace} ... --runs PATH`")
    paths, names = [p for _, p, _ in stored], [n for n, _, _ in stored]
    gone = [p for p in paths if not Path(p).is_file()]
    if gone:
        raise InputError(gone[0], None, f"{gone_hint(store.workspace)}; MTF's rounds re-read the runs")
    return _pool_inputs(paths, names, None)


def record_pool(store: "Store", outcome: RoundsOutcome, allocation: Any) -> dict[str, Any]:
    """Store the pool the rounds grew as the workspace's pool (as `qrelkit pool` does); its counts,
    with `pool`'s keys and the rounds' (``rounds``, ``quota``, ``read``, ``unsettled``)."""
    from qrelkit.workspace import _pool_counts

    cases = store.cases()
    counts = _pool_counts(cases)
    depth = max((c.best_rank for c in cases), default=0)  # the deepest rank a case came from
    k_human = allocation["k_human"]
    store.set_meta("pool", {"depth": depth, "human_depth": k_human, "allocation": str(allocation),
                            "pool": outcome.spec})
    return {"depth": depth, "human_depth": k_human, **outcome.counts(),
            **{k: counts[k] for k in ("pooled", "holes", "people", "llm", "judged")}}
