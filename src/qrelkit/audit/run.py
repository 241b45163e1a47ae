"""``qrelkit audit``: judge a collection's labelled pairs and their probes, count the flips.

The untouched pairs and every probe go through the one judging pipeline
(:func:`qrelkit.judging.arun_job`) as one selection, so the accounting is the usual one (calls,
tokens, cost), the answers are cached, and a re-run judges nothing and pays nothing. The
judging happens in the workspace's scratch copy, ``WS/audit/``
(:meth:`qrelkit.store.Store.copy_into`), where the probes' documents are added: the
collection's own documents, pool and exports never see them. Because the untouched pairs are
part of the selection, their labels are never shown to a learning judge
(:mod:`qrelkit.judging.labels`), so the learned judge does not read the answer for the text it
is probed with. A probe of a pooled pair is pooled as its pair is (same runs, same rank), so the
``pool`` signal does not tell the two apart.

The guard (qrelkit.judging.guard) is off for an audit: the audit measures the judge alone, and a
guarded probe would never reach it. :attr:`AuditRequest.guard` is the judging job's switch.
"""
from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable, Optional

from qrelkit.audit import probes as P
from qrelkit.audit.flips import ProbeResult, count
from qrelkit.errors import UsageError
from qrelkit.types import Case

if TYPE_CHECKING:
    from qrelkit.store import Store

SCRATCH = "audit"  # the scratch copy's folder inside the workspace
Pair = tuple[str, str]


@dataclass(frozen=True)
class AuditRequest:
    """What ``qrelkit audit`` was asked."""

    method: str
    model: str = "local"
    pairs: int = 50  # untouched pairs per class (non-relevant, relevant); each probe alters them all
    seed: int = 0
    threshold: int | str = "auto"
    concurrency: int = 4
    max_attempts: Optional[int] = None
    guard: bool = False  # the judging path's guard; an audit measures the judge with it off


@dataclass(frozen=True)
class Audit:
    method: str  # canonical
    model: str
    threshold: int
    pairs: int
    seed: int
    guard: bool
    probes: tuple[ProbeResult, ...]
    usage: dict  # calls, cache_hits, prompt_tokens, completion_tokens, cost_usd, new_calls
    cases: int
    seconds: float

    @property
    def key(self) -> str:
        return f"{self.method}|{self.model}|pairs={self.pairs}|seed={self.seed}"

    def to_dict(self) -> dict:
        return {"method": self.method, "model": self.model, "threshold": self.threshold, "pairs": self.pairs,
                "seed": self.seed, "guard": "on" if self.guard else "off", "cases": self.cases,
                "probes": [p.to_dict() for p in self.probes], **self.usage, "seconds": round(self.seconds, 3)}


def labelled(store: Store) -> dict[Pair, int]:
    """The workspace's labels probes are built from: original qrels, then people's (which win)."""
    out = dict(store.qrels())
    for j in store.people_labels():
        if j.effective_grade is not None:
            out[(j.qid, j.docid)] = int(j.effective_grade)
    return out


def draw(store: Store, req: AuditRequest) -> tuple[int, P.Drawn]:
    """The relevance threshold and the untouched pairs (with topic and text); user errors when
    the workspace cannot make both kinds of probe."""
    from qrelkit.relevance import resolve_threshold

    if req.pairs < 1:
        raise UsageError("--pairs must be a positive number of pairs")
    labels = labelled(store)
    if not labels:
        raise UsageError(f"{store.workspace}: no labelled pairs to build probes from; load qrels "
                         "(qrelkit init --qrels F, or qrelkit import --qrels F)")
    threshold = resolve_threshold(req.threshold, labels, "the workspace's qrels").value
    topics, docids = store.topics(), store.docids()
    usable = {k: g for k, g in labels.items() if k[0] in topics and k[1] in docids}
    drawn = P.draw(usable, threshold, req.pairs, req.seed)
    if not drawn.nonrelevant or not drawn.relevant:
        raise UsageError(f"{store.workspace}: an audit needs labelled pairs of both kinds with their text: "
                         f"{len(drawn.nonrelevant)} judged non-relevant (grade 0), {len(drawn.relevant)} relevant "
                         f"(grade >= {threshold})")
    return threshold, drawn


def scratch(store: Store) -> Store:
    """The workspace's scratch copy (made on first use)."""
    from qrelkit.store import DB_NAME, Store

    folder = store.workspace / SCRATCH
    if not (folder / DB_NAME).exists():
        store.copy_into(folder)
    return Store.open(folder)


def stage(scratch_store: Store, built: list[P.Probe], drawn: P.Drawn) -> tuple[list[Case], dict]:
    """The probes' documents added to the scratch copy; the cases to judge (untouched pairs
    first), and each probe's (untouched, altered) keys by probe name."""
    pooled = {(c.qid, c.docid): c for c in scratch_store.cases()}
    base = {(q, d): pooled.get((q, d), Case(q, d, "llm", 0, (), True))
            for q, d, _ in drawn.nonrelevant + drawn.relevant}
    scratch_store.upsert_docs([p.doc for p in built])
    altered = [replace(base[(p.qid, p.docid)], docid=p.doc.docid, judged=False) for p in built]
    scratch_store.upsert_cases([c for c in altered if c.runs])  # pooled as its pair is
    keys: dict[str, list[tuple[Pair, Pair]]] = {}
    for p in built:
        keys.setdefault(p.name, []).append(((p.qid, p.docid), (p.qid, p.doc.docid)))
    return list(base.values()) + altered, keys


def _job(req: AuditRequest, cases: list[Case]):
    """The judging job of the audit, with the guard off unless ``req.guard``: an audit measures
    the judge alone, and a guarded probe (the injection above all) would never reach it."""
    from qrelkit.judging import JudgingJob

    return JudgingJob(method=req.method, model=req.model, share="judged", concurrency=req.concurrency,
                      threshold=req.threshold, max_attempts=req.max_attempts, cases=tuple(cases),
                      guard=req.guard)


async def aaudit(store: Store, req: AuditRequest, progress: Optional[Callable] = None) -> Audit:
    """Build the probes, judge them with the untouched pairs, count the flips, store the result."""
    from qrelkit.compare.run import run_method

    t0 = time.perf_counter()
    threshold, drawn = draw(store, req)
    built = P.build(drawn, store.topics(), store.docs_by_id(sorted(drawn.docids)), req.seed)
    job = _job(req, [])
    job.spec(store)  # a bad spec fails before the copy is made
    with scratch(store) as work:
        cases, keys = stage(work, built, drawn)
        summary, new_calls, _ = await run_method(work, replace(job, cases=tuple(cases)), progress)
        wanted = {k for pairs in keys.values() for pair in pairs for k in pair}
        labels = {(j.qid, j.docid): j.label for j in work.judgments(method=summary.method, model=summary.model)
                  if (j.qid, j.docid) in wanted}
    results = tuple(count(name, P.KINDS[name].family, P.KINDS[name].base, pairs, labels)
                    for name, pairs in keys.items())
    usage = {"calls": summary.calls, "cache_hits": summary.cache_hits, "new_calls": new_calls,
             "prompt_tokens": summary.prompt_tokens, "completion_tokens": summary.completion_tokens,
             "cost_usd": summary.cost_usd}
    out = Audit(summary.method, summary.model, threshold, req.pairs, req.seed, req.guard, results, usage,
                len(cases), time.perf_counter() - t0)
    store.put_audit(out.key, out.method, out.model, out.to_dict())
    return out


def audit(store: Store, req: AuditRequest, progress: Optional[Callable] = None) -> Audit:
    """:func:`aaudit` in its own event loop."""
    return asyncio.run(aaudit(store, req, progress))
