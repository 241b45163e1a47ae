"""Several assessors: reading their labels once, and agreement per assessor group.

Why groups: re-judgment studies rarely have every assessor judge every topic.
In the 2025 re-judgment of TREC DL 2019, each topic was judged by one pair of
the eight assessors, so a single Fleiss' kappa over "all assessors" mixes
different pairs of people. The shelf-life analysis therefore reports agreement
per *assessor group*: the assessors who judged the same pairs form a group, and
the group's items are the pairs judged by exactly those assessors (a topic
mostly judged by one pair of assessors, with a few pairs by others, counts
towards each group for the pairs that group judged).
Per group: Fleiss' kappa on grades and on binary relevance, with and without
the primary (e.g. NIST) qrels as one more rater on the items it labels, and
two overlaps: binary (|all relevant| / |any relevant|, Voorhees 2000) and
graded (the share of items on which every member gave the same grade).

Reading: assessors come either one qrels file per assessor (the name is the
file name without its qrels suffixes) or one file whose second column names
the assessor (``qid assessor docid grade``). Both are parsed here and only here.
The natural combination (which assessor judged which topic "as assigned") is a
``qid<TAB>assessor`` file, also read here.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional, Sequence

import numpy as np

from qrelkit.errors import InputError, UsageError

Pair = tuple[str, str]
_SUFFIXES = (".gz", ".txt", ".tsv", ".qrels", ".qrel", ".trec")


# ------------------------------------------------------------------- reading
def assessor_name(path: str) -> str:
    """An assessor's name: the file name without .gz and qrels suffixes."""
    name = Path(path).name
    for suffix in _SUFFIXES:
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
    return name


def read_assessor_column(path: str) -> list[tuple[str, dict[Pair, int]]]:
    """One qrels file, several assessors: ``qid assessor docid grade``."""
    from qrelkit.data._open import iter_lines

    by: dict[str, dict[Pair, int]] = {}
    for lineno, line in iter_lines(path):
        cols = line.split()
        if len(cols) != 4:
            raise InputError(path, lineno, f"expected 4 columns (qid assessor docid grade), got {len(cols)}")
        qid, who, docid, grade = cols
        try:
            g = int(grade)
        except ValueError:
            raise InputError(path, lineno, f"grade must be an integer, got {grade!r}") from None
        mine = by.setdefault(who, {})
        if mine.get((qid, docid), g) != g:
            raise InputError(path, lineno, f"assessor {who} gives two grades to ({qid}, {docid})")
        mine[(qid, docid)] = g
    if not by:
        raise InputError(path, None, "no labels")
    return sorted(by.items())


def read_assessors(paths: Sequence[str], assessor_column: bool = False) -> list[tuple[str, dict[Pair, int]]]:
    """Assessors from files, folders or globs (one qrels per assessor), or from
    one file with an assessor column. Names must be unique."""
    from qrelkit.data import expand_paths, load_qrels

    if assessor_column:
        if len(paths) != 1:
            raise UsageError("--assessor-column takes exactly one assessors file")
        return read_assessor_column(str(paths[0]))
    files = [str(p) for p in expand_paths(list(paths))]
    out = [(assessor_name(p), dict(load_qrels(p).pairs)) for p in files]
    names = [n for n, _ in out]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise UsageError(f"two assessor files have the same name {dup[0]!r}; rename one")
    return out


def read_combination(path: str, assessors: Sequence[str]) -> dict[str, str]:
    """A natural combination: ``qid<TAB>assessor`` lines, assessor names as given."""
    from qrelkit.data._open import iter_lines

    known = set(assessors)
    out: dict[str, str] = {}
    for lineno, line in iter_lines(path):
        if line.lstrip().startswith("#"):
            continue
        cols = line.split("\t") if "\t" in line else line.split()
        if len(cols) != 2:
            raise InputError(path, lineno, "expected two columns: qid<TAB>assessor")
        qid, name = cols[0].strip(), cols[1].strip()
        if name not in known:
            raise InputError(path, lineno, f"unknown assessor {name!r}; known: {', '.join(sorted(known))}")
        if qid in out and out[qid] != name:
            raise InputError(path, lineno, f"topic {qid} is given two assessors")
        out[qid] = name
    return out


# -------------------------------------------------------------------- groups
@dataclass(frozen=True)
class AssessorGroup:
    """Agreement among the assessors who judged the same topics (see module doc)."""

    members: tuple[str, ...]
    topics: int
    pairs: int  # items judged by every member
    fleiss_kappa: Optional[float]
    fleiss_kappa_binary: Optional[float]
    primary_pairs: int  # items the primary also labels
    fleiss_kappa_with_primary: Optional[float]
    fleiss_kappa_binary_with_primary: Optional[float]
    overlap: Optional[float]  # binary: all relevant / any relevant
    overlap_graded: Optional[float]  # share of items with one grade from everyone

    def to_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


def assessor_groups(
    assessors: Sequence[tuple[str, Mapping[Pair, int]]],
    primary: Optional[Mapping[Pair, int]] = None,
    threshold: int = 2,
) -> tuple[AssessorGroup, ...]:
    """One :class:`AssessorGroup` per distinct set of (>= 2) assessors who judged
    the same pairs; a group's items are exactly the pairs that set judged."""
    raters: dict[Pair, list[str]] = defaultdict(list)
    for name, labels in assessors:
        for pair in labels:
            raters[pair].append(name)
    groups: dict[tuple[str, ...], list[Pair]] = defaultdict(list)
    for pair, names in raters.items():
        if len(names) >= 2:
            groups[tuple(sorted(names))].append(pair)
    lookup = dict(assessors)
    return tuple(
        _group(members, len({q for q, _ in items}), sorted(items), [lookup[m] for m in members], primary, threshold)
        for members, items in sorted(groups.items())
    )


def _group(members, topics, items, labels, primary, threshold) -> AssessorGroup:
    if not items:
        return AssessorGroup(members, topics, 0, None, None, 0, None, None, None, None)
    data = np.array([[lab[p] for lab in labels] for p in items], dtype=int)
    rel = data >= threshold
    union = int(rel.any(axis=1).sum())
    with_p = [i for i, p in enumerate(items) if primary is not None and p in primary]
    both = (np.column_stack([data[with_p], [primary[items[i]] for i in with_p]]) if with_p
            else np.zeros((0, data.shape[1] + 1), dtype=int))
    return AssessorGroup(
        members, topics, len(items),
        fleiss(data), fleiss((data >= threshold).astype(int)),
        len(with_p), fleiss(both) if with_p else None,
        fleiss((both >= threshold).astype(int)) if with_p else None,
        (int(rel.all(axis=1).sum()) / union) if union else None,
        float((data == data[:, :1]).all(axis=1).mean()),
    )


def fleiss(data: np.ndarray) -> Optional[float]:
    """Fleiss' kappa (statsmodels) of an ``[item, rater]`` grade matrix; None
    when undefined (one category only)."""
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    if data.size == 0:
        return None
    table, _ = aggregate_raters(data)
    if table.shape[1] < 2:
        return None
    with np.errstate(all="ignore"):
        k = float(fleiss_kappa(table, method="fleiss"))
    return None if np.isnan(k) else k
