"""Case lists: the cases of a workspace as a TSV or JSONL file, and back.

A case list is how a pool leaves qrelkit (``qrelkit pool --out``) to be
inspected, edited or judged elsewhere, and how a hand-made list comes in: a
TSV needs a header naming at least ``qid`` and ``docid``, other columns
default. Errors name the file and line.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from qrelkit.data._open import PathLike, iter_lines, open_write, strip_gz
from qrelkit.data.numbers import INT32_MAX, plain_int
from qrelkit.data.topics import parse_json_object
from qrelkit.errors import InputError
from qrelkit.types import Case

SHARES = ("people", "llm")  # who judges a case by design (see qrelkit.pooling.pool: the hybrid split)

CASE_COLUMNS = ("qid", "docid", "share", "best_rank", "runs", "judged")


def _case_format(path: PathLike) -> str:
    name = strip_gz(Path(path).name).lower()
    if name.endswith((".jsonl", ".json")):
        return "jsonl"
    if name.endswith((".tsv", ".txt")):
        return "tsv"
    raise InputError(path, None, "unknown case list format: use a .tsv or .jsonl file (optionally .gz)")


def write_cases(path: PathLike, cases: Iterable[Case]) -> int:
    """Export cases as TSV (with a header; runs comma-separated, judged 1/0) or
    JSONL, chosen by extension, gzipped for ``.gz``. Returns the number written."""
    fmt = _case_format(path)
    cases = list(cases)
    if fmt == "tsv":
        for c in cases:
            for value in (c.qid, c.docid, *c.runs):
                if any(ch in value for ch in "\t\n\r") or (value in c.runs and "," in value):
                    raise InputError(path, None, f"cannot write {value!r} to a TSV case list; use .jsonl")
    with open_write(path) as fh:
        if fmt == "tsv":
            fh.write("\t".join(CASE_COLUMNS) + "\n")
            for c in cases:
                fh.write(f"{c.qid}\t{c.docid}\t{c.share}\t{c.best_rank}\t{','.join(c.runs)}\t{int(c.judged)}\n")
        else:
            for c in cases:
                fh.write(json.dumps({"qid": c.qid, "docid": c.docid, "share": c.share,
                                     "best_rank": c.best_rank, "runs": list(c.runs),
                                     "judged": c.judged}, ensure_ascii=False) + "\n")
    return len(cases)


def _share(path: PathLike, lineno: int, value: Any) -> str:
    if value not in SHARES:
        raise InputError(path, lineno, f"share must be 'people' or 'llm', got {value!r}")
    return value


def _rank(path: PathLike, lineno: int, value: Any) -> int:
    """A JSON integer or a plain ASCII one (:mod:`qrelkit.data.numbers`), 0 to 2^31-1."""
    rank = plain_int(value) if isinstance(value, str) else value
    if type(rank) is not int or rank < 0:
        raise InputError(path, lineno, f"best_rank must be a non-negative integer, got {value!r}")
    if rank > INT32_MAX:
        raise InputError(path, lineno, f"best_rank must be at most {INT32_MAX}, got {value!r}")
    return rank


def _judged(path: PathLike, lineno: int, value: Any) -> bool:
    table = {"1": True, "0": False, "true": True, "false": False, True: True, False: False}
    key = value.lower() if isinstance(value, str) else value
    if isinstance(key, int) and not isinstance(key, bool):
        key = str(key)
    if key not in table:
        raise InputError(path, lineno, f"judged must be 1/0 or true/false, got {value!r}")
    return table[key]


def _ident(path: PathLike, lineno: int, value: Any, what: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)) or not str(value).strip():
        raise InputError(path, lineno, f"{what} must be a non-empty string, got {json.dumps(value)}")
    return str(value).strip()


def read_cases(path: PathLike) -> Iterator[Case]:
    """Stream a case list written by :func:`write_cases` (or made by hand: a TSV
    needs a header naming at least ``qid`` and ``docid``; other columns default)."""
    try:
        fmt = _case_format(path)
    except InputError:
        from qrelkit.data.topics import detect_format

        fmt = detect_format(path)
    lines = iter_lines(path)
    if fmt == "jsonl":
        for lineno, line in lines:
            obj = parse_json_object(path, lineno, line)
            for key in ("qid", "docid"):
                if key not in obj:
                    raise InputError(path, lineno, f"missing {key} field")
            runs = obj.get("runs", [])
            if not isinstance(runs, list) or not all(isinstance(r, str) for r in runs):
                raise InputError(path, lineno, f"runs must be a list of strings, got {json.dumps(runs)}")
            yield Case(
                qid=_ident(path, lineno, obj["qid"], "qid"),
                docid=_ident(path, lineno, obj["docid"], "docid"),
                share=_share(path, lineno, obj.get("share", "llm")),
                best_rank=_rank(path, lineno, obj.get("best_rank", 0)),
                runs=tuple(runs),
                judged=_judged(path, lineno, obj.get("judged", False)),
            )
        return
    header: list[str] | None = None
    for lineno, line in lines:
        cols = line.split("\t")
        if header is None:
            header = [c.strip() for c in cols]
            unknown = [c for c in header if c not in CASE_COLUMNS]
            if unknown or "qid" not in header or "docid" not in header or len(set(header)) != len(header):
                raise InputError(
                    path, lineno,
                    "expected a header line naming the columns (qid, docid and optionally "
                    f"share, best_rank, runs, judged), got {line!r}",
                )
            continue
        if len(cols) != len(header):
            raise InputError(path, lineno, f"expected {len(header)} tab-separated columns, got {len(cols)}")
        row = dict(zip(header, cols))
        runs_text = row.get("runs", "").strip()
        yield Case(
            qid=_ident(path, lineno, row["qid"], "qid"),
            docid=_ident(path, lineno, row["docid"], "docid"),
            share=_share(path, lineno, row.get("share", "llm").strip()),
            best_rank=_rank(path, lineno, row.get("best_rank", "0").strip()),
            runs=tuple(r for r in runs_text.split(",") if r) if runs_text else (),
            judged=_judged(path, lineno, row.get("judged", "0").strip()),
        )
