"""The workspace's RAG tables: generated answers and their correctness grades.

Why they are stored: generation and grading cost one LLM call per distinct
context or answer, and a run of them can be stopped at any point. Each answer
and each grade is written as soon as it exists, keyed by what determines it,
so a re-run skips finished work (and retries errors) instead of paying twice.

- ``rag_answers``: one row per (system, qid, generator model, k, prompt version);
  ``context`` is the JSON list of the top-k docids the answer was generated from,
  so a changed run regenerates; ``answer`` is NULL exactly when ``error`` is set.
- ``rag_grades``: one row per (system, qid, generator, grader model); ``answer`` is
  the graded text, so a regenerated answer is graded again; ``correct`` is NULL
  exactly when ``error`` is set.

The tables come from migration 3 in :mod:`qrelkit.store.schema`; this module
owns every statement on them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterable, Optional

from qrelkit.store.core import now
from qrelkit.types import Usage


@dataclass(frozen=True)
class Answer:
    """One system's generated answer to one topic (``answer`` is None when generation failed)."""

    system: str
    qid: str
    model: str
    k: int
    prompt: str
    context: tuple[str, ...]
    answer: Optional[str]
    missing: tuple[str, ...] = ()
    error: Optional[str] = None
    usage: Usage = Usage()  # what generating it cost (a context shared by several systems: the first)

    @property
    def ok(self) -> bool:
        return self.error is None and self.answer is not None


@dataclass(frozen=True)
class Grade:
    """Whether one generated answer captures a gold answer (``correct`` None when grading failed)."""

    system: str
    qid: str
    generator: str
    grader: str
    prompt: str
    answer: str
    correct: Optional[bool]
    reason: str = ""
    error: Optional[str] = None
    usage: Usage = Usage()  # what grading it cost (an answer shared by several systems: the first)

    @property
    def ok(self) -> bool:
        return self.error is None and self.correct is not None


_USAGE_COLS = "calls, prompt_tokens, completion_tokens, cost_usd"
_ACOLS = f"system, qid, model, k, prompt, context, missing, answer, error, {_USAGE_COLS}"
_GCOLS = f"system, qid, generator, grader, prompt, answer, correct, reason, error, {_USAGE_COLS}"


def _usage_columns(u: Usage) -> tuple:
    """A record's Usage as the four stored columns (cache hits are not stored: they cost nothing)."""
    return u.calls, u.prompt_tokens, u.completion_tokens, u.cost_usd


def _usage(calls: int, prompt_tokens: int, completion_tokens: int, cost_usd: float) -> Usage:
    return Usage(calls=calls, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, cost_usd=cost_usd)


class RagStore:
    """Mixin of :class:`qrelkit.store.Store`: typed access to the RAG tables."""

    def put_answers(self, answers: Iterable[Answer]) -> int:
        return self._insert("rag_answers", _ACOLS, [
            (a.system, a.qid, a.model, a.k, a.prompt, json.dumps(list(a.context)), json.dumps(list(a.missing)),
             a.answer, a.error, *_usage_columns(a.usage), now())
            for a in answers
        ])

    def rag_answers(self, model: Optional[str] = None, k: Optional[int] = None,
                    prompt: Optional[str] = None) -> list[Answer]:
        rows = self._select("rag_answers", _ACOLS, "model, system, qid", model=model, k=k, prompt=prompt)
        return [
            Answer(s, q, m, k_, p, tuple(json.loads(ctx)), ans, tuple(json.loads(miss)), err, _usage(*usage))
            for s, q, m, k_, p, ctx, miss, ans, err, *usage in rows
        ]

    def put_grades(self, grades: Iterable[Grade]) -> int:
        return self._insert("rag_grades", _GCOLS, [
            (g.system, g.qid, g.generator, g.grader, g.prompt, g.answer,
             None if g.correct is None else int(g.correct), g.reason, g.error, *_usage_columns(g.usage), now())
            for g in grades
        ])

    def rag_grades(self, grader: Optional[str] = None, generator: Optional[str] = None) -> list[Grade]:
        rows = self._select("rag_grades", _GCOLS, "generator, grader, system, qid", grader=grader,
                            generator=generator)
        return [
            Grade(s, q, gen, gr, p, ans, None if c is None else bool(c), reason, err, _usage(*usage))
            for s, q, gen, gr, p, ans, c, reason, err, *usage in rows
        ]

    def _insert(self, table: str, cols: str, rows: list[tuple]) -> int:
        """Rows of ``cols`` and then ``created_at``; a row with the same key replaces the old one."""
        marks = ",".join("?" * (cols.count(",") + 2))
        with self.transaction() as c:  # type: ignore[attr-defined]
            c.executemany(f"INSERT OR REPLACE INTO {table}({cols}, created_at) VALUES({marks})", rows)
        return len(rows)

    def _select(self, table: str, cols: str, order: str, **equal: object) -> list[tuple]:
        """``cols`` of the rows whose columns equal the given values (None: any value)."""
        sql, params = f"SELECT {cols} FROM {table} WHERE 1=1", []
        for col, val in equal.items():
            if val is not None:
                sql += f" AND {col}=?"
                params.append(val)
        return self.query(sql + f" ORDER BY {order}", params)  # type: ignore[attr-defined]
