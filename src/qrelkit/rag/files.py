"""The two RAG files: ``answers.jsonl`` (from ``rag generate``) and the correctness file
(from ``rag grade``), one JSON object per line.

answers.jsonl keys: ``system``, ``qid``, ``answer`` (null when generation failed),
``context`` (the top-k docids), ``missing`` (those without text), ``model``,
``prompt`` (template version), ``k``, ``error``, and what the answer cost (``calls``,
``prompt_tokens``, ``completion_tokens``, ``cost_usd``; a context shared by several systems
is billed to the first).

Correctness keys: ``system``, ``qid``, ``correct`` (true/false), ``reason``,
``answer``, ``generator``, ``grader``, ``prompt`` — the keys ``ragalign``'s
generation reader needs come first, so the file is its ``--generation`` input
as it is. Failed grades are not written (no verdict is invented); the command
reports them.
"""
from __future__ import annotations

import json
from typing import Any, Iterable

from qrelkit.data._open import PathLike, check_surrogates, iter_lines, open_write
from qrelkit.errors import InputError
from qrelkit.store.rag import Answer, Grade
from qrelkit.types import Usage

_REQUIRED = ("system", "qid", "answer")
_USAGE = ("calls", "prompt_tokens", "completion_tokens", "cost_usd")  # an answer's cost (no cache hits)


def answer_record(a: Answer) -> dict:
    return {
        "system": a.system, "qid": a.qid, "answer": a.answer, "context": list(a.context),
        "missing": list(a.missing), "model": a.model, "prompt": a.prompt, "k": a.k, "error": a.error,
        **{key: getattr(a.usage, key) for key in _USAGE},
    }


def grade_record(g: Grade) -> dict:
    return {
        "system": g.system, "qid": g.qid, "correct": g.correct, "reason": g.reason, "answer": g.answer,
        "generator": g.generator, "grader": g.grader, "prompt": g.prompt,
    }


def write_jsonl(path: PathLike, records: Iterable[dict]) -> int:
    n = 0
    with open_write(path) as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
            n += 1
    return n


def read_answers(path: PathLike) -> tuple[Answer, ...]:
    """Read an answers file; errors name the file and line. Duplicate (system, qid) is an error."""
    out: list[Answer] = []
    seen: dict[tuple[str, str], int] = {}
    for lineno, line in iter_lines(path):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(path, lineno, f"not valid JSON: {e.msg}") from None
        check_surrogates(path, lineno, obj)
        if not isinstance(obj, dict):
            raise InputError(path, lineno, "expected a JSON object")
        missing = [k for k in _REQUIRED if k not in obj]
        if missing:
            raise InputError(path, lineno, f"missing key(s) {', '.join(missing)}")
        system, qid, answer = _text(path, lineno, obj, "system"), _text(path, lineno, obj, "qid"), obj["answer"]
        if answer is not None and not isinstance(answer, str):
            raise InputError(path, lineno, f"answer must be a string or null, got {json.dumps(answer)}")
        if (system, qid) in seen:
            raise InputError(path, lineno, f"second answer for system {system!r}, query {qid!r} "
                                           f"(first on line {seen[(system, qid)]})")
        seen[(system, qid)] = lineno
        error = obj.get("error") or (None if answer is not None else "no answer")
        out.append(Answer(
            system, qid, str(obj.get("model") or "unknown"), _num(path, lineno, obj, "k", int), str(obj.get("prompt") or ""),
            tuple(str(d) for d in obj.get("context") or ()), answer, tuple(str(d) for d in obj.get("missing") or ()),
            error, Usage(**{key: _num(path, lineno, obj, key, float if key == "cost_usd" else int) for key in _USAGE}),
        ))
    if not out:
        raise InputError(path, None, "no answers (the file is empty)")
    return tuple(out)


def _text(path: PathLike, lineno: int, obj: dict, key: str) -> str:
    value: Any = obj[key]
    if isinstance(value, bool) or not isinstance(value, (str, int)) or not str(value).strip():
        raise InputError(path, lineno, f"{key} must be a non-empty string, got {json.dumps(value)}")
    return str(value).strip()


def _num(path: PathLike, lineno: int, obj: dict, key: str, cast: type) -> Any:
    value = obj.get(key) or 0
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(path, lineno, f"{key} must be a number, got {json.dumps(value)}")
    return cast(value)
