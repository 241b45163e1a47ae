"""Judgments: every verdict of every (method, model), people's decided labels included.

Keyed by (qid, docid, method, model), so re-judging replaces and never
duplicates; an ``error`` row is retried by the next run of its method.
"""
from __future__ import annotations

import json
from typing import Any, Iterable, Iterator, NamedTuple, Optional

from qrelkit.relevance import ERROR, ESCALATE
from qrelkit.store.core import now
from qrelkit.store.waiting import PEOPLE_METHOD
from qrelkit.types import Judgment

Pair = tuple[str, str]

_JCOLS = (
    "qid, docid, method, model, label, grade, status, source, round, rationale, evidence, "
    "provenance, calls, prompt_tokens, completion_tokens, cost_usd"
)


class MethodCount(NamedTuple):
    method: str
    model: str
    judgments: int


class JudgmentStore:
    """Reading and writing judgments (mixin of :class:`qrelkit.store.Store`)."""

    _JCOLS = _JCOLS

    def put_judgments(self, judgments: Iterable[Judgment]) -> int:
        """Upsert by (qid, docid, method, model): re-judging replaces, never duplicates."""
        t = now()
        # "[]" written out: most verdicts quote no evidence, and json.dumps is one per judgment
        rows = [
            (
                j.qid, j.docid, j.method, j.model, j.label, j.grade, j.status, j.source, j.round,
                j.rationale, json.dumps(list(j.evidence)) if j.evidence else "[]", j.provenance, j.calls, j.prompt_tokens,
                j.completion_tokens, j.cost_usd, t, t,
            )
            for j in judgments
        ]
        with self.transaction() as c:
            self.flush_calls()  # the answers behind these verdicts first (qrelkit.store.llm_calls)
            c.executemany(
                f"INSERT INTO judgments({_JCOLS}, created_at, updated_at) "
                "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
                "ON CONFLICT(qid, docid, method, model) DO UPDATE SET label=excluded.label, "
                "grade=excluded.grade, status=excluded.status, source=excluded.source, round=excluded.round, "
                "rationale=excluded.rationale, evidence=excluded.evidence, provenance=excluded.provenance, "
                "calls=excluded.calls, prompt_tokens=excluded.prompt_tokens, "
                "completion_tokens=excluded.completion_tokens, cost_usd=excluded.cost_usd, "
                "updated_at=excluded.updated_at",
                rows,
            )
        return len(rows)

    def judgments(
        self,
        method: Optional[str] = None,
        model: Optional[str] = None,
        status: Optional[str] = None,
        source: Optional[str] = None,
    ) -> list[Judgment]:
        sql = f"SELECT {_JCOLS} FROM judgments WHERE 1=1"
        params: list[Any] = []
        for col, val in (("method", method), ("model", model), ("status", status), ("source", source)):
            if val is not None:
                sql += f" AND {col}=?"
                params.append(val)
        sql += " ORDER BY qid, docid, method, model"
        return [_judgment_row(r) for r in self.query(sql, params)]

    def iter_judgments(
        self, method: str, model: Optional[str] = None, source: Optional[str] = None
    ) -> Iterator[Judgment]:
        """One method's judgments (of one model, unless None) in (qid, docid, model)
        order, streamed: the primary key's order, so SQLite neither sorts nor holds them."""
        sql = f"SELECT {_JCOLS} FROM judgments WHERE method=?"
        params: list[Any] = [method]
        for col, val in (("model", model), ("source", source)):
            if val is not None:
                sql += f" AND {col}=?"
                params.append(val)
        return (_judgment_row(r) for r in self.iter_query(sql + " ORDER BY qid, docid, method, model", params))

    def judgment_labels(self) -> list[Judgment]:
        """Every judgment without its texts (rationale, evidence and provenance read as empty):
        what agreement needs, at a third of the memory of :meth:`judgments`."""
        return list(self.iter_judgment_labels())

    def iter_judgment_labels(self, source: Optional[str] = None, not_source: Optional[str] = None
                             ) -> Iterator[Judgment]:
        """:meth:`judgment_labels` streamed (of one ``source``, or of all but ``not_source``), by
        qid, docid, method and model: the report measures agreement in one pass over them, since
        holding 667,000 of them took ~300 MB at 10^6 pooled pairs (benchmarks/scale.py). Do not
        write to the store while iterating."""
        where, params = "", ()
        if source is not None:
            where, params = " WHERE source=?", (source,)
        elif not_source is not None:
            where, params = " WHERE source!=?", (not_source,)
        sql = (
            "SELECT qid, docid, method, model, label, grade, status, source, round, '', '[]', '{}', "
            f"calls, prompt_tokens, completion_tokens, cost_usd FROM judgments{where} "
            "ORDER BY qid, docid, method, model"
        )
        names: dict[str, str] = {}  # one string object per method and model name
        for r in self.iter_query(sql, params):
            yield _judgment_row((*r[:2], names.setdefault(r[2], r[2]), names.setdefault(r[3], r[3]), *r[4:]))

    def judgment_costs(self) -> list[tuple[str, str, int, int, int, int, float]]:
        """``(method, model, judgments, calls, prompt_tokens, completion_tokens, cost_usd)`` per
        (method, model), summed in SQL."""
        return self.query(
            "SELECT method, model, COUNT(*), SUM(calls), SUM(prompt_tokens), SUM(completion_tokens), "
            "SUM(cost_usd) FROM judgments GROUP BY method, model ORDER BY method, model"
        )

    def judge_methods(self) -> list[str]:
        """Every method that wrote judge (not people's) judgments, sorted."""
        return [m for (m,) in self.query("SELECT DISTINCT method FROM judgments WHERE source != 'human' ORDER BY method")]

    def has_finished(self, method: str, model: str) -> bool:
        """Has this (method, model) finished any pair (anything but an error, which is retried)?"""
        return bool(self.query(
            f"SELECT 1 FROM judgments WHERE method=? AND model=? AND status != '{ERROR}' LIMIT 1", (method, model)
        ))

    def human_pairs(self) -> set[Pair]:
        """Pairs that people have decided (their label wins over every judge's)."""
        return {(q, d) for q, d in self.query("SELECT qid, docid FROM judgments WHERE source='human'")}

    def people_labels(self) -> list[Judgment]:
        """People's decided labels (the annotation app's majority or median), by qid and docid."""
        return self.judgments(method=PEOPLE_METHOD, source="human")

    def escalation_provenances(self, qid: str, docid: str) -> list[str]:
        """The provenance of each escalating judgment of a pair, debate methods first."""
        return [
            p for (p,) in self.query(
                f"SELECT provenance FROM judgments WHERE qid=? AND docid=? AND status IN ('{ESCALATE}', '{ERROR}') "
                "ORDER BY (method LIKE 'debate%') DESC, method, model",
                (qid, docid),
            )
        ]

    # ---- which judges ran ----------------------------------------------------
    def latest_llm_method(self) -> Optional[tuple[str, str]]:
        """The (method, model) of the most recently written judge (not people's) judgment."""
        rows = self.query("SELECT method, model FROM judgments WHERE source NOT IN ('human', 'imported') "
                          "ORDER BY updated_at DESC LIMIT 1")
        return (rows[0][0], rows[0][1]) if rows else None

    def models_of(self, method: str) -> list[str]:
        """The models a method was run with."""
        return [m for (m,) in self.query("SELECT DISTINCT model FROM judgments WHERE method=? ORDER BY model", (method,))]

    def has_judgments(self, method: str, model: str) -> bool:
        return bool(self.query("SELECT 1 FROM judgments WHERE method=? AND model=? LIMIT 1", (method, model)))

    def judge_models(self) -> list[str]:
        """Every non-empty model that wrote judge (not people's) judgments, sorted."""
        return [
            m for (m,) in self.query("SELECT DISTINCT model FROM judgments WHERE source != 'human' ORDER BY model") if m
        ]

    def method_counts(self) -> list[MethodCount]:
        return [
            MethodCount(*r)
            for r in self.query("SELECT method, model, COUNT(*) FROM judgments GROUP BY method, model ORDER BY method, model")
        ]

    def status_counts(self, method: Optional[str] = None, model: Optional[str] = None) -> dict[str, int]:
        """Judgments per status (``relevant``, ``escalate``, ``human``, ...); with ``method`` and
        ``model``, that judge's only (a job's)."""
        if method is not None:
            return dict(self.query("SELECT status, COUNT(*) FROM judgments WHERE method=? AND model=? "
                                   "GROUP BY status ORDER BY status", (method, model)))
        return dict(self.query("SELECT status, COUNT(*) FROM judgments GROUP BY status ORDER BY status"))

    def not_judged_by(self, method: str, model: str, share: str = "llm") -> int:
        """Unlabelled cases of ``share`` with document text that (method, model) has no verdict for
        (not even an error): what a ``--limit`` or an interruption left."""
        return self.scalar(
            "SELECT COUNT(*) FROM cases c WHERE judged=0 AND share=? "
            "AND EXISTS (SELECT 1 FROM docs d WHERE d.docid = c.docid) AND NOT EXISTS ("
            "SELECT 1 FROM judgments j WHERE j.qid=c.qid AND j.docid=c.docid AND j.method=? AND j.model=?)",
            (share, method, model),
        )

    def pending_for_judge(self) -> int:
        """Holes of the LLM share (with document text) that no judge has a final (non-error) verdict for yet."""
        return self.scalar(
            "SELECT COUNT(*) FROM cases c WHERE judged=0 AND share='llm' "
            "AND EXISTS (SELECT 1 FROM docs d WHERE d.docid = c.docid) AND NOT EXISTS ("
            "SELECT 1 FROM judgments j WHERE j.qid=c.qid AND j.docid=c.docid AND j.source NOT IN ('human', 'imported') "
            f"AND j.status != '{ERROR}')"
        )


def _judgment_row(r: tuple) -> Judgment:
    (qid, docid, method, model, label, grade, status, source, rnd, rationale, evidence, prov, calls, pt, ct,
     cost) = r
    return Judgment(
        qid, docid, method, model, label, grade, status, source, rnd, rationale,
        tuple(json.loads(evidence)), prov, calls, pt, ct, cost,
    )
