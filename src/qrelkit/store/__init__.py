"""The workspace store: one SQLite database per workspace folder, and every SQL statement.

Every stage reads from and writes to this store, so any command can be stopped
and re-run: finished work is never redone and never paid for twice. Writes are
idempotent upserts keyed by natural keys ((qid, docid), (qid, docid, method,
model), the LLM cache key), so re-running a command converges to the same
state.

No module outside this package writes SQL: callers ask typed questions
(``waiting_for_people()``, ``counts()``, ``votes_for(qid, docid)``) and get
small records back. :class:`Store` is one facade composed of one mixin per
concern; a new concern adds a module here with its mixin and, when it needs
tables, a migration in :mod:`qrelkit.store.schema`.
"""
from __future__ import annotations

from qrelkit.store.annotators import Annotator, AnnotatorStore, SessionRow
from qrelkit.store.audits import AuditStore, StoredAudit
from qrelkit.store.collection import CollectionStore, Counts, RunRecord
from qrelkit.store.commands import CommandRun, CommandStore
from qrelkit.store.comparisons import ComparisonStore, RunCost, StoredSample
from qrelkit.store.core import StoreCore
from qrelkit.store.imports import ImportStore
from qrelkit.store.judgments import JudgmentStore, MethodCount
from qrelkit.store.llm_calls import LLMCallStore
from qrelkit.store.narratives import NarrativeStore
from qrelkit.store.pooling import PoolingStore, PoolTable
from qrelkit.store.rag import RagStore
from qrelkit.store.samples import SampleCounts, SampleRow, SampleStore
from qrelkit.store.schema import DB_NAME, MIGRATIONS, SCHEMA_VERSION
from qrelkit.store.selections import Selection, SelectionCounts, SelectionStore
from qrelkit.store.signals import SignalStore
from qrelkit.store.tasks import AnnotationTask, AttentionItem, Candidate, TaskStore
from qrelkit.store.votes import (
    AttentionVote,
    CaseVote,
    DecidedTask,
    KindProgress,
    TaskTotals,
    VoteRecord,
    VoteStore,
)
from qrelkit.store.waiting import ForPeople, PeopleWaiting, WaitingStore, wants_people


class Store(
    CollectionStore,
    JudgmentStore,
    WaitingStore,
    LLMCallStore,
    CommandStore,
    NarrativeStore,
    SignalStore,
    SelectionStore,
    PoolingStore,
    AnnotatorStore,
    TaskStore,
    VoteStore,
    RagStore,
    ImportStore,
    ComparisonStore,
    SampleStore,
    AuditStore,
    StoreCore,
):
    """A handle on one workspace's database: open one per process (``Store.open``/``Store.create``).

    One connection, guarded by a lock so that the LLM layer's worker threads and
    the event loop can share it; ``with store.transaction():`` makes several
    calls atomic.
    """


__all__ = [
    "DB_NAME", "MIGRATIONS", "SCHEMA_VERSION", "Annotator", "AttentionItem", "AttentionVote", "Candidate",
    "CaseVote", "CommandRun", "Counts", "DecidedTask", "ForPeople", "KindProgress", "MethodCount",
    "PeopleWaiting", "PoolTable", "RunCost", "RunRecord", "Selection", "SelectionCounts", "SessionRow", "Store", "StoredAudit", "StoredSample", "AnnotationTask",
    "TaskTotals", "VoteRecord", "wants_people",
    "SampleCounts", "SampleRow",
]
