"""RAG alignment: does the retrieval evaluation agree with whether the
generated answer was correct?

Why: in a RAG system a qrels version is useful if retrieval quality predicts
answer quality. RAGAlign@k, binary form: over (system, query) pairs, the
fraction where the binary retrieval outcome Hit@k (ir_measures' Success@k,
relevant = grade >= threshold) equals generation correctness. Graded form:
the point-biserial correlation (scipy) between a graded retrieval measure
(nDCG@k, R@k) and correctness. Computed per qrels version, so filled qrels can
be compared with the original side by side.

Generation file: TSV ``system<TAB>qid<TAB>correct`` (``correct`` 0/1, true/false;
an optional header line ``system qid correct``) or JSONL objects with keys
``system``, ``qid`` and ``correct``. Errors name the file and line.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Optional, Sequence

import numpy as np

from qrelkit.errors import InputError, UsageError
from qrelkit.evaluate.systems import DEFAULT_THRESHOLD, TopicScores, evaluate_versions, prepare_runs

_TRUE = {"1", "true", "yes", "correct"}
_FALSE = {"0", "false", "no", "incorrect"}


@dataclass(frozen=True)
class GenerationLabel:
    system: str
    qid: str
    correct: int


def read_generation(path: str) -> tuple[GenerationLabel, ...]:
    """Read generation correctness (see module doc for the formats)."""
    from qrelkit.data._open import iter_lines

    out: dict[tuple[str, str], tuple[int, int]] = {}
    for lineno, line in iter_lines(path):
        stripped = line.strip()
        if stripped.startswith("{"):
            try:
                obj = json.loads(stripped)
            except json.JSONDecodeError as e:
                raise InputError(path, lineno, f"not valid JSON: {e.msg}") from None
            except RecursionError:
                raise InputError(path, lineno, "not valid JSON: nested too deeply") from None
            if not isinstance(obj, dict):
                raise InputError(path, lineno, f"expected a JSON object, got {type(obj).__name__}")
            missing = [k for k in ("system", "qid", "correct") if k not in obj]
            if missing:
                raise InputError(path, lineno, f"missing key(s) {', '.join(missing)}")
            system, qid, value = str(obj["system"]), str(obj["qid"]), obj["correct"]
        else:
            cols = line.split("\t")
            if len(cols) != 3:
                cols = line.split()
            if len(cols) != 3:
                raise InputError(path, lineno, f"expected 3 columns (system qid correct), got {len(cols)}")
            system, qid, value = (c.strip() for c in cols)
            if lineno == 1 and (system.lower(), qid.lower(), str(value).lower()) == ("system", "qid", "correct"):
                continue
        correct = _bool(value)
        if correct is None:
            raise InputError(path, lineno, f"correct must be 0 or 1 (or true/false), got {value!r}")
        if not system or not qid:
            raise InputError(path, lineno, "empty system or qid")
        key = (system, qid)
        if key in out and out[key][0] != correct:
            raise InputError(path, lineno, f"conflicting correctness for system {system!r}, query {qid!r} "
                                           f"(line {out[key][1]} says {out[key][0]})")
        out.setdefault(key, (correct, lineno))
    if not out:
        raise InputError(path, None, "no generation labels")
    return tuple(GenerationLabel(s, q, c) for (s, q), (c, _) in out.items())


def _bool(value: Any) -> Optional[int]:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)) and value in (0, 1):
        return int(value)
    text = str(value).strip().lower()
    if text in _TRUE:
        return 1
    if text in _FALSE:
        return 0
    return None


@dataclass(frozen=True)
class Correlation:
    measure: str
    r: Optional[float]
    p_value: Optional[float]


@dataclass(frozen=True)
class Alignment:
    """RAGAlign figures for one group of (system, query) pairs."""

    name: str
    queries: int
    correct_rate: Optional[float]
    hit_rate: Optional[float]
    ragalign: Optional[float]
    pointbiserial: tuple[Correlation, ...]

    def to_dict(self) -> dict:
        return {
            "queries": self.queries,
            "correct_rate": self.correct_rate,
            "hit_rate": self.hit_rate,
            "ragalign": self.ragalign,
            "pointbiserial": {c.measure: {"r": c.r, "p_value": c.p_value} for c in self.pointbiserial},
        }


@dataclass(frozen=True)
class VersionAlignment:
    qrels: str
    k: int
    overall: Alignment
    systems: tuple[Alignment, ...]

    def to_dict(self) -> dict:
        d = {"qrels": self.qrels, "k": self.k, **self.overall.to_dict()}
        d["systems"] = {a.name: a.to_dict() for a in self.systems}
        return d


def align(
    scores: TopicScores, labels: Sequence[GenerationLabel], k: int = 10
) -> VersionAlignment:
    """RAGAlign@k from per-topic scores that include Success@k, nDCG@k and R@k."""
    hit_key, graded = f"Success@{k}", (f"nDCG@{k}", f"R@{k}")
    t_index = {t: i for i, t in enumerate(scores.topics)}
    s_index = {s: i for i, s in enumerate(scores.systems)}
    rows = [(s_index[g.system], t_index[g.qid], g.correct, g.system)
            for g in labels if g.system in s_index and g.qid in t_index]
    hit = scores.of(hit_key)
    gvals = [scores.of(m) for m in graded]

    def group(name: str, sel: list) -> Alignment:
        if not sel:
            return Alignment(name, 0, None, None, None, tuple(Correlation(m, None, None) for m in graded))
        si = np.array([r[0] for r in sel])
        ti = np.array([r[1] for r in sel])
        corr = np.array([r[2] for r in sel], dtype=float)
        h = (hit[si, ti] > 0).astype(float)
        cors = tuple(Correlation(m, *_pointbiserial(corr, g[si, ti])) for m, g in zip(graded, gvals))
        return Alignment(name, len(sel), float(corr.mean()), float(h.mean()), float((h == corr).mean()), cors)

    per_system = tuple(
        group(s, [r for r in rows if r[3] == s]) for s in scores.systems if any(r[3] == s for r in rows)
    )
    return VersionAlignment(scores.label, k, group("all", rows), per_system)


def _pointbiserial(correct: np.ndarray, values: np.ndarray) -> tuple[Optional[float], Optional[float]]:
    from scipy.stats import pointbiserialr

    if len(correct) < 3 or np.all(correct == correct[0]) or np.all(values == values[0]):
        return None, None  # undefined without variation on both sides
    res = pointbiserialr(correct, values)
    r, p = float(res.statistic), float(res.pvalue)
    return (None if math.isnan(r) else r), (None if math.isnan(p) else p)


def rag_align(
    runs: Sequence[Any],
    versions: Sequence[tuple[str, Any]],
    labels: Sequence[GenerationLabel],
    k: int = 10,
    threshold: int = DEFAULT_THRESHOLD,
) -> tuple[VersionAlignment, ...]:
    """RAGAlign@k of the runs under each qrels version (name, qrels)."""
    if k < 1:
        raise UsageError("--k must be at least 1")
    prepared = prepare_runs(runs)
    systems = {g.system for g in labels}
    unknown = sorted(systems - set(prepared.names))
    if unknown:
        raise UsageError(
            f"the generation file names system(s) with no run: {', '.join(unknown[:10])}; "
            f"runs are named {', '.join(prepared.names[:10])}{' ...' if len(prepared.names) > 10 else ''}"
        )
    used = [r for r in prepared.runs if r.name in systems]
    scored = evaluate_versions(used, versions, [f"Success@{k}", f"nDCG@{k}", f"R@{k}"], threshold)
    return tuple(align(s, labels, k) for s in scored)
