"""System evaluation: runs x qrels versions -> per-topic scores, through ir_measures.

Why it is built this way:

- ir_measures (backed by pytrec_eval) computes every score, so that numbers
  match what the field reports; nothing here re-implements a measure.
- Binary measures need a relevance level. TREC DL grades are 0-3 and binary
  relevance starts at 2, so every measure that takes ``rel`` (P, RR, R, AP,
  Success, ...) gets ``rel=threshold`` (default 2) unless the user wrote one
  explicitly. The JSON key stays the name the user asked for (``P@10``), so
  keys are stable while the level is an option. nDCG uses the grades as gains
  and has no relevance level; Judged@k counts any label.
- Speed: a run is parsed once (by the reader) and, for each cut-off k among the
  requested measures, truncated once to its top-k in trec_eval order. Scoring
  the top-k is exactly scoring the whole list for a measure cut at k, and it
  spares pytrec_eval from converting a thousand entries per topic for P@10.
  One ir_measures evaluator is built per (qrels version, cut-off group).
- Memory (benchmarks/scale.py, 20 runs, 2 qrels versions): ``qrelkit
  evaluate`` peaked at 1,480 MB at 10^6 pooled pairs (927 MB now, same
  output), much of it outside the scoring: scipy's Wilcoxon over 190 system pairs x 25,075 topics in one call
  (about ten temporary copies; now a block of pairs at a time, see
  :mod:`qrelkit.evaluate.significance`), and the ``(qid, docid) -> grade`` pair
  dicts (250 bytes a label) kept beside the scorers' own ``{qid: {docid:
  grade}}`` (the command now drops them once the scorers are built). What
  grows still is the qrels: each pytrec_eval invocation holds a C++ copy (55
  bytes a label; four per version for the default measures, see
  :class:`VersionScorer`), plus one run being scored (25,075 topics x 20
  entries at 10^6).
- Topics are those of the qrels; a topic the run did not answer scores 0
  (as ``trec_eval -c``), so that every system is averaged over the same topics.
- Ties: runs arrive in trec_eval order (score descending, docid descending);
  ir_measures gets the negated positions as scores, because its providers do
  not all break ties as trec_eval does (RR@k goes through the MS MARCO
  provider). Every measure thus sees the order trec_eval would.
- Judged-only (condensed lists, Sakai 2007): unjudged documents are removed
  from each list before truncation and scoring.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional, Sequence

import numpy as np

from qrelkit.data.qrels import PairGrades, as_pairs
from qrelkit.errors import UsageError

Pair = tuple[str, str]

DEFAULT_MEASURES: tuple[str, ...] = ("nDCG@10", "P@10", "RR@10", "R@100", "AP@1000", "Success@10", "Judged@10")
DEFAULT_THRESHOLD = 2


@dataclass(frozen=True)
class MeasureSpec:
    """A requested measure: the key the user sees and the ir_measures measure
    actually computed (with the relevance level filled in)."""

    key: str
    measure: Any  # ir_measures Measure
    cutoff: Optional[int]


@dataclass(frozen=True, eq=False)
class TopicScores:
    """Per-topic scores of several systems under one qrels version.

    ``values[m, s, t]`` is measure ``measures[m]`` of system ``systems[s]`` on
    topic ``topics[t]``. Everything downstream (bootstrap, significance,
    stability) needs the per-topic matrix, not just the means."""

    label: str
    systems: tuple[str, ...]
    topics: tuple[str, ...]
    measures: tuple[str, ...]
    values: np.ndarray
    threshold: int = DEFAULT_THRESHOLD
    judged_only: bool = False

    def of(self, measure: str) -> np.ndarray:
        """``[system, topic]`` matrix of one measure."""
        try:
            return self.values[self.measures.index(measure)]
        except ValueError:
            raise UsageError(f"measure {measure!r} was not computed; have {', '.join(self.measures)}") from None

    def means(self, measure: str) -> np.ndarray:
        m = self.of(measure)
        return m.mean(axis=1) if m.shape[1] else np.zeros(m.shape[0])

    def mean_of(self, system: str, measure: str) -> float:
        return float(self.means(measure)[self.systems.index(system)])

    def subset(self, systems: Optional[Sequence[str]] = None, topics: Optional[Sequence[str]] = None) -> "TopicScores":
        """The same scores restricted (and re-ordered) to some systems/topics,
        so that two versions can be compared pair by pair."""
        si = [self.systems.index(s) for s in systems] if systems is not None else list(range(len(self.systems)))
        if topics is not None:  # a dict, not tuple.index: 25,000 topics made that quadratic
            t_pos = {t: i for i, t in enumerate(self.topics)}
            ti = [t_pos[t] if t in t_pos else self.topics.index(t) for t in topics]
        else:
            ti = list(range(len(self.topics)))
        return TopicScores(
            self.label,
            tuple(self.systems[i] for i in si),
            tuple(self.topics[i] for i in ti),
            self.measures,
            self.values[:, si][:, :, ti],
            self.threshold,
            self.judged_only,
        )

    def to_dict(self) -> dict:
        """``{"qrels": label, "systems": {name: {measure: mean}}}``."""
        means = {m: self.means(m) for m in self.measures}
        return {
            "qrels": self.label,
            "topics": len(self.topics),
            "threshold": self.threshold,
            "judged_only": self.judged_only,
            "systems": {
                s: {m: float(means[m][i]) for m in self.measures} for i, s in enumerate(self.systems)
            },
        }


def resolve_measures(names: Iterable[str] = DEFAULT_MEASURES, threshold: int = DEFAULT_THRESHOLD) -> tuple[MeasureSpec, ...]:
    """Parse measure names in ir_measures syntax and give binary measures the
    relevance level ``threshold`` unless the name sets ``rel`` itself."""
    import ir_measures

    out = []
    seen = set()
    for name in names:
        name = name.strip()
        if not name or name in seen:
            continue
        seen.add(name)
        try:
            m = ir_measures.parse_measure(name)
        except Exception as e:  # ir_measures raises assorted errors for bad syntax
            raise UsageError(f"unknown measure {name!r} ({e}); use ir_measures syntax, e.g. nDCG@10, P@10, AP") from None
        if "rel" in m.SUPPORTED_PARAMS and "rel" not in m.params:
            m = m(rel=threshold)
        cutoff = m.params.get("cutoff")
        out.append(MeasureSpec(name, m, int(cutoff) if cutoff is not None else None))
    if not out:
        raise UsageError("no measures given")
    return tuple(out)


def qrels_dict(pairs: Mapping[Pair, int]) -> dict[str, dict[str, int]]:
    """``{qid: {docid: grade}}``: the shape pytrec_eval wants.

    trec_eval sizes its per-grade arrays by a topic's largest grade plus one, so a topic whose
    grades are all below -1 (only -2 "junk" labels) crashes pytrec_eval 0.5 with a segmentation
    fault. Every negative grade is non-relevant, and unjudged for trec_eval's -J
    alike, so such a topic's grades are given to it as -1: the same scores, no crash.
    A :class:`~qrelkit.data.qrels.PairGrades` (integer grades from the store) is already in this
    shape: its topics are shared, not copied (a topic given as -1 is a new dict)."""
    out: dict[str, dict[str, int]] = {}
    if isinstance(pairs, PairGrades):
        out = dict(pairs.by_topic)
    else:
        for (qid, docid), grade in pairs.items():
            out.setdefault(qid, {})[docid] = int(grade)
    for qid, grades in out.items():
        if max(grades.values()) < -1:
            out[qid] = dict.fromkeys(grades, -1)
    return out


@dataclass(eq=False)
class PreparedRuns:
    """Runs as pytrec_eval input, truncated per cut-off and cached, so that
    many qrels versions reuse the conversion. Built from reader ``Run`` objects
    (anything with ``.name`` and ``.by_topic``: qid -> entries in trec_eval order)."""

    names: tuple[str, ...]
    runs: tuple[Any, ...]
    _cache: dict = field(default_factory=dict, repr=False)

    def docids(self) -> list[dict[str, tuple[str, ...]]]:
        """Each run as ``{qid: docids in trec_eval order}`` (cached)."""
        if "docids" not in self._cache:
            self._cache["docids"] = [
                {q: tuple(e.docid for e in entries) for q, entries in r.by_topic.items()} for r in self.runs
            ]
        return self._cache["docids"]

    def dicts_of(self, index: int, cutoff: Optional[int], topics: frozenset[str]) -> dict:
        """Run ``index`` as pytrec_eval input for its top ``cutoff``, restricted to
        ``topics``; the conversion per cut-off is cached for later qrels versions."""
        key = ("dicts", cutoff)
        if key not in self._cache:
            self._cache[key] = [{q: _ordered(d[:cutoff]) for q, d in r.items()} for r in self.docids()]
        return {q: d for q, d in self._cache[key][index].items() if q in topics and d}


def _ordered(docids: Sequence[str]) -> dict[str, float]:
    """``{docid: score}`` where the score is the negated position: ir_measures'
    providers break score ties differently (pytrec_eval by docid, the MS MARCO
    RR provider otherwise), so they are handed the trec_eval order, tie-free."""
    return {d: float(-i) for i, d in enumerate(docids)}


def prepare_runs(runs: Sequence[Any]) -> PreparedRuns:
    if isinstance(runs, PreparedRuns):
        return runs
    names = tuple(r.name for r in runs)
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise UsageError(f"several runs are named {', '.join(dup)}; run names must be unique")
    return PreparedRuns(names, tuple(runs))


class VersionScorer:
    """The ir_measures evaluators of one qrels version, one per cut-off group,
    built once and applied to one run at a time: scoring streams runs, so that
    memory holds one run, not all of them (benchmarks/scale.py).

    Only the ``{qid: {docid: grade}}`` form of the qrels is kept (the judged
    provider holds it anyway), not the caller's pair dict. Each pytrec_eval
    invocation copies the qrels into C++ maps (55 bytes a label, measured), so
    one evaluator for all cut-offs would hold two copies instead of four for the
    default measures (150 MB less at 10^6 pairs); it was tried and left: each
    measure then sees the run to the largest cut-off, and scoring the 61 TREC DL
    2019 runs took 2.5x as long (5.9 s -> 14.6 s, same load)."""

    def __init__(
        self, qrels: Mapping[Pair, int], specs: Sequence[MeasureSpec], judged_only: bool = False,
        topics: Optional[Sequence[str]] = None,
    ):
        import ir_measures

        qd = qrels_dict(as_pairs(qrels))
        self.topics = tuple(sorted(topics if topics is not None else qd))
        self.topic_set = frozenset(self.topics)
        qd = {q: v for q, v in qd.items() if q in self.topic_set}
        self.judged = qd  # the labelled docids per topic, for condensed lists
        self.t_index = {q: i for i, q in enumerate(self.topics)}
        self.specs = tuple(specs)
        self.judged_only = judged_only
        groups: dict[Optional[int], list[int]] = {}
        for i, sp in enumerate(self.specs):
            groups.setdefault(sp.cutoff, []).append(i)
        self.groups = [
            (cutoff, ir_measures.evaluator([self.specs[i].measure for i in idx], qd), _rows_of(self.specs, idx))
            for cutoff, idx in groups.items()
        ]

    def run_dict(self, docids: Mapping[str, Sequence[str]], cutoff: Optional[int]) -> dict:
        """``{qid: {docid: -position}}`` of the topics scored, top ``cutoff``
        (of the judged documents only, for condensed lists)."""
        out = {}
        for q, docs in docids.items():
            if q not in self.topic_set:
                continue
            if self.judged_only:
                labelled = self.judged.get(q, {})
                docs = [d for d in docs if d in labelled]
            if docs:  # pytrec_eval rejects empty rankings
                out[q] = _ordered(docs[:cutoff])
        return out

    def score(self, docids: Mapping[str, Sequence[str]], dicts: Optional[dict] = None) -> np.ndarray:
        """``[measure, topic]`` scores of one run given as ``{qid: docids in trec_eval order}``;
        ``dicts`` may hold already converted run dicts per cut-off."""
        values = np.zeros((len(self.specs), len(self.topics)))
        for cutoff, evaluator, m_index in self.groups:
            rd = dicts[cutoff] if dicts is not None else self.run_dict(docids, cutoff)
            if not rd:
                continue
            for metric in evaluator.iter_calc(rd):
                ti = self.t_index.get(metric.query_id)
                rows = m_index.get(metric.measure)
                if rows is None:  # equal but not identical measure: compare by name
                    rows = {str(k): v for k, v in m_index.items()}.get(str(metric.measure), [])
                if ti is not None:
                    values[rows, ti] = metric.value
        return values


def _rows_of(specs: Sequence[MeasureSpec], idx: Sequence[int]) -> dict[Any, list[int]]:
    """Measure -> the rows it fills (iter_calc hands back these objects); a measure
    asked for under two names (``P@10`` and ``P(rel=2)@10``) fills both."""
    rows: dict[Any, list[int]] = {}
    for i in idx:
        rows.setdefault(specs[i].measure, []).append(i)
    return rows


def version_scorers(
    versions: Sequence[tuple[str, Mapping[Pair, int]]], specs: Sequence[MeasureSpec], judged_only: bool = False,
) -> list[tuple[str, VersionScorer]]:
    """A scorer per named qrels version. The scorers keep no reference to the
    pair dicts, so a caller that drops its own can free them before scoring."""
    return [(label, VersionScorer(q, specs, judged_only)) for label, q in versions]


def evaluate_runs(
    runs: Sequence[Any] | PreparedRuns,
    qrels: Mapping[Pair, int],
    measures: Iterable[str] | Sequence[MeasureSpec] = DEFAULT_MEASURES,
    threshold: int = DEFAULT_THRESHOLD,
    judged_only: bool = False,
    label: str = "qrels",
    topics: Optional[Sequence[str]] = None,
) -> TopicScores:
    """Score every run on every topic of ``qrels`` (or of ``topics``) with ir_measures."""
    prepared = prepare_runs(runs)
    scorer = VersionScorer(qrels, _specs(measures, threshold), judged_only, topics)
    values = np.zeros((len(scorer.specs), len(prepared.names), len(scorer.topics)))
    for s, docids in enumerate(prepared.docids()):
        dicts = None
        if not judged_only:
            dicts = {c: prepared.dicts_of(s, c, scorer.topic_set) for c, _, _ in scorer.groups}
        values[:, s, :] = scorer.score(docids, dicts)
    return TopicScores(
        label, prepared.names, scorer.topics, tuple(sp.key for sp in scorer.specs), values, threshold, judged_only
    )


def evaluate_versions(
    runs: Sequence[Any] | PreparedRuns,
    versions: Sequence[tuple[str, Mapping[Pair, int]]],
    measures: Iterable[str] = DEFAULT_MEASURES,
    threshold: int = DEFAULT_THRESHOLD,
    judged_only: bool = False,
) -> tuple[TopicScores, ...]:
    """Every run under every qrels version, parsing and truncating runs once."""
    prepared = prepare_runs(runs)
    specs = _specs(measures, threshold)
    return tuple(
        evaluate_runs(prepared, q, specs, threshold, judged_only, label=name) for name, q in versions
    )


def evaluate_stream(
    rankings: Iterable[Any],
    versions: Sequence[tuple[str, Mapping[Pair, int]]],
    measures: Iterable[str] | Sequence[MeasureSpec] = DEFAULT_MEASURES,
    threshold: int = DEFAULT_THRESHOLD,
    judged_only: bool = False,
) -> tuple[TopicScores, ...]:
    """Every run under every qrels version, reading runs one at a time.

    ``rankings`` yields objects with ``.name`` and ``.docids`` (``{qid: docids in
    trec_eval order}``, see :mod:`qrelkit.data.rankings`); a run is scored under
    all versions and dropped before the next is read, so memory is one run plus
    the scores. Run names must be unique (settle them before, or rename after)."""
    return score_stream(rankings, version_scorers(versions, _specs(measures, threshold), judged_only), threshold)


def score_stream(
    rankings: Iterable[Any], scorers: Sequence[tuple[str, VersionScorer]], threshold: int = DEFAULT_THRESHOLD,
) -> tuple[TopicScores, ...]:
    """:func:`evaluate_stream` over scorers built before (:func:`version_scorers`),
    for a caller that frees its qrels pair dicts first (``qrelkit evaluate``)."""
    names: list[str] = []
    columns: list[list[np.ndarray]] = [[] for _ in scorers]
    for ranking in rankings:
        names.append(ranking.name)
        for col, (_, scorer) in zip(columns, scorers):
            col.append(scorer.score(ranking.docids))
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise UsageError(f"several runs are named {', '.join(dup)}; run names must be unique")
    out = []
    for col, (label, scorer) in zip(columns, scorers):
        keys = tuple(sp.key for sp in scorer.specs)
        values = np.stack(col, axis=1) if col else np.zeros((len(keys), 0, len(scorer.topics)))
        out.append(TopicScores(label, tuple(names), scorer.topics, keys, values, threshold, scorer.judged_only))
    return tuple(out)


@dataclass(frozen=True)
class SystemShift:
    """How one system moved between two qrels versions (rank 1 is best)."""

    system: str
    score_a: float
    score_b: float
    delta: float
    rank_a: int
    rank_b: int
    rank_shift: int  # positive = moved up


def system_ranks(means: np.ndarray) -> np.ndarray:
    """1-based competition ranks ("1224"): equal scores share the better rank."""
    from scipy.stats import rankdata

    return rankdata(-np.asarray(means, dtype=float), method="min").astype(int)


def score_shifts(a: TopicScores, b: TopicScores, measure: str) -> tuple[SystemShift, ...]:
    """Score deltas and rank shifts of the systems both versions scored,
    sorted by the rank in ``b``."""
    systems = [s for s in a.systems if s in b.systems]
    ma = a.subset(systems).means(measure)
    mb = b.subset(systems).means(measure)
    ra, rb = system_ranks(ma), system_ranks(mb)
    out = [
        SystemShift(s, float(ma[i]), float(mb[i]), float(mb[i] - ma[i]), int(ra[i]), int(rb[i]), int(ra[i] - rb[i]))
        for i, s in enumerate(systems)
    ]
    return tuple(sorted(out, key=lambda x: (x.rank_b, x.system)))


def _specs(measures: Iterable[Any], threshold: int) -> tuple[MeasureSpec, ...]:
    measures = tuple(measures)
    if measures and all(isinstance(m, MeasureSpec) for m in measures):
        return measures  # type: ignore[return-value]
    return resolve_measures(measures, threshold)
