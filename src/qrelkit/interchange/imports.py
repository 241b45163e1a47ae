"""Other tools' judgments as a labelled qrels version of the workspace, with provenance ``imported``.

A version is stored as judgments under the method ``imported:NAME`` (source ``imported``, status
``auto``), so everything that reads judgments reads it too: ``agree -w`` measures it against the
workspace's qrels like any judge, ``export --method imported:NAME`` merges it (original labels and
people's still win) for ``evaluate``. Importing NAME again replaces the version whole.

Two readers:

- TREC qrels (``qid 0 docid grade``; ``.gz`` too), read by :func:`qrelkit.data.load_qrels`;
- UMBRELA's JSONL output, one record per query-passage pair: ``{"model", "query", "passage",
  "prompt", "prediction", "judgment" (0-3), "result_status" (1 parsed, 0 fell back to 0)}``.
  Its records name the query and the passage by their text, so each is matched to the
  workspace's topic and document of exactly that text (``qid``/``docid`` fields, or ``query.qid``
  and ``candidate.docid``, are used first when a record has them). A record whose text matches
  no topic or document is counted as ``unmatched`` (the first few lines are listed), one that
  matches several documents as ``ambiguous``; neither gets a label. ``result_status`` 0 means
  UMBRELA could not read the model's answer and wrote 0: it is kept as an ``error`` (no label),
  never as a 0.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Optional

from qrelkit.errors import InputError, UsageError
from qrelkit.relevance import AUTO, ERROR
from qrelkit.store.imports import IMPORTED
from qrelkit.types import Judgment, Provenance

if TYPE_CHECKING:
    from qrelkit.store import Store

PREFIX = "imported:"
MAX_GRADE = 3


def method_of(name: str) -> str:
    name = name.strip()
    if not name or any(c.isspace() for c in name):
        raise UsageError(f"--source {name!r}: give a name without spaces (it becomes the method imported:NAME)")
    return PREFIX + name


def is_imported(method: Optional[str]) -> bool:
    return bool(method) and str(method).startswith(PREFIX)


@dataclass
class ImportReport:
    """What an import did: the version, how many labels, and what was left out and why."""

    method: str
    path: str
    format: str
    labels: int = 0
    errors: int = 0  # kept undecided (UMBRELA's result_status 0)
    unmatched: int = 0
    ambiguous: int = 0
    replaced: int = 0
    unmatched_lines: list[int] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"method": self.method, "file": self.path, "format": self.format, "labels": self.labels,
                "errors": self.errors, "unmatched": self.unmatched, "ambiguous": self.ambiguous,
                "replaced": self.replaced, "unmatched_lines": self.unmatched_lines[:10]}


def _judgment(qid: str, docid: str, method: str, model: str, grade: Optional[int], threshold: int,
              imported: dict, status: str = "auto") -> Judgment:
    prov = Provenance({"source": IMPORTED, "method": method, "model": model, "status": status,
                       "imported": imported}).to_json()
    label = None if grade is None else int(grade >= threshold)
    return Judgment(qid=qid, docid=docid, method=method, model=model, label=label, grade=grade, status=status,
                    source=IMPORTED, provenance=prov)


def trec_judgments(path: Path, method: str, threshold: int, model: str = "") -> Iterator[Judgment]:
    from qrelkit.data import load_qrels

    for (qid, docid), grade in sorted(load_qrels(str(path)).pairs.items()):
        yield _judgment(qid, docid, method, model, int(grade), threshold,
                        {"format": "trec", "file": str(path), "name": method[len(PREFIX):]})


def import_trec(store: Store, path: Path, name: str, threshold: int, model: str = "") -> ImportReport:
    method = method_of(name)
    rows = list(trec_judgments(path, method, threshold, model))
    replaced, added = store.replace_imported(method, rows)
    return ImportReport(method, str(path), "trec", labels=added, replaced=replaced)


# ---- UMBRELA -------------------------------------------------------------------------------------
def _records(path: Path) -> Iterator[tuple[int, dict]]:
    from qrelkit.data._open import iter_lines

    for n, line in iter_lines(path):
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(path, n, f"not a JSON object ({e.msg})") from None
        if not isinstance(rec, dict):
            raise InputError(path, n, "not a JSON object")
        yield n, rec


def _text(value: Any, *keys: str) -> Optional[str]:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        for k in keys:
            if isinstance(value.get(k), str):
                return value[k]
            if isinstance(value.get(k), dict):
                return _text(value[k], *keys)
    return None


def _grade(path: Path, n: int, rec: dict) -> int:
    g = rec.get("judgment", rec.get("judgement"))
    if isinstance(g, float) and g.is_integer():
        g = int(g)
    if isinstance(g, bool) or not isinstance(g, int) or not 0 <= g <= MAX_GRADE:
        raise InputError(path, n, f"'judgment' must be an integer 0-{MAX_GRADE}, got {g!r}")
    return g


class _Matcher:
    """Topic and document ids by their exact text (stripped), read once from the workspace."""

    def __init__(self, store: Store, passages: set[str]):
        self.topics: dict[str, list[str]] = {}
        for t in store.topics().values():
            self.topics.setdefault(t.text.strip(), []).append(t.qid)
        self.docs: dict[str, list[str]] = {}
        for docid, text in store.iter_doc_texts():
            key = text.strip()
            if key in passages:
                self.docs.setdefault(key, []).append(docid)

    def qid(self, rec: dict) -> list[str]:
        given = rec.get("qid") or (rec["query"].get("qid") if isinstance(rec.get("query"), dict) else None)
        if given is not None:
            return [str(given)]
        return self.topics.get((_text(rec.get("query"), "text") or "").strip(), [])

    def docid(self, rec: dict) -> list[str]:
        cand = rec.get("candidate") if isinstance(rec.get("candidate"), dict) else {}
        given = rec.get("docid") or cand.get("docid")
        if given is not None:
            return [str(given)]
        return self.docs.get((_text(rec.get("passage"), "segment", "text", "doc") or "").strip(), [])


def import_umbrela(store: Store, path: Path, name: str, threshold: int, model: Optional[str] = None) -> ImportReport:
    method = method_of(name)
    records = list(_records(path))
    passages = {(_text(r.get("passage"), "segment", "text", "doc") or "").strip() for _, r in records}
    match = _Matcher(store, passages)
    report = ImportReport(method, str(path), "umbrela")
    rows: dict[tuple[str, str], Judgment] = {}
    for n, rec in records:
        grade = _grade(path, n, rec)
        qids, docids = match.qid(rec), match.docid(rec)
        if not qids or not docids:
            report.unmatched += 1
            report.unmatched_lines.append(n)
            continue
        if len(qids) > 1 or len(docids) > 1:
            report.ambiguous += 1
            continue
        parsed = rec.get("result_status", 1) != 0
        who = model if model is not None else str(rec.get("model") or "")
        info = {"format": "umbrela", "file": str(path), "line": n, "name": name,
                "result_status": rec.get("result_status"), "prediction": str(rec.get("prediction", ""))[:500]}
        rows[(qids[0], docids[0])] = _judgment(qids[0], docids[0], method, who, grade if parsed else None, threshold,
                                               info, AUTO if parsed else ERROR)
    report.replaced, _ = store.replace_imported(method, rows.values())
    report.labels = sum(j.label is not None for j in rows.values())
    report.errors = sum(j.label is None for j in rows.values())
    return report
