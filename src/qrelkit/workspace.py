"""Workspace steps shared by the commands and the jobs: load a collection, pool it.

Both are idempotent: loading the same files again changes nothing, and
re-pooling with the same depths reports zero changed cases. The jobs (`fill`,
`build`) call them on every run, so a resumed job costs nothing here.
"""
from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter
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


def load_collection(
    store: Store,
    topics: str,
    docs: str,
    qrels: Optional[str] = None,
    runs: Sequence[str] = (),
    on_docs: Optional[Callable[[int], None]] = None,
    force: bool = False,
    allow_empty: bool = False,
) -> dict:
    """Load topics, docs, qrels and runs into the workspace (upserts).

    Everything is parsed and validated before the first write, except docs,
    which stream; so a malformed qrels or run file leaves the workspace as it
    was. When the same files (by size and mtime) were loaded before, nothing is
    read again unless ``force``. An empty qrels or run file is refused unless
    ``allow_empty``. From the first write to the last the workspace is marked as
    loading (:meth:`Store.begin_load`): a load that did not finish (killed, or a bad
    line among the documents) is refused by every command that reads the
    collection until a load completes, and is never skipped as already loaded.
    """
    from qrelkit.data import expand_paths, load_qrels, unique_topics

    run_paths = [str(p) for p in expand_paths(list(runs))] if runs else []
    inputs = {"topics": str(topics), "docs": str(docs), "qrels": str(qrels) if qrels else None, "runs": run_paths}
    fp = _fingerprint([str(topics), str(docs), *( [str(qrels)] if qrels else []), *run_paths])
    previous = store.get_meta("inputs")
    state = store.load_state()
    if state == "loading" and not force:
        store.require_loaded()  # another process is loading: refused, naming it (init, which forces, may)
    if (not force and state == "complete" and previous and previous.get("inputs") == inputs
            and previous.get("fingerprint") == fp):
        return {**previous["counts"], "reloaded": False}

    topic_reader = unique_topics(str(topics))
    topic_list = list(topic_reader)
    qrels_file = load_qrels(str(qrels), allow_empty=allow_empty) if qrels else None
    qrels_list = list(qrels_file.qrels()) if qrels_file else []
    run_names = _run_names(run_paths, allow_empty)
    store.begin_load()  # cleared by finish_load: a load killed in between is shown and refused
    store.upsert_topics(topic_list)

    n_docs, doc_repeats = _load_docs(store, str(docs), on_docs)
    store.upsert_qrels(qrels_list)
    for name, path in zip(run_names, run_paths):
        store.upsert_run(name, path)
    counts = {"topics": len(topic_list), "docs": n_docs, "qrels": len(qrels_list), "runs": len(run_names),
              "duplicates": {"topics": topic_reader.duplicates, "docs": doc_repeats,
                             "qrels": qrels_file.duplicates if qrels_file else 0}}
    store.finish_load({"inputs": inputs, "fingerprint": fp, "counts": counts})
    return {**counts, "reloaded": True}


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


def _run_names(run_paths: list[str], allow_empty: bool) -> list[str]:
    """Every run file checked (a bad one is an InputError naming its line) and
    named, one file at a time: only names and paths are stored, so holding all
    runs in memory while the documents load (300 MB at 10^5 pooled pairs,
    benchmarks/scale.py) bought nothing."""
    if not run_paths:
        return []
    from qrelkit.data.rankings import Ranking, final_names, iter_rankings

    stubs = [Ranking(r.name, r.path, {}, r.tags) for r in iter_rankings(run_paths, 0, allow_empty)]
    return final_names(stubs)


class _PoolInput(NamedTuple):
    name: str
    by_topic: dict  # qid -> docids in trec_eval order, top `depth` only


def _pool_inputs(paths: list[str], depth: int) -> list[_PoolInput]:
    """Each run's top ``depth`` docids per topic, named as read_runs names them.
    The lean reader (:mod:`qrelkit.data.rankings`) halves `pool`'s time against
    reading full ``RunEntry`` records (15 of 20 s at 10^5 pairs, benchmarks/scale.py),
    and only the top ``depth`` is kept: pooling needs no more. A document that
    several runs retrieve is held as one string, not one per run (pooled runs
    overlap: 20 runs' top 10s held 10^6 docids for 10^5 distinct pairs)."""
    from qrelkit.data.rankings import final_names, iter_rankings

    one: dict[str, str] = {}
    rankings = [
        dataclasses.replace(r, docids={q: tuple(one.setdefault(d, d) for d in ds) for q, ds in r.docids.items()})
        for r in iter_rankings(paths, depth, allow_empty=True)  # accepted when loaded
    ]
    return [_PoolInput(n, dict(r.docids)) for n, r in zip(final_names(rankings), rankings)]


def pool_workspace(store: Store, depth: int = 10, human_depth: Optional[int] = None,
                   people: Optional[str] = None) -> dict:
    """Pool the workspace's runs into cases; returns the counts `qrelkit pool` prints.

    The people's share is ``people`` (a strategy spec of :mod:`qrelkit.allocation`) or
    ``human_depth`` (``depth(k_human=N)``), not both; neither is ``depth(k_human=3)``.
    A reference-stratified share stratifies by the workspace's qrels."""
    from qrelkit.allocation import resolve_people

    store.require_loaded()  # the jobs open with Store.create: a partial corpus is refused here too
    allocation = resolve_people(people, human_depth)
    if allocation.name == "depth" and allocation["k_human"] > depth:
        raise UsageError(f"--human-depth {allocation['k_human']} is deeper than --depth {depth}")
    stored = store.runs()
    if not stored:
        raise UsageError(
            f"{store.workspace}: the workspace has no runs; add them with "
            f"`qrelkit init -w {store.workspace} ... --runs PATH`"
        )
    paths = [p for _, p, _ in stored]
    k_human = allocation["k_human"] if allocation.name == "depth" else None
    if k_human is not None:
        counts = _pool_in_store(store, paths, depth, k_human)
    else:
        counts = _pool_in_memory(store, paths, depth, allocation)
    store.set_meta("pool", {"depth": depth, "human_depth": k_human, "allocation": str(allocation)})
    return {"depth": depth, "human_depth": k_human, "allocation": str(allocation),
            **{k: counts[k] for k in ("pooled", "holes", "people", "llm", "judged")},
            "no_text": store.cases_without_text(), "changed": counts["changed"], "unchanged": counts["unchanged"]}


def _pool_counts(cases: Sequence[Case]) -> Counter:
    """What `pool` reports of these cases (summed over pages)."""
    shares = Counter((c.share, c.judged) for c in cases)
    return Counter({"pooled": len(cases), "holes": sum(1 for c in cases if not c.judged),
                    "people": shares[("people", False)], "llm": shares[("llm", False)],
                    "judged": sum(1 for c in cases if c.judged)})


def _pool_in_store(store: Store, paths: list[str], depth: int, k_human: int) -> dict:
    """Depth pooling in SQL (:mod:`qrelkit.store.pooling`): one run in memory at a time, the
    pool read back and written a page at a time; the cases are those of
    :func:`qrelkit.pool.build_pool` (people's share: best rank <= ``k_human``)."""
    from qrelkit.data.rankings import Ranking, final_names, iter_rankings

    table = store.pool_table()
    try:
        stubs = []
        for i, r in enumerate(iter_rankings(paths, depth, allow_empty=True)):  # accepted when loaded
            table.add_run(i, ((q, d, rank) for q, ds in r.docids.items() for rank, d in enumerate(ds[:depth], 1)))
            stubs.append(Ranking(r.name, r.path, {}, r.tags))
        names = final_names(stubs)
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


def _pool_in_memory(store: Store, paths: list[str], depth: int, allocation: Any) -> dict:
    """Pooling in Python, for people's-share strategies that look at a topic's whole pool."""
    from qrelkit.pool import build_pool

    runs = _pool_inputs(paths, depth)
    reference = store.qrels()
    qrels = [Qrel(q, d, g) for (q, d), g in reference.items()]
    topics = store.topics()
    cases = build_pool(runs, depth=depth, qrels=qrels, topics=list(topics), people=allocation,
                       reference=reference or None).cases
    changed, unchanged = store.upsert_cases(cases)
    stale = store.remove_cases_except({(c.qid, c.docid) for c in cases})
    return {**_pool_counts(cases), "changed": changed + stale, "unchanged": unchanged}
