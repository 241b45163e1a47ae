"""The people's probability sample as the product uses it: its universe, its size, its record.

The statistics (designs, inclusion probabilities, estimators) are :mod:`qrelkit.estimate`'s;
this module decides what they are applied to:

- the **universe** of a sample from files is every pair the judge's labels cover plus every
  pair in some run's top ``depth`` (what any measure at that depth can touch); in a workspace
  it is the pool;
- the **census** is what people judge by another design, with probability 1: a hybrid pool's
  top (best rank <= ``census``, ``--human-depth``) and, in a workspace, the pairs the original
  qrels label already. Census pairs are a stratum of their own, never sample members;
- the **size** is a count ``N`` or a share ``P%`` of the pairs the sample is drawn from
  (the universe less the census), rounded to the nearest pair;
- the **record** is the draw, stored whole in the workspace (:mod:`qrelkit.store.samples`)
  with how it was drawn and a fingerprint of the pool it was drawn from, so `estimate`
  can refuse a sample whose probabilities no longer match the pool.
"""
from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from qrelkit.errors import UsageError

if TYPE_CHECKING:
    from qrelkit.estimate.design import Sample
    from qrelkit.store import Store
    from qrelkit.types import Case

Pair = tuple[str, str]
DESIGNS = ("uniform", "weighted", "defensive", "active")
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$")


@dataclass(frozen=True)
class SampleSize:
    """How many pairs people label: a count, or a percentage of the pairs the sample is drawn from."""

    value: float
    percent: bool

    def count(self, available: int) -> int:
        return math.floor(self.value * available / 100.0 + 0.5) if self.percent else int(self.value)

    def __str__(self) -> str:
        return f"{self.value:g}%" if self.percent else str(int(self.value))


def size_value(text: str) -> SampleSize:
    """``"10%"`` or ``"926"`` as a SampleSize; ValueError (a spec parameter's error) otherwise."""
    m = _SIZE.match(str(text))
    if not m:
        raise ValueError(f"expected a count N or a percentage P% (e.g. 500 or 10%), got {text!r}")
    value, pct = float(m[1]), bool(m[2])
    if value <= 0:
        raise ValueError(f"a sample needs at least one pair, got {text!r}")
    if pct and value > 100:
        raise ValueError(f"a percentage must be at most 100%, got {text!r}")
    if not pct and not value.is_integer():
        raise ValueError(f"a count must be a whole number, got {text!r}")
    return SampleSize(value, pct)


def parse_size(text: str) -> SampleSize:
    """``--size`` as a SampleSize; a UsageError (exit 2) naming the option otherwise."""
    try:
        return size_value(text)
    except ValueError as e:
        raise UsageError(f"--size: {e}") from None


def check_design(design: str) -> str:
    if design not in DESIGNS:
        raise UsageError(f"--design {design!r}: choose from {', '.join(DESIGNS)}")
    return design


def rankings(runs: Sequence[Any], depth: Optional[int] = None) -> dict[str, dict[str, list[str]]]:
    """Runs (``Run`` values, or pool inputs holding docids) as the designs read them: name -> qid ->
    docids in trec_eval order (the top ``depth`` when given)."""
    return {r.name: {q: [e if isinstance(e, str) else e.docid for e in entries[:depth]]
                     for q, entries in r.by_topic.items()} for r in runs}


def file_universe(runs: Sequence[Any], labels: Iterable[Pair], depth: int) -> list[Pair]:
    """Every labelled pair plus every pair in some run's top ``depth`` on the labelled topics, sorted
    (:func:`qrelkit.estimate.design.universe_of`, the universe an estimate from files is about)."""
    from qrelkit.estimate.design import universe_of

    return list(universe_of(labels, rankings(runs, depth), depth))


def top_census(runs: Sequence[Any], depth: Optional[int]) -> frozenset[Pair]:
    """The pairs some run ranks at or above ``depth`` (the hybrid pool's census; none without a depth)."""
    if not depth:
        return frozenset()
    return frozenset((qid, e if isinstance(e, str) else e.docid)
                     for run in runs for qid, entries in run.by_topic.items() for e in entries[:depth])


def draw(universe: Sequence[Pair], *, size: SampleSize, design: str, seed: int, runs: Sequence[Any] = (),
         judge_probability: Optional[Mapping[Pair, float]] = None, census: Iterable[Pair] = (),
         depth: int = 10) -> "Sample":
    """The estimator's draw (:func:`qrelkit.estimate.design.draw_sample`) at ``size`` of the non-census
    universe; refuses a design that cannot run here with a message saying what it needs."""
    from qrelkit.estimate.design import draw_sample

    check_design(design)
    census = frozenset(census) & frozenset(universe)
    available = len(universe) - len(census)
    if available <= 0:
        raise UsageError(f"nothing to sample: all {len(universe)} pairs of the universe are in the census "
                         "(people judge them all already)")
    if design == "active" and not judge_probability:
        raise UsageError("--design active weights pairs by the judge's uncertainty, which needs labels that carry a "
                         "probability (a workspace judged by learned, likelihood or confidence); use weighted or "
                         "uniform here")
    n = size.count(available)
    if n < 1:
        raise UsageError(f"--size {size} of {available} pairs is no pair at all: ask for more")
    if n > available:
        raise UsageError(f"--size {size} is more than the {available} pairs to draw from (the universe of "
                         f"{len(universe)} less {len(census)} census pairs)")
    return draw_sample(list(universe), size=n, design=design, seed=seed, runs=rankings(runs, depth) if runs else None,
                       judge_probability=judge_probability, census=census, depth=depth)


def fingerprint(pairs: Iterable[Pair]) -> str:
    """A short hash of a set of pairs: what the stored sample was drawn from."""
    h = hashlib.sha256()
    for q, d in sorted(set(pairs)):
        h.update(f"{q}\t{d}\n".encode())
    return h.hexdigest()[:16]


def record(store: "Store", sample: "Sample", spec: str, universe: Sequence[Pair]) -> int:
    """Store ``sample`` (its census as probability-1 rows) as the workspace's people's sample."""
    from qrelkit.store.samples import SampleRow

    rows = [SampleRow(p.qid, p.docid, p.probability) for p in sample.pairs]
    rows += [SampleRow(q, d, 1.0, census=True) for q, d in sorted(sample.census)]
    design = {"spec": spec, "design": sample.design, "seed": sample.seed, "size": len(sample.pairs),
              "depth": sample.depth, "universe": len(universe), "pool": fingerprint(universe)}
    return store.replace_people_sample(rows, design)


def judge_probabilities(store: "Store", method: Optional[str] = None) -> dict[Pair, float]:
    """P(relevant) the judge's labels carry (learned, confidence: ``probability``; likelihood: its
    score against its threshold through a logistic), by pair; empty when the labels carry none."""
    from qrelkit.types import Provenance

    out: dict[Pair, float] = {}
    for j in store.judgments(method=method) if method else store.judgments():
        if j.source == "human":
            continue
        prov = Provenance.parse(j.provenance)
        for key in ("learned", "confidence"):
            p = (prov.get(key) or {}).get("probability")
            if p is not None:
                out[(j.qid, j.docid)] = float(p)
        lk = prov.get("likelihood") or {}
        if lk.get("score") is not None and lk.get("threshold") is not None:
            out[(j.qid, j.docid)] = 1.0 / (1.0 + math.exp(-(float(lk["score"]) - float(lk["threshold"]))))
    return out


def census_of(cases: Sequence["Case"], depth: Optional[int]) -> frozenset[Pair]:
    """A pool's census: pairs the original qrels label and pairs some run ranks at or above ``depth``."""
    return frozenset((c.qid, c.docid) for c in cases if c.judged or (depth and c.best_rank <= depth))


def record_pool(store: "Store", allocation: Any, cases: Sequence["Case"], runs: Sequence[Any] = ()) -> int:
    """Store the sample a ``sample(...)`` people's share drew from the pooled ``cases`` (drawn again:
    the draw is a function of the pool, the spec and the seed, so it is the one that set the shares)."""
    from qrelkit.pooling.allocation import draw_for_pool

    sample = draw_for_pool(allocation, cases, runs)
    return record(store, sample, str(allocation), [(c.qid, c.docid) for c in cases])


def sample_workspace(store: "Store", size: SampleSize, design: str = "weighted", seed: int = 0,
                     human_depth: Optional[int] = None, method: Optional[str] = None) -> tuple["Sample", str]:
    """Draw the people's sample from the workspace's pool and make it the people's share: sampled
    and census pairs go to people (the app serves them), the rest to the judge; the draw is stored.
    ``human_depth``: the census depth (default: the pool's ``--human-depth``); ``method``: whose
    probabilities an ``active`` design reads (default: every judge's). Returns the sample and its spec."""
    import dataclasses

    from qrelkit.workspace import _pool_inputs

    cases = store.cases()
    if not cases:
        raise UsageError(f"{store.workspace}: the workspace has no pool yet; run `qrelkit pool -w {store.workspace}` "
                         "first (the sample is drawn from the pool)")
    pool = store.get_meta("pool") or {}
    depth = human_depth if human_depth is not None else pool.get("human_depth")
    stored = store.runs()
    runs = _pool_inputs([p for _, p, _ in stored], [n for n, _, _ in stored], pool.get("depth") or 10) \
        if design != "uniform" else []
    probabilities = judge_probabilities(store, method) if design == "active" else None
    universe = sorted((c.qid, c.docid) for c in cases)
    sample = draw(universe, size=size, design=design, seed=seed, runs=runs, judge_probability=probabilities,
                  census=census_of(cases, depth), depth=pool.get("depth") or 10)
    spec = f"sample(census={depth or 0},design={design},seed={seed},size={size})"
    people = {(p.qid, p.docid) for p in sample.pairs} | set(sample.census)
    with store.transaction():
        store.upsert_cases([dataclasses.replace(c, share="people" if (c.qid, c.docid) in people else "llm")
                            for c in cases])
        record(store, sample, spec, universe)
        store.set_meta("pool", {**pool, "human_depth": None, "allocation": spec})
    return sample, spec


def keep_sample(store: "Store") -> bool:
    """After a re-pool by another people's share: keep the stored sample, its pairs served to people
    again, while the pool is the one it was drawn from (its probabilities still hold); drop it when
    the pool has changed. Returns whether a sample is kept."""
    import dataclasses

    design = store.people_sample_design()
    if design is None:
        return False
    cases = store.cases()
    if fingerprint((c.qid, c.docid) for c in cases) != design.get("pool"):
        store.clear_people_sample()
        return False
    sampled = {(r.qid, r.docid) for r in store.people_sample()}
    store.upsert_cases([dataclasses.replace(c, share="people") for c in cases
                        if (c.qid, c.docid) in sampled and c.share != "people" and not c.judged])
    return True
