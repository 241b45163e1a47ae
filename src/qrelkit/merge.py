"""Merging every source of labels into one qrels with per-label provenance.

Precedence, highest first, so that a label is never silently overwritten by a
weaker source:
1. original: the collection's own qrels (an LLM re-judging a judged pair, as
   in audit mode, is measured against it, never replaces it);
2. human: the majority decision of people in the annotation app;
3. llm: the chosen judge's verdict (consensus, auto, adjudicated, and
   prefilter drops, which are explicit zeros).
Pairs whose only verdicts are ``escalate`` or ``error`` get no label: they are
counted as unresolved, never guessed.
"""
from __future__ import annotations

import heapq
import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from qrelkit.data.atomic import atomic_write
from qrelkit.errors import UsageError
from qrelkit.relevance import ADJUDICATED, AUTO, CONSENSUS, DROPPED
from qrelkit.store import Store
from qrelkit.store.waiting import PEOPLE_METHOD
from qrelkit.types import Provenance

Pair = tuple[str, str]
LABELLED_STATUSES = (CONSENSUS, AUTO, ADJUDICATED, DROPPED, "human", "oracle")


@dataclass(frozen=True)
class MergedLabel:
    qid: str
    docid: str
    grade: int
    source: str  # original | human | llm
    status: str
    method: str = ""
    model: str = ""
    round: int = 0
    provenance: str = "{}"


@dataclass(frozen=True)
class MergeResult:
    labels: tuple[MergedLabel, ...]
    method: Optional[str]
    model: Optional[str]
    unresolved: tuple[tuple[str, str], ...]

    def counts(self) -> dict[str, int]:
        c = Counter(label.source for label in self.labels)
        return {
            "labels": len(self.labels),
            "original": c.get("original", 0),
            "human": c.get("human", 0),
            "llm": c.get("llm", 0),
            "unresolved": len(self.unresolved),
        }


def latest_llm_method(store: Store) -> tuple[Optional[str], Optional[str]]:
    """The (method, model) of the most recently written LLM judgments: the
    natural default for `export` right after `judge`."""
    return store.latest_llm_method() or (None, None)

def stored_job_method(store: Store) -> tuple[Optional[str], Optional[str]]:
    """The (method, model) of the workspace's stored job, when it has one that has judged."""
    job = store.get_meta("job")
    if job and job.get("method") and store.has_judgments(job["method"], job.get("model_id") or ""):
        return job["method"], job.get("model_id")
    return None, None


def merged_method(store: Store, method: Optional[str], model: Optional[str],
                   strict: bool = True) -> tuple[Optional[str], Optional[str]]:
    """The (method, model) whose labels are merged: the workspace's stored job's (`fill`/`build`),
    else the latest judge. ``strict``: a method with no judgments is an error (a typo, usually);
    a job whose pool had no holes merges its method's none."""
    if method is None and model is None:
        method, model = stored_job_method(store)
    if method is None and model is None:
        method, model = latest_llm_method(store)
    elif method is not None and model is None:
        models = store.models_of(method)
        if len(models) > 1:
            raise UsageError(f"method {method!r} was run with several models; pick one with --model")
        model = models[0] if models else None
    if strict and method is not None and not store.has_judgments(method, model or ""):
        raise UsageError(f"no judgments by method {method!r} with model {model!r} in {store.workspace}")
    return method, model


def iter_merged(store: Store, method: Optional[str], model: Optional[str]) -> Iterator[MergedLabel | Pair]:
    """Merged labels in (qid, docid) order, and the unresolved pairs as bare
    ``(qid, docid)`` tuples, streamed: the three sources are read in key order
    from SQLite and merged like sorted files, so memory does not grow with the
    number of labels (a million-pair export, benchmarks/scale.py). ``method`` and
    ``model`` as :func:`merged_method` gives them."""
    # On a binary collection new labels are written as 0/1 too, whatever scale
    # the judge used, so that the merged qrels keep one scale.
    top = store.max_qrel_grade()
    binary = top is not None and top <= 1

    def scale(j) -> int:
        if binary and j.label is not None:
            return int(j.label)
        return j.effective_grade

    original = ((q, d, 0, g) for q, d, g in store.iter_qrels())
    people = ((j.qid, j.docid, 1, j) for j in store.iter_judgments(PEOPLE_METHOD, source="human"))
    sources = [original, people]
    if method is not None:
        sources.append((j.qid, j.docid, 2, j) for j in store.iter_judgments(method, model or ""))
    last: Optional[Pair] = None
    for qid, docid, rank, item in heapq.merge(*sources, key=lambda r: (r[0], r[1], r[2])):
        key = (qid, docid)
        if key == last:
            continue  # a stronger source already gave this pair a label
        if rank == 0:
            last = key
            yield MergedLabel(qid, docid, item, "original", "original")
        elif rank == 1:
            if item.grade is None and item.label is None:
                continue
            last = key
            yield MergedLabel(qid, docid, scale(item), "human", item.status, item.method, item.model,
                              item.round, item.provenance)
        elif item.status not in LABELLED_STATUSES or (item.grade is None and item.label is None):
            yield key
        else:
            last = key
            yield MergedLabel(qid, docid, scale(item), "imported" if item.source == "imported" else "llm",
                              item.status, item.method, item.model, item.round, item.provenance)


def merge(store: Store, method: Optional[str] = None, model: Optional[str] = None,
          strict: bool = True) -> MergeResult:
    """Merge original, human and one judge's labels (see module docstring)."""
    method, model = merged_method(store, method, model, strict)
    labels: list[MergedLabel] = []
    unresolved: list[Pair] = []
    for item in iter_merged(store, method, model):
        (labels if isinstance(item, MergedLabel) else unresolved).append(item)
    return MergeResult(tuple(labels), method, model, tuple(unresolved))


def export_merged(store: Store, out: Path, method: Optional[str] = None, model: Optional[str] = None,
                  fmt: str = "trec") -> dict:
    """Write the merged qrels and their provenance as :func:`write_merged` does,
    streaming; returns what ``qrelkit export`` prints (paths, method, counts). ``fmt``: ``trec``,
    or a table with ir_measures' or PyTerrier's column names (:mod:`qrelkit.interchange.columns`)."""
    method, model = merged_method(store, method, model)
    counts = Counter()
    unresolved = 0

    def labels() -> Iterator[MergedLabel]:
        nonlocal unresolved
        for item in iter_merged(store, method, model):
            if isinstance(item, MergedLabel):
                counts[item.source] += 1
                yield item
            else:
                unresolved += 1

    side = _write_labels(labels(), out, fmt)
    return {"out": str(out), "provenance": str(side), "method": method, "model": model,
            "labels": sum(counts.values()), "original": counts["original"], "human": counts["human"],
            "llm": counts["llm"], "imported": counts["imported"], "unresolved": unresolved, "format": fmt}


def write_merged(result: MergeResult, out: Path) -> Path:
    """Write QRELS (TREC format) and QRELS.provenance.jsonl, one line per label."""
    return _write_labels(result.labels, out)


def _write_labels(labels: Iterable[MergedLabel], out: Path, fmt: str = "trec") -> Path:
    """Each file whole or not at all (:func:`atomic_write`): a killed export leaves the old
    file or the new one under each name (the provenance is renamed just before the qrels)."""
    from qrelkit.interchange.columns import row_writer

    out = Path(out)
    side = out.with_name(out.name + ".provenance.jsonl")
    with atomic_write(out, newline="") as q, atomic_write(side) as p:
        write = row_writer(q, fmt, out)
        for label in labels:
            write(label)
            p.write(
                json.dumps(
                    {
                        "qid": label.qid, "docid": label.docid, "grade": label.grade, "source": label.source,
                        "status": label.status, "method": label.method, "model": label.model,
                        "round": label.round, "provenance": dict(Provenance.parse(label.provenance).data),
                    },
                    sort_keys=True,
                )
                + "\n"
            )
    return side
