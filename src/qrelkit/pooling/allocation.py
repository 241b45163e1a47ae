"""The people's share of a hybrid pool: which pooled cases people judge by design.

The RCL paper (§2.2) compares two ways of spending the same human effort, and
a third is the one a real project can use:

- ``depth(k_human=3)``: people judge every case some run ranks at or above
  ``k_human`` (the top of the rankings decides system order the most); this is
  ``--human-depth K``.
- ``stratified(rate=0.10)``: people judge a ``rate`` sample of each topic's pool,
  stratified by the grade the *reference* qrels give each case. This is an
  oracle: the labels it stratifies by are the ones the people are about to
  give, so it exists only in simulation (a collection whose qrels are known),
  and it refuses to run without a reference rather than fall back silently.
  Pooled cases the reference does not label form a stratum of their own.
- ``stratified(rate=0.10, by=rank)``: the same sample, stratified by the case's
  best rank in the pool (rank bands of ``band`` positions), which needs no
  reference — the realistic variant.
- ``sample(size=10%, design=weighted, seed=0, census=0)``: a probability sample with each pair's
  inclusion probability known and stored (:mod:`qrelkit.pooling.people_sample`), so that `qrelkit estimate`
  can correct the judge's scores with people's labels; ``census=K`` adds the top-K census.

Stratified samples are drawn per topic (every topic needs people's labels for
the learning judges to learn from): the topic's quota ``round(rate * n)`` is
split over strata by largest remainders of ``rate * n_stratum``, so stratum
shares are exact up to one case, and each stratum is sampled with a seeded
``random.Random`` over its cases in docid order — the same pool, spec and seed
give the same share.

Strategies are registered by name (:data:`REGISTRY`) and configured by spec
strings in the syntax of :mod:`qrelkit.specs`; :func:`parse_allocation` returns a
:class:`Allocation` value whose ``str()`` is the canonical spec stored with the pool.
"""
from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Hashable, Optional

from qrelkit.errors import UsageError
from qrelkit.pooling.people_sample import size_value
from qrelkit.specs import Param, bind, canonical_text, choice, integer, number, parse_chain
from qrelkit.types import Case

Reference = Mapping[tuple[str, str], int]


@dataclass(frozen=True)
class Allocation:
    """A parsed people's-share strategy; ``str()`` is its canonical spec."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()

    def __getitem__(self, key: str) -> Any:
        return dict(self.params)[key]

    def __str__(self) -> str:
        return canonical_text(self.name, self.params)

    @property
    def needs_reference(self) -> bool:
        return REGISTRY[self.name].needs_reference(self)

    def people(self, cases: Sequence[Case], reference: Optional[Reference] = None,
               runs: Sequence[Any] = ()) -> frozenset[tuple[str, str]]:
        """The (qid, docid) pairs of ``cases`` that people judge (``runs``: the pooled runs, which a
        weighted sample weighs pairs by)."""
        if self.needs_reference and reference is None:
            raise UsageError(
                f"people's share {self}: stratifying by the reference labels is an oracle that only a "
                "simulation has (the labels people are about to give); load the reference qrels "
                "(`qrelkit init --qrels`) or stratify by pool rank instead: "
                f"stratified(rate={self['rate']:g}, by=rank)"
            )
        return REGISTRY[self.name].select(self, cases, reference or {}, runs)

    def allocate(self, cases: Sequence[Case], reference: Optional[Reference] = None,
                 runs: Sequence[Any] = ()) -> tuple[Case, ...]:
        """``cases`` with ``share`` set: ``people`` for the strategy's pick, ``llm`` for the rest."""
        chosen = self.people(cases, reference, runs)
        return tuple(replace(c, share="people" if (c.qid, c.docid) in chosen else "llm") for c in cases)


class Strategy:
    """A people's-share strategy: its name, parameter table and selection rule."""

    NAME = ""
    PARAMS: dict[str, Param] = {}

    @staticmethod
    def needs_reference(a: Allocation) -> bool:
        return False

    @staticmethod
    def select(a: Allocation, cases: Sequence[Case], reference: Reference,
               runs: Sequence[Any] = ()) -> frozenset[tuple[str, str]]:
        raise NotImplementedError


REGISTRY: dict[str, type[Strategy]] = {}


def register(cls: type[Strategy]) -> type[Strategy]:
    if cls.NAME in REGISTRY:
        raise ValueError(f"people's-share strategy {cls.NAME!r} registered twice")
    REGISTRY[cls.NAME] = cls
    return cls


@register
class Depth(Strategy):
    NAME = "depth"
    PARAMS = {"k_human": Param(3, integer(0), "people judge every case some run ranks at or above this")}

    @staticmethod
    def select(a: Allocation, cases: Sequence[Case], reference: Reference,
               runs: Sequence[Any] = ()) -> frozenset[tuple[str, str]]:
        return frozenset((c.qid, c.docid) for c in cases if c.best_rank <= a["k_human"])


REFERENCE, RANK = "reference", "rank"


@register
class Stratified(Strategy):
    NAME = "stratified"
    PARAMS = {
        "rate": Param(0.10, number(0.0, 1.0), "share of each topic's pool people judge"),
        "by": Param(REFERENCE, choice(REFERENCE, RANK), "strata: reference grades (simulation) or pool rank bands"),
        "band": Param(1, integer(1), "width of a rank band (by=rank)"),
        "seed": Param(0, integer(0), "seed of the sample within each stratum"),
    }

    @staticmethod
    def needs_reference(a: Allocation) -> bool:
        return a["by"] == REFERENCE

    @staticmethod
    def select(a: Allocation, cases: Sequence[Case], reference: Reference,
               runs: Sequence[Any] = ()) -> frozenset[tuple[str, str]]:
        def stratum(c: Case) -> Hashable:
            if a["by"] == RANK:
                return (c.best_rank - 1) // a["band"]
            grade = reference.get((c.qid, c.docid))
            return (1, 0) if grade is None else (0, grade)  # unlabelled: a stratum of its own

        chosen: set[tuple[str, str]] = set()
        by_topic: dict[str, list[Case]] = defaultdict(list)
        for c in cases:
            by_topic[c.qid].append(c)
        for qid, topic_cases in by_topic.items():
            strata: dict[Hashable, list[Case]] = defaultdict(list)
            for c in sorted(topic_cases, key=lambda c: c.docid):
                strata[stratum(c)].append(c)
            quotas = stratum_quotas({s: len(v) for s, v in strata.items()}, a["rate"])
            for s, members in strata.items():
                rng = random.Random(f"{a['seed']}|{qid}|{s}")
                chosen.update((c.qid, c.docid) for c in rng.sample(members, quotas[s]))
        return frozenset(chosen)


@register
class ProbabilitySample(Strategy):
    """``sample(size=10%, design=weighted, seed=0, census=0)``: a probability sample of the pool with
    known inclusion probabilities (:mod:`qrelkit.pooling.people_sample`), what `estimate` corrects the judge's
    scores with. ``census=K``: people also judge every case some run ranks at or above K, as a
    stratum of probability 1 (the hybrid pool's top), and the sample is drawn from the rest."""

    NAME = "sample"
    PARAMS = {
        "size": Param(size_value("10%"), size_value, "pairs people label: N, or P% of the pool outside the census"),
        "design": Param("weighted", choice("uniform", "weighted", "defensive", "active"),
                        "uniform, weighted (by the pair's weight in the runs' measures), defensive (half weighted, "
                        "half uniform) or active (judge's uncertainty)"),
        "seed": Param(0, integer(0), "seed of the draw"),
        "census": Param(0, integer(0), "people also judge every case some run ranks at or above this (0: none)"),
    }

    @staticmethod
    def select(a: Allocation, cases: Sequence[Case], reference: Reference,
               runs: Sequence[Any] = ()) -> frozenset[tuple[str, str]]:
        sample = draw_for_pool(a, cases, runs)
        return frozenset((p.qid, p.docid) for p in sample.pairs) | {
            (c.qid, c.docid) for c in cases if (c.qid, c.docid) in sample.census and not c.judged}


def draw_for_pool(a: Allocation, cases: Sequence[Case], runs: Sequence[Any] = ()):
    """The sample a ``sample(...)`` allocation draws from these pooled cases (the same every time)."""
    from qrelkit.pooling.people_sample import census_of, draw

    universe = sorted((c.qid, c.docid) for c in cases)
    depth = max((c.best_rank for c in cases), default=10)  # the pool's depth: every pooled rank is within it
    return draw(universe, size=a["size"], design=a["design"], seed=a["seed"], runs=runs,
                census=census_of(cases, a["census"]), depth=depth)


def stratum_quotas(sizes: Mapping[Hashable, int], rate: float) -> dict[Hashable, int]:
    """How many of each stratum to sample: ``round(rate * total)`` split by largest remainders
    (Hamilton's method), ties to the larger stratum, then the smaller key."""
    total = sum(sizes.values())
    target = math.floor(rate * total + 0.5)
    exact = {s: rate * n for s, n in sizes.items()}
    quotas = {s: math.floor(x) for s, x in exact.items()}
    left = target - sum(quotas.values())
    order = sorted(sizes, key=lambda s: (-(exact[s] - quotas[s]), -sizes[s], repr(s)))
    for s in order[:max(left, 0)]:
        quotas[s] += 1
    return quotas


def parse_allocation(text: str) -> Allocation:
    """``"stratified(rate=0.1, by=rank)"`` -> Allocation; raises UsageError on a bad spec."""
    calls = parse_chain(text, "people's-share spec")
    if len(calls) != 1:
        raise UsageError(f"people's-share spec {text!r}: expected one strategy, e.g. 'depth(k_human=3)'")
    call = calls[0]
    if call.name not in REGISTRY:
        raise UsageError(f"people's-share spec {text!r}: unknown strategy {call.name!r}; "
                         f"choose from {', '.join(sorted(REGISTRY))}")
    values = bind(REGISTRY[call.name].PARAMS, call.args, f"people's-share spec {text!r}: {call.name}")
    return Allocation(call.name, tuple(values.items()))


def resolve_people(people: Optional[str], human_depth: Optional[int], default_depth: int = 3) -> Allocation:
    """``--people`` or ``--human-depth`` (not both) as an Allocation; neither: ``depth(k_human=3)``."""
    if people is not None and human_depth is not None:
        raise UsageError(f"give --people or --human-depth, not both (--human-depth {human_depth} is "
                         f"--people 'depth(k_human={human_depth})')")
    if people is not None:
        return parse_allocation(people)
    return parse_allocation(f"depth(k_human={default_depth if human_depth is None else human_depth})")
