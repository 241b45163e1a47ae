"""Merged qrels under the column names other tools read.

ir_measures reads a DataFrame (or TSV) of ``query_id, doc_id, relevance``; PyTerrier's qrels
DataFrames are ``qid, docno, label``; qrelkit's own names are ``qid, docid, grade``. The id and
grade columns come first, renamed; the provenance columns follow under qrelkit's names
(``source, status, method, model, round``; a DataFrame also has the ``provenance`` JSON), so a
table read by either tool still says where every label came from.
"""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Any, Callable, TextIO

from qrelkit.errors import UsageError

TREC = "trec"
NAMES = {
    "qrelkit": ("qid", "docid", "grade"),
    "ir_measures": ("query_id", "doc_id", "relevance"),
    "pyterrier": ("qid", "docno", "label"),
}
FORMATS = (TREC, "ir_measures", "pyterrier")
PROVENANCE_COLUMNS = ("source", "status", "method", "model", "round")


def names(columns: str) -> tuple[str, str, str]:
    if columns not in NAMES:
        raise UsageError(f"columns {columns!r}: choose from {', '.join(NAMES)}")
    return NAMES[columns]


def renamed(frame: Any, columns: str) -> Any:
    """A DataFrame of merged labels (qrelkit's column names) under ``columns``' names, ids first."""
    ids = names(columns)
    frame = frame.rename(columns=dict(zip(NAMES["qrelkit"], ids)))
    rest = [c for c in frame.columns if c not in ids]
    return frame[[*ids, *rest]]


def row_writer(fh: TextIO, fmt: str, out: Path) -> Callable[[Any], None]:
    """A function writing one merged label to ``fh``: a TREC qrels line, or a table row (CSV when
    ``out`` ends in ``.csv``, else tab-separated) after a header line."""
    if fmt == TREC:
        return lambda label: fh.write(f"{label.qid} 0 {label.docid} {label.grade}\n")
    if fmt not in NAMES:
        raise UsageError(f"--format {fmt!r}: choose from {', '.join(FORMATS)}")
    writer = csv.writer(fh, delimiter="," if out.suffix.lower() == ".csv" else "\t", lineterminator="\n")
    writer.writerow([*names(fmt), *PROVENANCE_COLUMNS])
    return lambda label: writer.writerow([label.qid, label.docid, label.grade,
                                          *(getattr(label, c) for c in PROVENANCE_COLUMNS)])
