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

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from qrelkit.errors import UsageError
from qrelkit.store import Store

LABELLED_STATUSES = ("consensus", "auto", "adjudicated", "dropped", "human", "oracle")


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

def merge(store: Store, method: Optional[str] = None, model: Optional[str] = None) -> MergeResult:
    """Merge original, human and one judge's labels (see module docstring)."""
    if method is None and model is None:
        method, model = latest_llm_method(store)
    elif method is not None and model is None:
        models = store.models_of(method)
        if len(models) > 1:
            raise UsageError(f"method {method!r} was run with several models; pick one with --model")
        model = models[0] if models else None
    if method is not None and not store.has_judgments(method, model or ""):
        raise UsageError(f"no judgments by method {method!r} with model {model!r} in {store.workspace}")

    original = store.qrels()
    # On a binary collection new labels are written as 0/1 too, whatever scale
    # the judge used, so that the merged qrels keep one scale.
    binary = bool(original) and max(original.values()) <= 1

    def scale(j) -> int:
        if binary and j.label is not None:
            return int(j.label)
        return j.effective_grade

    labels: dict[tuple[str, str], MergedLabel] = {}
    for (qid, docid), grade in original.items():
        labels[(qid, docid)] = MergedLabel(qid, docid, grade, "original", "original")

    for j in store.people_labels():
        if (j.qid, j.docid) in labels or j.grade is None and j.label is None:
            continue
        grade = scale(j)
        labels[(j.qid, j.docid)] = MergedLabel(
            j.qid, j.docid, grade, "human", j.status, j.method, j.model, j.round, j.provenance
        )

    unresolved: list[tuple[str, str]] = []
    if method is not None:
        for j in store.judgments(method=method, model=model or ""):
            key = (j.qid, j.docid)
            if key in labels:
                continue
            if j.status not in LABELLED_STATUSES or (j.grade is None and j.label is None):
                unresolved.append(key)
                continue
            grade = scale(j)
            labels[key] = MergedLabel(
                j.qid, j.docid, grade, "llm", j.status, j.method, j.model, j.round, j.provenance
            )
    ordered = tuple(labels[k] for k in sorted(labels))
    return MergeResult(ordered, method, model, tuple(sorted(unresolved)))


def write_merged(result: MergeResult, out: Path) -> Path:
    """Write QRELS (TREC format) and QRELS.provenance.jsonl, one line per label."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    side = out.with_name(out.name + ".provenance.jsonl")
    with open(out, "w", encoding="utf-8") as q, open(side, "w", encoding="utf-8") as p:
        for label in result.labels:
            q.write(f"{label.qid} 0 {label.docid} {label.grade}\n")
            p.write(
                json.dumps(
                    {
                        "qid": label.qid, "docid": label.docid, "grade": label.grade, "source": label.source,
                        "status": label.status, "method": label.method, "model": label.model,
                        "round": label.round, "provenance": json.loads(label.provenance or "{}"),
                    },
                    sort_keys=True,
                )
                + "\n"
            )
    return side
