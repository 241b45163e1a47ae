"""Pooling strategies as spec strings: the registry, the parameter tables, the parsed value.

A strategy decides which pairs of a topic people or a judge read, and in what order
(:meth:`Strategy.order`); how many per topic is either ``n`` (the same for every
topic, trectools' ``topX``) or a share of a total ``budget`` over all topics
(:mod:`qrelkit.pooling.budget`). Every strategy takes both parameters; giving both is
refused, because "n per topic" and "N in all" would contradict each other on any
topic with fewer than n candidates.

Strategies are registered by name (:data:`REGISTRY`, one explicit line per strategy,
a duplicate name refused) and parsed with :mod:`qrelkit.specs`, like the people's-share
strategies of :mod:`qrelkit.pooling.allocation`; :func:`parse_pool` returns a :class:`PoolSpec`
whose ``str()`` is the canonical spec a workspace stores with its pool.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, Optional

from qrelkit.errors import UsageError
from qrelkit.specs import Param, bind, canonical_text, integer, parse_chain


class TopicLists(NamedTuple):
    """One topic's ranked lists, one per run that retrieved something for it, in
    trec_eval order; ``scores`` is parallel to ``docids`` (None when the runs were
    read without scores, which only score fusion needs)."""

    runs: tuple[str, ...]
    docids: tuple[tuple[str, ...], ...]
    scores: Optional[tuple[tuple[float, ...], ...]] = None


Relevant = Callable[[str], bool]  # docid -> is it relevant (one topic's label oracle)


@dataclass(frozen=True)
class PoolSpec:
    """A parsed pooling strategy; ``str()`` is its canonical spec (``n``/``budget`` only when given)."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()

    def __getitem__(self, key: str) -> Any:
        return dict(self.params)[key]

    def __str__(self) -> str:
        return canonical_text(self.name, tuple((k, v) for k, v in self.params if v is not None))

    @property
    def strategy(self) -> "Strategy":
        return REGISTRY[self.name]

    @property
    def is_plain_depth(self) -> bool:
        """``depth(k=K)`` with no cut: today's pool, which the store builds in SQL."""
        return self.name == "depth" and self["n"] is None and self["budget"] is None


class Strategy:
    """A pooling strategy: its name, parameter table and judging order.

    ``needs_labels``: the order depends on the labels of what was read before (MTF), so
    it is a function of a label oracle. ``needs_scores``: the order fuses run scores
    (CombMNZ), so runs must be read with their scores, not only their order."""

    NAME = ""
    PARAMS: dict[str, Param] = {}
    needs_labels = False
    needs_scores = False
    default_n: Optional[int] = 10  # trectools' make_pool default topX; None: the whole candidate set

    def candidates(self, spec: PoolSpec, lists: TopicLists) -> int:
        """How many distinct pairs this topic can give (what a budget can spend on it)."""
        return len({d for docs in lists.docids for d in docs})

    def order(self, spec: PoolSpec, lists: TopicLists, quota: int, relevant: Optional[Relevant]) -> list[str]:
        """The first ``quota`` docids of the topic in the order the strategy reads them."""
        raise NotImplementedError


REGISTRY: dict[str, Strategy] = {}


def register(cls: type[Strategy]) -> type[Strategy]:
    if cls.NAME in REGISTRY:
        raise ValueError(f"pooling strategy {cls.NAME!r} registered twice")
    REGISTRY[cls.NAME] = cls()
    return cls


def optional_integer(lo: int) -> Callable[[str], Optional[int]]:
    check = integer(lo)
    return lambda text: None if text.lower() == "none" else check(text)


CUTS = {
    "n": Param(None, optional_integer(1), "pairs per topic (trectools' topX); default 10, for depth the whole top-k"),
    "budget": Param(None, optional_integer(1), "pairs over all topics, split equally, leftovers redistributed"),
}


def parse_pool(text: str) -> PoolSpec:
    """``"rrf(n=20, k=60)"`` -> PoolSpec; raises UsageError on a bad spec."""
    calls = parse_chain(text, "pool spec")
    if len(calls) != 1:
        raise UsageError(f"pool spec {text!r}: expected one strategy, e.g. 'depth(k=10)' or 'rrf(n=20)'")
    call = calls[0]
    if call.name not in REGISTRY:
        raise UsageError(f"pool spec {text!r}: unknown strategy {call.name!r}; choose from {', '.join(sorted(REGISTRY))}")
    values = bind({**CUTS, **REGISTRY[call.name].PARAMS}, call.args, f"pool spec {text!r}: {call.name}")
    if values["n"] is not None and values["budget"] is not None:
        raise UsageError(f"pool spec {text!r}: give n (pairs per topic) or budget (pairs in all), not both")
    return PoolSpec(call.name, tuple(values.items()))


def resolve_pool(pool: Optional[str], depth: Optional[int], default_depth: int = 10) -> PoolSpec:
    """``--pool`` or ``--depth`` (not both, unless they say the same); neither: ``depth(k=10)``."""
    if pool is None:
        return parse_pool(f"depth(k={default_depth if depth is None else depth})")
    spec = parse_pool(pool)
    if depth is not None and not (spec.is_plain_depth and spec["k"] == depth):
        raise UsageError(f"give --pool or --depth, not both (--depth {depth} is --pool 'depth(k={depth})')")
    return spec

