"""TREC runs: ``qid Q0 docid rank score tag``, whitespace-separated, six columns.

Order within a topic follows trec_eval, because pools, hole rates and scores
must agree with what everyone else computes from the same file: documents are
ordered by score descending, ties broken by docid descending (plain string
comparison, as trec_eval's ``strcmp``). trec_eval ignores the rank column,
and so does the ordering here; the file's rank is kept as ``RunEntry.file_rank``
(0 when it is not a plain ASCII integer, which trec_eval also tolerates; scores are
plain ASCII numbers too, :mod:`qrelkit.data.numbers`) and ``rank`` is
the 1-based position after sorting. The ``Q0`` column is ignored too (some
files write ``0``).

A run file should carry one tag. When it carries several, the first one names
the run and all of them are kept in ``Run.tags``, so that a caller can warn.
A run is named by its tag (``by="tag"``: what trec_eval and TREC overviews call
the system), by its file name (``by="file"``; the command line's ``--run-names
file``), or — the default, ``by="auto"`` — by its tag unless that tag says
nothing: shared by several files (eight DL 2019 re-rankers are tagged
``rank_gpt``), missing, or a tool's placeholder (:data:`GENERIC_TAGS`: DL 2019's
SPLADE run is tagged ``my-system-name``, three others ``rank``); those are named
by their file. :func:`name_warning` says once which files are named otherwise
than their file name suggests, and why.
A file with no lines is an error unless the caller allows it
(``allow_empty=True``; on the command line ``--allow-empty``): a system may
return nothing for a test set, but far more often an empty file is a failed
export, and it would silently score zero. An allowed empty run is named after
its file.

The same document twice in one topic is an error naming both lines:
trec_eval refuses such runs as well, and which of the two scores counts is
otherwise arbitrary.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from qrelkit.data import irds
from qrelkit.data._open import PathLike, iter_lines, open_write, strip_gz
from qrelkit.data.numbers import number_problem, plain_float, plain_int
from qrelkit.data.qrels import check_trec_id
from qrelkit.errors import InputError
from qrelkit.types import RunEntry

RUN_SUFFIXES = (".run", ".txt", ".trec")
RUN_NAMES = ("auto", "tag", "file")  # what names a run: see the module docstring
DEFAULT_RUN_NAMES = "auto"
# tags that name a tool or a placeholder, not a system (compared in lower case): auto names such a run by its file
GENERIC_TAGS = frozenset({"my-system-name", "rank", "rank_gpt", "rankgpt", "run", "runid", "tag", "system", "default",
                          "test", "anserini", "pyserini", "pyterrier", "terrier", "lucene", "standard"})


def generic_tag(tag: str) -> bool:
    """Is ``tag`` a placeholder rather than a system's name (:data:`GENERIC_TAGS`)?"""
    return tag.lower() in GENERIC_TAGS


@dataclass(frozen=True)
class Run:
    """One system's ranking per topic, already in trec_eval order.

    ``name`` is how reports call the system (the tag, unless :func:`read_runs`
    had to disambiguate); ``tags`` are the distinct tags found in the file."""

    name: str
    path: str
    by_topic: Mapping[str, tuple[RunEntry, ...]]
    tags: tuple[str, ...] = ()

    @property
    def qids(self) -> tuple[str, ...]:
        return tuple(self.by_topic)

    def top(self, qid: str, k: int | None = None) -> tuple[RunEntry, ...]:
        """The first ``k`` entries of a topic (all when k is None; none for an unknown topic)."""
        entries = self.by_topic.get(qid, ())
        return entries if k is None else entries[:k]

    def __len__(self) -> int:
        return sum(len(v) for v in self.by_topic.values())


def trec_eval_order(entries: Iterable[RunEntry]) -> list[RunEntry]:
    """Entries sorted as trec_eval sorts them (score desc, docid desc), with
    ``rank`` renumbered 1..n."""
    ordered = sorted(entries, key=lambda e: (e.score, e.docid), reverse=True)
    return [replace(e, rank=i) for i, e in enumerate(ordered, start=1)]


def run_stem(path: PathLike) -> str:
    """A file's name without ``.gz`` and a run suffix: the fallback system name."""
    name = strip_gz(Path(path).name)
    for suffix in RUN_SUFFIXES:
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def read_run(path: PathLike, max_depth: int | None = None, allow_empty: bool = False) -> Run:
    """Read one run file. ``max_depth`` keeps only the top entries of each topic
    (after trec_eval ordering), which is all pooling needs and bounds memory
    for deep runs. An empty file is an :class:`InputError` unless ``allow_empty``."""
    if irds.is_irds(path):
        raise InputError(path, None, "irds: sources are supported for topics, docs and qrels, not runs")
    # per topic: (score, docid, file_rank); docid -> line for duplicate reports
    rows: dict[str, list[tuple[float, str, int]]] = {}
    lines_of: dict[str, dict[str, int]] = {}
    tags: list[str] = []
    for lineno, line in iter_lines(path):
        cols = line.split()
        if len(cols) != 6:
            raise InputError(path, lineno, f"expected 6 columns (qid Q0 docid rank score tag), got {len(cols)}")
        qid, _q0, docid, rank, score_text, tag = cols
        score = plain_float(score_text)
        if score is None:
            raise InputError(path, lineno, number_problem(score_text))
        file_rank = plain_int(rank) or 0
        seen = lines_of.setdefault(qid, {})
        if docid in seen:
            raise InputError(
                path, lineno,
                f"document {docid} appears twice for topic {qid}: lines {seen[docid]} and {lineno}",
            )
        seen[docid] = lineno
        rows.setdefault(qid, []).append((score, docid, file_rank))
        if not tags or (tag != tags[0] and tag not in tags):
            tags.append(tag)
    del lines_of
    if not rows and not allow_empty:
        raise InputError(path, None, "no ranked documents found (the run file is empty)")
    by_topic: dict[str, tuple[RunEntry, ...]] = {}
    for qid, items in rows.items():
        items.sort(key=lambda r: (r[0], r[1]), reverse=True)
        if max_depth is not None:
            del items[max_depth:]
        by_topic[qid] = tuple(
            RunEntry(qid=qid, docid=docid, rank=i, score=score, file_rank=file_rank)
            for i, (score, docid, file_rank) in enumerate(items, start=1)
        )
    name = tags[0] if tags else run_stem(path)
    return Run(name=name, path=str(path), by_topic=by_topic, tags=tuple(tags))


def _has_glob(text: str) -> bool:
    return any(ch in text for ch in "*?[")


def expand_paths(paths: PathLike | Sequence[PathLike]) -> list[Path]:
    """Files named by a list of files, directories (their non-hidden files,
    sorted) and globs, without repeats, in the order given. Anything that names
    no file is an InputError: a typo must not silently shrink a pool."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    out: list[Path] = []
    seen: set[Path] = set()

    def add(p: Path) -> None:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            out.append(p)

    for item in paths:
        text = str(item)
        if irds.is_irds(text):
            raise InputError(text, None, "irds: sources are supported for topics, docs and qrels, not runs")
        p = Path(text)
        if p.is_dir():
            files = sorted(f for f in p.iterdir() if f.is_file() and not f.name.startswith("."))
            if not files:
                raise InputError(text, None, "directory contains no run files")
            for f in files:
                add(f)
        elif p.exists():
            add(p)
        elif _has_glob(text):
            matches = sorted(Path(m) for m in _glob(text))
            matches = [m for m in matches if m.is_file() and not m.name.startswith(".")]
            if not matches:
                raise InputError(text, None, "no files match this pattern")
            for m in matches:
                add(m)
        else:
            raise InputError(text, None, "no such file or directory")
    return out


def _glob(pattern: str) -> list[str]:
    import glob

    return glob.glob(pattern, recursive=True)


def _base_names(runs: Sequence[Run], by: str) -> list[str]:
    if by not in RUN_NAMES:
        raise ValueError(f"runs are named by {', '.join(RUN_NAMES)}, not {by!r}")
    return [r.tags[0] if r.tags and (by == "tag" or by == "auto" and not generic_tag(r.tags[0])) else run_stem(r.path)
            for r in runs]


def unique_names(runs: Sequence[Run], by: str = DEFAULT_RUN_NAMES) -> list[Run]:
    """Rename runs so that no two share a name: each is named by its tag (``by="tag"``),
    its file's stem (``by="file"``) or its tag unless that is a placeholder (``by="auto"``);
    a tag used by several files is replaced by each file's stem; anything still clashing
    gets ``-2``, ``-3``... in input order. Deterministic, so names are stable between invocations."""
    base = _base_names(runs, by)
    counts: dict[str, int] = {}
    for b in base:
        counts[b] = counts.get(b, 0) + 1
    wanted = [b if counts[b] == 1 else run_stem(r.path) for b, r in zip(base, runs)]
    used: set[str] = set()
    out = []
    for name, run in zip(wanted, runs):
        final = name
        i = 2
        while final in used:
            final = f"{name}-{i}"
            i += 1
        used.add(final)
        out.append(run if run.name == final else replace(run, name=final))
    return out


def name_warning(runs: Sequence[Run], by: str = DEFAULT_RUN_NAMES) -> str | None:
    """One line saying which runs are not named as their files are, and why: a tag shared by
    several files (they are named by file), a placeholder tag (``by="auto"``: named by file), a
    file without a tag or with several, a tag that differs from the file name. None when every
    name is its file's stem, or ``by="file"``."""
    if by == "file" or not runs:
        return None
    files = [Path(r.path).name for r in runs]
    shared: dict[str, list[str]] = {}
    for r, f in zip(runs, files):
        if r.tags:
            shared.setdefault(r.tags[0], []).append(f)
    notes = [f"tag {t!r} is shared by {', '.join(fs)} (named by file)" for t, fs in shared.items() if len(fs) > 1]
    for r, f in zip(runs, files):
        if not r.tags:
            notes.append(f"{f} has no tag (named by file)")
        elif len(r.tags) > 1:
            notes.append(f"{f} has {len(r.tags)} tags ({', '.join(r.tags)}; named {r.tags[0]!r})")
        elif len(shared[r.tags[0]]) > 1 or r.tags[0] == run_stem(r.path):
            continue
        elif by == "auto" and generic_tag(r.tags[0]):
            notes.append(f"{f}'s tag {r.tags[0]!r} is a placeholder (named by file)")
        else:
            notes.append(f"{f} is named {r.tags[0]!r} (its tag)")
    if not notes:
        return None
    return "run names: " + "; ".join(notes) + ". --run-names file names every run by its file."


def read_runs(paths: PathLike | Sequence[PathLike], max_depth: int | None = None,
              allow_empty: bool = False, by: str = DEFAULT_RUN_NAMES) -> list[Run]:
    """Read every run named by ``paths`` (files, directories, globs), with unique names
    (by tag or by file, :func:`unique_names`)."""
    runs = [read_run(p, max_depth=max_depth, allow_empty=allow_empty) for p in expand_paths(paths)]
    return unique_names(runs, by)


def iter_run_lines(run: Run) -> Iterator[str]:
    for qid, entries in run.by_topic.items():
        for e in entries:
            yield f"{qid} Q0 {e.docid} {e.rank} {e.score!r} {run.name}\n"


def write_run(path: PathLike, run: Run) -> int:
    """Write a run in TREC format (gzipped for ``.gz``), topics in the run's
    order, entries in trec_eval order with ranks 1..n and the run's name as tag.
    Scores are written with full precision so re-reading gives the same order.
    Returns the number of lines written."""
    check_trec_id(path, run.name, "run name")
    n = 0
    with open_write(path) as fh:
        for qid, entries in run.by_topic.items():
            check_trec_id(path, qid, "qid")
            for e in entries:
                check_trec_id(path, e.docid, "docid")
        for line in iter_run_lines(run):
            fh.write(line)
            n += 1
    return n
