"""Topics: ``qid<TAB>text`` (TSV) or one JSON object per line (JSONL).

JSONL carries what TSV cannot: ``answers`` (a list of strings; enables the
answer-aware judging task), ``narrative`` and ``description``. The id may be
called ``qid``, ``query_id`` or ``id`` and the text ``text`` or ``query``,
because those are the names existing collections use.

The format comes from the extension (``.tsv``/``.txt`` or ``.jsonl``/``.json``,
looking past ``.gz``); anything else is sniffed from the first line (``{``
means JSONL). An empty topics file is an error: there is nothing to judge or
evaluate without topics, so an empty file is almost certainly the wrong file.
A TSV header line is not recognised; it would become a topic.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from qrelkit.data import irds
from qrelkit.data._open import PathLike, first_content_line, iter_lines, parse_json, strip_gz
from qrelkit.data.unique import UniqueById
from qrelkit.errors import InputError
from qrelkit.types import Topic

QID_KEYS = ("qid", "query_id", "id")
TEXT_KEYS = ("text", "query")


def detect_format(path: PathLike, tsv_suffixes=(".tsv", ".txt"), json_suffixes=(".jsonl", ".json")) -> str:
    """``"jsonl"`` or ``"tsv"``: by extension (past ``.gz``), else by the first line."""
    name = strip_gz(Path(path).name).lower()
    if name.endswith(tuple(json_suffixes)):
        return "jsonl"
    if name.endswith(tuple(tsv_suffixes)):
        return "tsv"
    first = first_content_line(path)
    return "jsonl" if first is not None and first.lstrip().startswith("{") else "tsv"


def parse_json_object(path: PathLike, lineno: int, line: str) -> dict[str, Any]:
    """One JSONL line as a dict, or an InputError saying what is wrong with it."""
    obj = parse_json(path, lineno, line)
    if not isinstance(obj, dict):
        raise InputError(path, lineno, f"expected a JSON object, got {type(obj).__name__}")
    return obj


def pick(obj: dict[str, Any], keys: tuple[str, ...]) -> tuple[str | None, Any]:
    """The first of ``keys`` present in ``obj`` and its value."""
    for key in keys:
        if key in obj:
            return key, obj[key]
    return None, None


def json_id(path: PathLike, lineno: int, obj: dict[str, Any], keys: tuple[str, ...], what: str) -> str:
    key, value = pick(obj, keys)
    if key is None:
        raise InputError(path, lineno, f"missing {what} field (one of {', '.join(keys)})")
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(path, lineno, f"{key} must be a string or integer, got {json.dumps(value)}")
    text = str(value).strip()
    if not text:
        raise InputError(path, lineno, f"{key} is empty")
    return text


def _optional_str(path: PathLike, lineno: int, obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError(path, lineno, f"{key} must be a string, got {json.dumps(value)}")
    return value


def _topic_from_json(path: PathLike, lineno: int, line: str) -> Topic:
    obj = parse_json_object(path, lineno, line)
    qid = json_id(path, lineno, obj, QID_KEYS, "topic id")
    key, text = pick(obj, TEXT_KEYS)
    if key is None:
        raise InputError(path, lineno, f"missing query text field (one of {', '.join(TEXT_KEYS)})")
    if not isinstance(text, str):
        raise InputError(path, lineno, f"{key} must be a string, got {json.dumps(text)}")
    if not text.strip():
        raise InputError(path, lineno, f"empty query text for topic {qid}")
    answers = obj.get("answers")
    if answers is None:
        answers = []
    if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
        raise InputError(path, lineno, f"answers must be a list of strings, got {json.dumps(answers)}")
    return Topic(
        qid=qid,
        text=text.strip(),
        answers=tuple(answers),
        narrative=_optional_str(path, lineno, obj, "narrative"),
        description=_optional_str(path, lineno, obj, "description"),
    )


def _topic_from_tsv(path: PathLike, lineno: int, line: str) -> Topic:
    cols = line.split("\t", 1)
    if len(cols) != 2:
        raise InputError(path, lineno, "expected 2 tab-separated columns (qid<TAB>text), got 1")
    qid, text = cols[0].strip(), cols[1].strip()
    if not qid:
        raise InputError(path, lineno, "empty topic id")
    if not text:
        raise InputError(path, lineno, f"empty query text for topic {qid}")
    return Topic(qid=qid, text=text)


def _iter_with_lines(path: PathLike) -> Iterator[tuple[int, Topic]]:
    if irds.is_irds(path):
        for n, f in enumerate(irds.iter_topic_fields(str(path)), start=1):
            if not f["text"].strip():
                raise InputError(path, None, f"topic {f['qid']} has no text in this dataset")
            yield n, Topic(qid=f["qid"], text=f["text"].strip(), narrative=f["narrative"],
                           description=f["description"])
        return
    parse = _topic_from_json if detect_format(path) == "jsonl" else _topic_from_tsv
    count = 0
    for lineno, line in iter_lines(path):
        count += 1
        yield lineno, parse(path, lineno, line)
    if count == 0:
        raise InputError(path, None, "no topics found (the file is empty)")


def read_topics(path: PathLike) -> Iterator[Topic]:
    """Stream topics from a TSV or JSONL file, or an ``irds:`` dataset, as they
    are (repeats included); :func:`unique_topics` and :func:`load_topics` check ids."""
    for _, topic in _iter_with_lines(path):
        yield topic


def unique_topics(path: PathLike) -> UniqueById[Topic]:
    """The topics once each: an identical repeat is dropped and counted
    (``.duplicates``), a repeated qid with a different text is an error naming
    both lines, since which text to judge against would otherwise be arbitrary."""
    return UniqueById(path, _iter_with_lines(path), key=lambda t: t.qid, what="topic")


def load_topics(path: PathLike) -> dict[str, Topic]:
    """All topics by qid, in file order (duplicates as in :func:`unique_topics`)."""
    return {topic.qid: topic for topic in unique_topics(path)}
