"""RAGAlign for several generators at once, with the system-level correlation.

Why: BRIDGE repeats RAGAlign with three generators to show that the gain from
hole filling does not hinge on one model, and reads the alignment at two
levels. Per (system, query) pair, :mod:`qrelkit.evaluate.ragalign` gives the
binary form (share of pairs where Hit@k equals generation correctness) and the
graded form (point-biserial r = (R̄₁ − R̄₀)/S.E.(R)·√(n₁n₀/(n(n−1))), with R
nDCG@k or R@k). Across systems, this module adds Pearson and Spearman
correlations between a system's mean retrieval score and its generation
accuracy (both over the same labelled queries): does the leaderboard of
retrievers predict the leaderboard of RAG pipelines?

Runs are scored once per qrels version and shared by every generator. A
generator is one correctness file (its name: the ``generator`` field that
``rag grade`` writes, else the file name) or one (generator, grader) pair of
the graded answers stored in a workspace.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional, Sequence

import numpy as np

from qrelkit.errors import UsageError
from qrelkit.evaluate.ragalign import GenerationLabel, VersionAlignment, align, read_generation
from qrelkit.evaluate.systems import DEFAULT_THRESHOLD, TopicScores, evaluate_versions, prepare_runs

if TYPE_CHECKING:
    from qrelkit.store import Store


@dataclass(frozen=True)
class Generator:
    """One generator's correctness labels, and where they came from."""

    name: str
    source: str
    labels: tuple[GenerationLabel, ...]


@dataclass(frozen=True)
class SystemCorrelation:
    """Across systems: mean retrieval ``measure`` vs generation accuracy."""

    measure: str
    systems: int
    pearson: Optional[float]
    pearson_p: Optional[float]
    spearman: Optional[float]
    spearman_p: Optional[float]

    def to_dict(self) -> dict:
        return {"systems": self.systems, "pearson": self.pearson, "pearson_p_value": self.pearson_p,
                "spearman": self.spearman, "spearman_p_value": self.spearman_p}


@dataclass(frozen=True)
class SystemPoint:
    """One system: generation accuracy and mean retrieval scores over its labelled queries."""

    system: str
    queries: int
    accuracy: float
    scores: tuple[tuple[str, float], ...]

    def score(self, measure: str) -> float:
        return dict(self.scores)[measure]


@dataclass(frozen=True)
class GeneratorVersion:
    alignment: VersionAlignment
    points: tuple[SystemPoint, ...]
    correlations: tuple[SystemCorrelation, ...]

    def to_dict(self) -> dict:
        d = self.alignment.to_dict()
        d["correlation"] = {c.measure: c.to_dict() for c in self.correlations}
        d["system_scores"] = {p.system: {"accuracy": p.accuracy, **dict(p.scores)} for p in self.points}
        return d


@dataclass(frozen=True)
class GeneratorAlignment:
    generator: str
    source: str
    versions: tuple[GeneratorVersion, ...]

    def to_dict(self) -> dict:
        return {"source": self.source, "versions": {v.alignment.qrels: v.to_dict() for v in self.versions}}


def read_generator(path: str) -> Generator:
    """A correctness file as one generator (see the module doc for its name)."""
    labels = read_generation(path)
    return Generator(_file_generator_name(path), str(path), labels)


def _file_generator_name(path: str) -> str:
    from qrelkit.data._open import first_content_line, strip_gz

    first = (first_content_line(path) or "").strip()
    if first.startswith("{"):
        try:
            name = json.loads(first).get("generator")
        except (json.JSONDecodeError, AttributeError):
            name = None
        if isinstance(name, str) and name.strip():
            return name.strip()
    return Path(strip_gz(Path(path).name)).stem


def generators_from_store(store: Store) -> tuple[Generator, ...]:
    """The workspace's graded answers, one generator per (generator, grader)."""
    by: dict[tuple[str, str], list[GenerationLabel]] = {}
    for g in store.rag_grades():
        if g.ok:
            by.setdefault((g.generator, g.grader), []).append(GenerationLabel(g.system, g.qid, int(g.correct)))
    graders: dict[str, int] = {}
    for gen, _ in by:
        graders[gen] = graders.get(gen, 0) + 1
    return tuple(
        Generator(gen if graders[gen] == 1 else f"{gen} (graded by {grader})",
                  f"workspace:{gen}|{grader}", tuple(labels))
        for (gen, grader), labels in sorted(by.items())
    )


def unique_generators(gens: Sequence[Generator]) -> tuple[Generator, ...]:
    out: list[Generator] = []
    for g in gens:
        name, i = g.name, 2
        while any(o.name == name for o in out):
            name, i = f"{g.name}-{i}", i + 1
        out.append(Generator(name, g.source, g.labels))
    return tuple(out)


def system_points(scores: TopicScores, labels: Sequence[GenerationLabel], measures: Sequence[str]) -> tuple[SystemPoint, ...]:
    """Per system, over the labelled queries that the qrels version scores."""
    t_index = {t: i for i, t in enumerate(scores.topics)}
    mats = {m: scores.of(m) for m in measures}
    out = []
    for si, system in enumerate(scores.systems):
        mine = [(t_index[g.qid], g.correct) for g in labels if g.system == system and g.qid in t_index]
        if not mine:
            continue
        ti = np.array([t for t, _ in mine])
        acc = float(np.mean([c for _, c in mine]))
        out.append(SystemPoint(system, len(mine), acc, tuple((m, float(mats[m][si, ti].mean())) for m in measures)))
    return tuple(out)


def system_correlation(points: Sequence[SystemPoint], measure: str) -> SystemCorrelation:
    from scipy.stats import pearsonr, spearmanr

    x = np.array([p.score(measure) for p in points])
    y = np.array([p.accuracy for p in points])
    if len(points) < 3 or np.all(x == x[0]) or np.all(y == y[0]):
        return SystemCorrelation(measure, len(points), None, None, None, None)  # undefined without variation
    pr, sr = pearsonr(x, y), spearmanr(x, y)
    return SystemCorrelation(measure, len(points), *map(_finite, (pr.statistic, pr.pvalue, sr.statistic, sr.pvalue)))


def _finite(v: float) -> Optional[float]:
    return None if v is None or math.isnan(float(v)) else float(v)


def rag_align_multi(
    runs: Sequence[Any],
    versions: Sequence[tuple[str, Any]],
    generators: Sequence[Generator],
    k: int = 10,
    threshold: int = DEFAULT_THRESHOLD,
) -> tuple[GeneratorAlignment, ...]:
    """RAGAlign@k and the system-level correlations of every generator under every qrels version."""
    if k < 1:
        raise UsageError("--k must be at least 1")
    if not generators:
        raise UsageError("no generation labels: pass --generation FILE or a workspace with graded answers")
    prepared = prepare_runs(runs)
    systems = {g.system for gen in generators for g in gen.labels}
    unknown = sorted(systems - set(prepared.names))
    if unknown:
        raise UsageError(
            f"the generation labels name system(s) with no run: {', '.join(unknown[:10])}; "
            f"runs are named {', '.join(prepared.names[:10])}{' ...' if len(prepared.names) > 10 else ''}"
        )
    measures = [f"Success@{k}", f"nDCG@{k}", f"R@{k}"]
    used = [r for r in prepared.runs if r.name in systems]
    scored = evaluate_versions(used, versions, measures, threshold)
    out = []
    for gen in unique_generators(generators):
        per_version = []
        for s in scored:
            points = system_points(s, gen.labels, measures)
            cors = tuple(system_correlation(points, m) for m in measures)
            per_version.append(GeneratorVersion(align(s, gen.labels, k), points, cors))
        out.append(GeneratorAlignment(gen.name, gen.source, tuple(per_version)))
    return tuple(out)
