"""Pool-bias simulation on real data: leave one group of runs out of the pool.

Why: the classic test of a collection's reusability (Zobel 1998; Voorhees
2001; Buckley et al. 2007). For each group of runs (one participant's runs are
correlated, so they leave together), remove from the qrels the labels that
only that group contributed to the depth-k pool, re-evaluate, and see how the
group's scores and ranks move: that is how a new system that did not
contribute to the pool is treated. The dropped pairs with their hidden labels
are also the natural test bed for hole filling: judge them and compare with
the labels that were hidden (:func:`dropped_pairs`).

Definitions:
- group of a run: the name up to the first digit, underscore or hyphen
  (``ICT-BERT2`` -> ``ICT``, ``bm25base_p`` -> ``bm``, ``idst_bert_p1`` ->
  ``idst``), or a mapping file (JSON/TOML object or TSV ``run<TAB>group``).
- dropped pairs of a group: labelled pairs in the top-``depth`` of some run of
  the group and of no run outside it. Labels no run pooled at that depth (deeper
  judgments) are kept.
- ranks: every run is re-evaluated with the reduced qrels and all runs are
  ranked again (rank 1 best, ties share the better rank); only topics that
  lost labels are re-scored, the others keep their full-qrels scores.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from qrelkit.data.qrels import as_pairs
from qrelkit.errors import InputError, UsageError
from qrelkit.evaluate.correlation import kendall_tau
from qrelkit.evaluate.systems import (
    DEFAULT_THRESHOLD,
    TopicScores,
    evaluate_runs,
    prepare_runs,
    resolve_measures,
    system_ranks,
)
from qrelkit.types import Qrel

Pair = tuple[str, str]
DEFAULT_LEAVEOUT_MEASURES = ("nDCG@10", "P@10", "AP@1000")

_PREFIX = re.compile(r"[^0-9_\-]+")


def group_of(run_name: str) -> str:
    """The run tag up to the first digit, underscore or hyphen (see module doc)."""
    m = _PREFIX.match(run_name)
    return m.group(0) if m else run_name


def read_groups(path: str | Path) -> dict[str, str]:
    """A run -> group mapping: JSON or TOML object, or TSV ``run<TAB>group`` lines."""
    from qrelkit.data._open import read_text

    p = Path(path)
    text = read_text(p)  # missing, a folder, binary: an InputError naming the file
    suffix = p.suffix.lower()
    if suffix in (".json", ".toml"):
        try:
            if suffix == ".json":
                obj = json.loads(text)
            else:
                import tomllib

                obj = tomllib.loads(text)
        except (ValueError, json.JSONDecodeError) as e:
            line = getattr(e, "lineno", None)
            raise InputError(p, line, f"not valid {suffix[1:].upper()}: {e}") from None
        except RecursionError:
            raise InputError(p, None, f"not valid {suffix[1:].upper()}: nested too deeply") from None
        if not isinstance(obj, dict) or not all(isinstance(v, str) for v in obj.values()):
            raise InputError(p, None, "expected an object mapping run names to group names (strings)")
        return {str(k): v for k, v in obj.items()}
    out: dict[str, str] = {}
    for i, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cols = line.split("\t") if "\t" in line else line.split()
        if len(cols) != 2 or not cols[0].strip() or not cols[1].strip():
            raise InputError(p, i, "expected two columns: run<TAB>group")
        out[cols[0].strip()] = cols[1].strip()
    return out


def assign_groups(run_names: Sequence[str], mapping: Optional[Mapping[str, str]] = None) -> dict[str, str]:
    """Group of every run: from ``mapping`` when given (every run must be in it), else by prefix."""
    if mapping is None:
        return {n: group_of(n) for n in run_names}
    missing = [n for n in run_names if n not in mapping]
    if missing:
        raise UsageError(f"the groups file names no group for run(s): {', '.join(missing[:10])}")
    return {n: mapping[n] for n in run_names}


@dataclass(frozen=True)
class GroupDrop:
    """The labels only one group contributed to the depth-k pool (the hidden labels)."""

    group: str
    runs: tuple[str, ...]
    depth: int
    dropped: tuple[Qrel, ...]
    relevant: int  # dropped labels with grade >= threshold

    @property
    def pairs(self) -> frozenset[Pair]:
        return frozenset((q.qid, q.docid) for q in self.dropped)


def dropped_pairs(
    runs: Sequence[Any],
    qrels: Mapping[Pair, int],
    depth: int = 10,
    groups: Optional[Mapping[str, str]] = None,
    threshold: int = DEFAULT_THRESHOLD,
) -> tuple[GroupDrop, ...]:
    """For every group, the labelled pairs pooled only by that group's runs."""
    pairs = as_pairs(qrels)
    names = [r.name for r in runs]
    group = assign_groups(names, groups)
    contributors: dict[Pair, set[str]] = {}
    for run in runs:
        g = group[run.name]
        for q, entries in run.by_topic.items():
            for e in entries[:depth]:
                key = (q, e.docid)
                if key in pairs:
                    contributors.setdefault(key, set()).add(g)
    by_group: dict[str, list[Qrel]] = {g: [] for g in sorted(set(group.values()))}
    for key, gs in contributors.items():
        if len(gs) == 1:
            by_group[next(iter(gs))].append(Qrel(key[0], key[1], int(pairs[key])))
    out = []
    for g, dropped in by_group.items():
        dropped.sort(key=lambda x: (x.qid, x.docid))
        out.append(GroupDrop(
            g, tuple(n for n in names if group[n] == g), depth, tuple(dropped),
            sum(1 for x in dropped if x.grade >= threshold),
        ))
    return tuple(out)


@dataclass(frozen=True)
class LeftOutRun:
    run: str
    scores_full: tuple[float, ...]  # per measure, in LeaveOut.measures order
    scores_left_out: tuple[float, ...]
    rank_full: int
    rank_left_out: int

    @property
    def rank_shift(self) -> int:
        """Positive when the run moved down (a worse rank) once its labels were gone."""
        return self.rank_left_out - self.rank_full


@dataclass(frozen=True)
class LeftOutGroup:
    group: str
    dropped: int
    dropped_relevant: int
    kendall_tau: float  # all runs: full vs reduced qrels ranking (rank measure)
    runs: tuple[LeftOutRun, ...]


@dataclass(frozen=True)
class LeaveOut:
    depth: int
    threshold: int
    measures: tuple[str, ...]
    rank_measure: str
    systems: int
    groups: tuple[LeftOutGroup, ...]

    def to_dict(self) -> dict:
        groups = []
        all_deltas = []
        for g in self.groups:
            runs = []
            for r in g.runs:
                d = {"run": r.run}
                for i, m in enumerate(self.measures):
                    d[m] = {
                        "full": r.scores_full[i], "left_out": r.scores_left_out[i],
                        "delta": r.scores_left_out[i] - r.scores_full[i],
                    }
                d.update({"rank_full": r.rank_full, "rank_left_out": r.rank_left_out, "rank_shift": r.rank_shift})
                runs.append(d)
                all_deltas.append(r.scores_left_out[0] - r.scores_full[0])
            groups.append({
                "group": g.group, "dropped": g.dropped, "dropped_relevant": g.dropped_relevant,
                "kendall_tau": None if np.isnan(g.kendall_tau) else g.kendall_tau, "runs": runs,
            })
        shifts = [r.rank_shift for g in self.groups for r in g.runs]
        return {
            "depth": self.depth,
            "threshold": self.threshold,
            "measures": list(self.measures),
            "rank_measure": self.rank_measure,
            "systems": self.systems,
            "summary": {
                "groups": len(self.groups),
                "dropped": sum(g.dropped for g in self.groups),
                "dropped_relevant": sum(g.dropped_relevant for g in self.groups),
                "mean_delta": float(np.mean(all_deltas)) if all_deltas else None,
                "max_drop": float(min(all_deltas)) if all_deltas else None,
                "mean_rank_shift": float(np.mean(shifts)) if shifts else None,
                "max_rank_shift": int(max(shifts)) if shifts else None,
            },
            "groups": groups,
        }


def leave_out(
    runs: Sequence[Any],
    qrels: Mapping[Pair, int],
    depth: int = 10,
    groups: Optional[Mapping[str, str]] = None,
    measures: Sequence[str] = DEFAULT_LEAVEOUT_MEASURES,
    threshold: int = DEFAULT_THRESHOLD,
    full: Optional[TopicScores] = None,
) -> LeaveOut:
    """Leave each group out in turn (see module doc). The first measure ranks."""
    pairs = as_pairs(qrels)
    prepared = prepare_runs(runs)
    specs = resolve_measures(measures, threshold)
    keys = tuple(s.key for s in specs)
    if full is None:
        full = evaluate_runs(prepared, pairs, specs, threshold, label="full")
    names = list(prepared.names)
    rank_measure = keys[0]
    full_means = {m: full.means(m) for m in keys}
    ranks_full = system_ranks(full_means[rank_measure])
    t_index = {t: i for i, t in enumerate(full.topics)}
    out = []
    for drop in dropped_pairs(prepared.runs, pairs, depth, groups, threshold):
        if not drop.dropped:
            reduced_values = full.values
        else:
            gone = drop.pairs
            affected = sorted({q for q, _ in gone})
            affected_set = set(affected)
            reduced = {p: g for p, g in pairs.items() if p[0] in affected_set and p not in gone}
            part = evaluate_runs(prepared, reduced, specs, threshold, topics=affected)
            reduced_values = full.values.copy()
            cols = [t_index[t] for t in part.topics]
            reduced_values[:, :, cols] = part.values
        red_means = reduced_values.mean(axis=2)  # [measure, system]
        ranks_red = system_ranks(red_means[0])
        left = []
        for name in drop.runs:
            s = names.index(name)
            left.append(LeftOutRun(
                name,
                tuple(float(full_means[m][s]) for m in keys),
                tuple(float(red_means[i, s]) for i in range(len(keys))),
                int(ranks_full[s]), int(ranks_red[s]),
            ))
        tau = kendall_tau(full_means[rank_measure], red_means[0]) if len(names) > 1 else float("nan")
        out.append(LeftOutGroup(drop.group, len(drop.dropped), drop.relevant, tau, tuple(left)))
    return LeaveOut(depth, threshold, keys, rank_measure, len(names), tuple(out))
