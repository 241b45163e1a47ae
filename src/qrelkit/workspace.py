"""Workspace steps shared by the commands and the jobs: load a collection, pool it.

Both are idempotent: loading the same files again changes nothing, and
re-pooling with the same depths reports zero changed cases. The jobs (`fill`,
`build`) call them on every run, so a resumed job costs nothing here.

Topics, documents and qrels are copied into the store; runs are stored by name and path (they
can be large, and pooling reads only their top k). A workspace whose run files have moved or
gone (another machine, a renamed folder) still resumes at the same depths: its pool is in its
store, and re-pooling could only lose cases, so the stored pool is kept and the result lists
``runs_missing``. Pooling anew needs the files: the error says to pass ``--runs`` again with
where they are now, which re-points the stored runs by name (:func:`load_runs`).
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, NamedTuple, Optional, Sequence

from qrelkit.errors import InputError, UsageError
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Qrel


def _fingerprint(paths: Sequence[str]) -> str:
    """Size and mtime of each input, so an unchanged collection is not reloaded."""
    h = hashlib.sha256()
    for p in paths:
        h.update(p.encode())
        try:
            st = Path(p).stat()
            h.update(f"{st.st_size}:{st.st_mtime_ns}".encode())
        except OSError:
            h.update(b"-")
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class LoadSettings:
    """How a collection is loaded: progress, reloading, empty files, run names (the keywords of
    :func:`load_collection`)."""

    on_docs: Optional[Callable[[int], None]] = None
    force: bool = False
    allow_empty: bool = False
    run_names: str = "auto"
    on_warning: Optional[Callable[[str], None]] = None


def load_collection(
    store: Store,
    topics: str,
    docs: str,
    qrels: Optional[str] = None,
    runs: Sequence[str] = (),
    settings: "Optional[LoadSettings]" = None,
    **given: Any,
) -> dict:
    """Load topics, docs, qrels and runs into the workspace (upserts).

    Everything is parsed and validated before the first write, except docs,
    which stream; so a malformed qrels or run file leaves the workspace as it
    was. When the same files (by size and mtime) were loaded before, nothing is
    read again unless ``force``. An empty qrels or run file is refused unless
    ``allow_empty``. Runs are named by tag or by file (``run_names``,
    :func:`qrelkit.data.runs.unique_names`; ``on_warning`` hears which are not named
    as their files are); `pool` and reports use the stored names.
    ``allow_empty``. From the first write to the last the workspace is marked as
    loading (:meth:`Store.begin_load`): a load that did not finish (killed, or a bad
    line among the documents) is refused by every command that reads the
    collection until a load completes, and is never skipped as already loaded.
    """
    s = settings if settings is not None else LoadSettings(**given)
    on_docs, force, allow_empty = s.on_docs, s.force, s.allow_empty
    run_names, on_warning = s.run_names, s.on_warning
    from qrelkit.data import expand_paths, unique_topics

    run_paths = [str(p) for p in expand_paths(list(runs))] if runs else []
    # stored absolute, so that `fill -w WS` from any folder finds them (they were stored as typed,
    # relative to the first call's folder: from another one every run was "skipped: no such file");
    # read as typed, so that a message names the file as the user wrote it
    inputs = {"topics": absolute(topics), "docs": absolute(docs), "qrels": absolute(qrels) if qrels else None,
              "runs": [absolute(p) for p in run_paths]}
    if run_names != "auto":
        # a changed naming reloads; the default keeps old fingerprints (a workspace loaded when tags were
        # the default keeps the names it stored until it is loaded with other files or --run-names)
        inputs["run_names"] = run_names
    fp = _fingerprint([inputs["topics"], inputs["docs"], *([inputs["qrels"]] if qrels else []), *inputs["runs"]])
    previous = store.get_meta("inputs")
    state = store.load_state()
    if state == "loading" and not force:
        store.require_loaded()  # another process is loading: refused, naming it (init, which forces, may)
    if (not force and state == "complete" and previous and previous.get("inputs") == inputs
            and previous.get("fingerprint") == fp):
        return {**previous["counts"], "reloaded": False}

    topic_reader = unique_topics(str(topics))
    topic_list = list(topic_reader)
    try:
        n_qrels, qrel_repeats = _stage_qrels(store, str(qrels), allow_empty) if qrels else (0, 0)
        names = _run_names(run_paths, allow_empty, run_names, on_warning)
    except BaseException:
        store.drop_staged_qrels()
        raise
    store.begin_load()  # cleared by finish_load: a load killed in between is shown and refused
    store.upsert_topics(topic_list)

    n_docs, doc_repeats = _load_docs(store, str(docs), on_docs)
    if qrels:
        store.commit_staged_qrels()
    for name, path in zip(names, run_paths):
        store.upsert_run(name, absolute(path))
    counts = {"topics": len(topic_list), "docs": n_docs, "qrels": n_qrels, "runs": len(names),
              "duplicates": {"topics": topic_reader.duplicates, "docs": doc_repeats, "qrels": qrel_repeats}}
    store.finish_load({"inputs": inputs, "fingerprint": fp, "counts": counts})
    return {**counts, "reloaded": True}


def load_runs(store: Store, runs: Sequence[str], allow_empty: bool = False, run_names: str = "auto",
              on_warning: Optional[Callable[[str], None]] = None) -> dict:
    """Runs into a workspace that already holds its collection: a run is known by its name (the
    file's), so a moved run is re-pointed and a new one added; nothing else is read again."""
    from qrelkit.data import expand_paths

    run_paths = [str(p) for p in expand_paths(list(runs))]
    for name, path in zip(_run_names(run_paths, allow_empty, run_names, on_warning), run_paths):
        store.upsert_run(name, absolute(path))
    previous = store.get_meta("inputs")
    if previous:
        inputs = {**previous["inputs"], "runs": [r.path for r in store.runs()]}
        files = [inputs["topics"], inputs["docs"], *([inputs["qrels"]] if inputs.get("qrels") else []), *inputs["runs"]]
        counts = {**previous["counts"], "runs": len(inputs["runs"])}
        store.set_meta("inputs", {"inputs": inputs, "fingerprint": _fingerprint(files), "counts": counts})
    return {"runs": len(store.runs()), "loaded": len(run_paths)}


def absolute(path: object) -> str:
    """An input's path as the workspace stores it: absolute (an ``irds:`` id as it is)."""
    text = str(path)
    return text if text.startswith("irds:") else os.path.abspath(text)


def gone_hint(workspace: object) -> str:
    """What to do when a run file the workspace recorded is gone."""
    return (f"a run file recorded in workspace {workspace} is gone (moved or deleted since it was loaded); "
            f"pass --runs again with where the runs are now, e.g. `qrelkit fill -w {workspace} --runs NEW_FOLDER` "
            f"(or build), or `qrelkit init -w {workspace} --topics ... --docs ... --runs NEW_FOLDER`")


def stored_run_paths(store: Store) -> list[str]:
    """The workspace's run files, for a command that must read them all; a gone one is an
    InputError saying what to do."""
    paths = [r.path for r in store.runs()]
    gone = [p for p in paths if not Path(p).is_file()]
    if gone:
        raise InputError(gone[0], None, gone_hint(store.workspace))
    return paths


def _load_docs(store: Store, path: str, on_docs: Optional[Callable[[int], None]]) -> tuple[int, int]:
    """Documents into the workspace, each id once; returns (documents, identical repeats dropped).
    A repeated id with a different text or title is an error naming both lines. Into an empty
    workspace the docs table itself finds repeats (:meth:`Store.insert_docs_once`); a reload
    (``--force``, another corpus) must tell a repeat in the file from a document loaded before,
    so it keeps a scratch set of the ids seen (:func:`qrelkit.data.unique_docs`)."""
    from qrelkit.data.docs import docs_with_lines, first_line_of, unique_docs

    def counted(items):
        for i, item in enumerate(items, 1):
            if on_docs is not None and i % 5000 == 0:
                on_docs(i)
            yield item

    if store.has_docs():
        reader = unique_docs(path)
        return store.upsert_docs(counted(reader)), reader.duplicates

    def conflict(lineno: int, doc: Doc) -> None:
        first = first_line_of(path, doc.docid)
        raise InputError(path, lineno,
                         f"duplicate document id {doc.docid} with different content: lines {first} and {lineno}")

    return store.insert_docs_once(counted(docs_with_lines(path)), conflict)


def _stage_qrels(store: Store, path: str, allow_empty: bool) -> tuple[int, int]:
    """The qrels checked in one streaming pass into the store's scratch table, before anything
    is written (:meth:`Store.stage_qrels`); returns (pairs, identical repeats). A bad line or two
    grades for one pair is an InputError naming the line, as :func:`qrelkit.data.load_qrels` says it."""
    from qrelkit.data.qrels import iter_with_lines

    def conflict(lineno: int, q: Qrel, first: int, grade: int) -> None:
        raise InputError(path, lineno, f"conflicting labels for ({q.qid}, {q.docid}): "
                                       f"line {first} says {grade}, line {lineno} says {q.grade}")

    return store.stage_qrels(iter_with_lines(path, allow_empty), conflict)


def _run_names(run_paths: list[str], allow_empty: bool, by: str = "auto",
               on_warning: Optional[Callable[[str], None]] = None) -> list[str]:
    """Every run file checked (a bad one is an InputError naming its line) and
    named, one file at a time: only names and paths are stored, so holding all
    runs in memory while the documents load (300 MB at 10^5 pooled pairs,
    benchmarks/scale.py) bought nothing."""
    if not run_paths:
        return []
    from qrelkit.data.rankings import check_ranking, final_names
    from qrelkit.data.rankings import stubs as run_stubs
    from qrelkit.data.runs import name_warning

    stubs = [check_ranking(p, allow_empty) for p in run_paths]  # streamed, entries not kept
    note = name_warning(run_stubs(stubs), by)
    if note and on_warning is not None:
        on_warning(note)
    return final_names(stubs, by)


class _PoolInput(NamedTuple):
    name: str
    by_topic: dict  # qid -> docids in trec_eval order, top `depth` only


def _pool_inputs(paths: list[str], names: list[str], depth: int) -> list[_PoolInput]:
    """Each run's top ``depth`` docids per topic, under its stored name (given at init).
    The lean reader (:mod:`qrelkit.data.rankings`) halves `pool`'s time against
    reading full ``RunEntry`` records (15 of 20 s at 10^5 pairs, benchmarks/scale.py),
    and only the top ``depth`` is kept: pooling needs no more. A document that
    several runs retrieve is held as one string, not one per run (pooled runs
    overlap: 20 runs' top 10s held 10^6 docids for 10^5 distinct pairs)."""
    from qrelkit.data.rankings import iter_rankings

    one: dict[str, str] = {}
    rankings = [
        dataclasses.replace(r, docids={q: tuple(one.setdefault(d, d) for d in ds) for q, ds in r.docids.items()})
        for r in iter_rankings(paths, depth, allow_empty=True)  # accepted when loaded
    ]
    return [_PoolInput(n, dict(r.docids)) for n, r in zip(names, rankings)]


def pool_workspace(store: Store, depth: int = 10, human_depth: Optional[int] = None,
                   people: Optional[str] = None, pool: Optional[str] = None) -> dict:
    """Pool the workspace's runs into cases; returns the counts `qrelkit pool` prints.

    The people's share is ``people`` (a strategy spec of :mod:`qrelkit.pooling.allocation`) or
    ``human_depth`` (``depth(k_human=N)``), not both; neither is ``depth(k_human=3)``.
    A reference-stratified share stratifies by the workspace's qrels. ``pool`` is a pooling
    strategy (:mod:`qrelkit.pooling`) instead of ``depth``; ``depth(k=K)`` is ``depth=K``."""
    from qrelkit.pooling import parse_pool
    from qrelkit.pooling.allocation import resolve_people

    store.require_loaded()  # the jobs open with Store.create: a partial corpus is refused here too
    allocation = resolve_people(people, human_depth)
    spec = parse_pool(pool) if pool is not None else None
    if spec is not None and spec.is_plain_depth:
        depth, spec = spec["k"], None
    if spec is None and allocation.name == "depth" and allocation["k_human"] > depth:
        raise UsageError(f"--human-depth {allocation['k_human']} is deeper than --depth {depth}")
    stored = store.runs()
    if not stored:
        raise UsageError(
            f"{store.workspace}: the workspace has no runs; add them with "
            f"`qrelkit init -w {store.workspace} ... --runs PATH`"
        )
    paths, names = [p for _, p, _ in stored], [n for n, _, _ in stored]  # named at init (--run-names)
    k_human = allocation["k_human"] if allocation.name == "depth" else None
    gone = [p for p in paths if not Path(p).is_file()]
    if gone:
        return _kept_pool(store, gone, depth, k_human, str(allocation))
    if spec is not None:
        from qrelkit.pooling.workspace import pool_by_strategy

        counts = pool_by_strategy(store, paths, names, spec, allocation)
        depth = counts["depth"]
    elif k_human is not None:
        counts = _pool_in_store(store, paths, names, depth, k_human)
    else:
        counts = _pool_in_memory(store, paths, names, depth, allocation)
    strategy = str(spec) if spec is not None else f"depth(k={depth})"
    if allocation.name != "sample":  # a sample drawn before (`qrelkit sample -w`) stays while the pool does
        from qrelkit.pooling.people_sample import keep_sample

        keep_sample(store)
    store.set_meta("pool", {"depth": depth, "human_depth": k_human, "allocation": str(allocation), "pool": strategy})
    return {"depth": depth, "human_depth": k_human, "allocation": str(allocation), "pool": strategy,
            **{k: counts[k] for k in ("pooled", "holes", "people", "llm", "judged")},
            "no_text": store.cases_without_text(), "changed": counts["changed"], "unchanged": counts["unchanged"]}


def _kept_pool(store: Store, gone: list[str], depth: int, k_human: Optional[int], allocation: str) -> dict:
    """The stored pool, when run files are gone and it was made at the same depths (see the
    module docstring); else an InputError that says how to point the workspace at the runs."""
    before = store.get_meta("pool") or {}
    same = (before.get("depth"), before.get("human_depth"), before.get("allocation", allocation)) == (
        depth, k_human, allocation)
    cases = store.cases() if same else []
    if not cases:
        asked = f"depth {depth}, {allocation}"
        share = before.get("allocation") or f"depth(k_human={before.get('human_depth')})"
        was = f"depth {before.get('depth')}, {share}" if before else "never"
        raise InputError(gone[0], None, f"{gone_hint(store.workspace)}; pooling ({asked}; pooled before: {was}) "
                                        "needs the run files")
    counts = _pool_counts(cases)
    return {"depth": depth, "human_depth": k_human, "allocation": allocation,
            **{k: counts[k] for k in ("pooled", "holes", "people", "llm", "judged")},
            "no_text": store.cases_without_text(), "changed": 0, "unchanged": len(cases), "runs_missing": gone}


def _pool_counts(cases: Sequence[Case]) -> Counter:
    """What `pool` reports of these cases (summed over pages)."""
    shares = Counter((c.share, c.judged) for c in cases)
    return Counter({"pooled": len(cases), "holes": sum(1 for c in cases if not c.judged),
                    "people": shares[("people", False)], "llm": shares[("llm", False)],
                    "judged": sum(1 for c in cases if c.judged)})


def _pool_in_store(store: Store, paths: list[str], names: list[str], depth: int, k_human: int) -> dict:
    """Depth pooling in SQL (:mod:`qrelkit.store.pooling`): one run in memory at a time, the
    pool read back and written a page at a time; the cases are those of
    :func:`qrelkit.pooling.pool.build_pool` (people's share: best rank <= ``k_human``)."""
    from qrelkit.data.rankings import iter_rankings

    table = store.pool_table()
    try:
        for i, r in enumerate(iter_rankings(paths, depth, allow_empty=True)):  # accepted when loaded
            table.add_run(i, ((q, d, rank) for q, ds in r.docids.items() for rank, d in enumerate(ds[:depth], 1)))
        table.index()
        total, changed, unchanged = Counter(), 0, 0
        for rows in table.pages():
            cases = [
                Case(q, d, "people" if rank <= k_human else "llm", rank,
                     tuple(sorted(names[int(i)] for i in runs.split(","))), bool(judged))
                for q, d, rank, runs, judged in rows
            ]
            c, u = store.upsert_cases(cases)
            changed, unchanged = changed + c, unchanged + u
            total.update(_pool_counts(cases))
        stale = table.remove_stale_cases()
    finally:
        table.drop()
    return {**total, "changed": changed + stale, "unchanged": unchanged}


def _pool_in_memory(store: Store, paths: list[str], names: list[str], depth: int, allocation: Any) -> dict:
    """Pooling in Python, for people's-share strategies that look at a topic's whole pool."""
    from qrelkit.pooling.pool import build_pool

    runs = _pool_inputs(paths, names, depth)
    reference = store.qrels()
    qrels = [Qrel(q, d, g) for (q, d), g in reference.items()]
    topics = store.topics()
    cases = build_pool(runs, depth=depth, qrels=qrels, topics=list(topics), people=allocation,
                       reference=reference or None).cases
    changed, unchanged = store.upsert_cases(cases)
    stale = store.remove_cases_except({(c.qid, c.docid) for c in cases})
    if allocation.name == "sample":  # the draw, with its inclusion probabilities, for `estimate`
        from qrelkit.pooling.people_sample import record_pool

        record_pool(store, allocation, cases, runs)
    return {**_pool_counts(cases), "changed": changed + stale, "unchanged": unchanged}
