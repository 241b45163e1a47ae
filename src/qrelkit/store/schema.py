"""The workspace schema: every table, as an append-only list of migrations.

Each entry migrates the schema from version i to i+1. Never edit a released
entry: append a new one, so that old workspaces upgrade in place (a mixin that
needs a table, such as the RAG store, appends its own migration here).
"""
from __future__ import annotations

DB_NAME = "qrelkit.sqlite"

MIGRATIONS: list[str] = [
    # 1: the core tables
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE topics (
        qid TEXT PRIMARY KEY, text TEXT NOT NULL, answers TEXT NOT NULL DEFAULT '[]',
        narrative TEXT, description TEXT);
    CREATE TABLE docs (docid TEXT PRIMARY KEY, text TEXT NOT NULL, title TEXT);
    CREATE TABLE qrels (
        qid TEXT NOT NULL, docid TEXT NOT NULL, grade INTEGER NOT NULL,
        source TEXT NOT NULL DEFAULT 'original', PRIMARY KEY (qid, docid));
    CREATE TABLE runs (name TEXT PRIMARY KEY, path TEXT NOT NULL, meta TEXT NOT NULL DEFAULT '{}');
    CREATE TABLE cases (
        qid TEXT NOT NULL, docid TEXT NOT NULL, share TEXT NOT NULL, best_rank INTEGER NOT NULL,
        runs TEXT NOT NULL, judged INTEGER NOT NULL, PRIMARY KEY (qid, docid));
    CREATE TABLE judgments (
        qid TEXT NOT NULL, docid TEXT NOT NULL, method TEXT NOT NULL, model TEXT NOT NULL,
        label INTEGER, grade INTEGER, status TEXT NOT NULL, source TEXT NOT NULL,
        round INTEGER NOT NULL DEFAULT 0, rationale TEXT NOT NULL DEFAULT '',
        evidence TEXT NOT NULL DEFAULT '[]', provenance TEXT NOT NULL DEFAULT '{}',
        calls INTEGER NOT NULL DEFAULT 0, prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0, cost_usd REAL NOT NULL DEFAULT 0,
        created_at REAL NOT NULL, updated_at REAL NOT NULL,
        PRIMARY KEY (qid, docid, method, model));
    CREATE INDEX judgments_status ON judgments (status);
    CREATE TABLE llm_calls (
        key TEXT PRIMARY KEY, model TEXT NOT NULL, request TEXT NOT NULL, response TEXT NOT NULL,
        prompt_tokens INTEGER NOT NULL DEFAULT 0, completion_tokens INTEGER NOT NULL DEFAULT 0,
        latency REAL NOT NULL DEFAULT 0, cost_usd REAL NOT NULL DEFAULT 0, created_at REAL NOT NULL);
    CREATE TABLE command_runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT, command TEXT NOT NULL, args TEXT NOT NULL DEFAULT '{}',
        started_at REAL NOT NULL, finished_at REAL, status TEXT NOT NULL DEFAULT 'running',
        totals TEXT NOT NULL DEFAULT '{}');
    CREATE TABLE narratives (
        qid TEXT PRIMARY KEY, narrative TEXT NOT NULL, instructions TEXT NOT NULL DEFAULT '',
        variant TEXT NOT NULL DEFAULT 'all', model TEXT NOT NULL DEFAULT '',
        edited INTEGER NOT NULL DEFAULT 0, provenance TEXT NOT NULL DEFAULT '{}',
        updated_at REAL NOT NULL);
    CREATE TABLE annot_users (
        id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE,
        is_admin INTEGER NOT NULL DEFAULT 0, token_hash TEXT, revoked INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL);
    CREATE TABLE annot_sessions (
        id_hash TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES annot_users(id),
        csrf TEXT NOT NULL, created_at REAL NOT NULL, expires_at REAL NOT NULL);
    CREATE TABLE annot_tasks (
        qid TEXT NOT NULL, docid TEXT NOT NULL, kind TEXT NOT NULL, priority INTEGER NOT NULL,
        votes_needed INTEGER NOT NULL, expected_grade INTEGER, decided INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL, PRIMARY KEY (qid, docid));
    CREATE TABLE annot_votes (
        id INTEGER PRIMARY KEY AUTOINCREMENT, user_id INTEGER NOT NULL REFERENCES annot_users(id),
        qid TEXT NOT NULL, docid TEXT NOT NULL, grade INTEGER NOT NULL, comment TEXT NOT NULL DEFAULT '',
        seconds REAL NOT NULL DEFAULT 0, history_shown INTEGER NOT NULL DEFAULT 0,
        created_at REAL NOT NULL, UNIQUE (user_id, qid, docid));
    """,
    # 2 (annotate): short leases spread concurrent annotators over cases; skips
    # send a case to the back of one session's queue
    """
    CREATE TABLE annot_leases (
        user_id INTEGER NOT NULL, qid TEXT NOT NULL, docid TEXT NOT NULL,
        served_at REAL NOT NULL, expires_at REAL NOT NULL, PRIMARY KEY (user_id, qid, docid));
    CREATE INDEX annot_leases_case ON annot_leases (qid, docid);
    CREATE TABLE annot_skips (
        session_hash TEXT NOT NULL, qid TEXT NOT NULL, docid TEXT NOT NULL,
        skipped_at REAL NOT NULL, PRIMARY KEY (session_hash, qid, docid));
    CREATE INDEX annot_votes_case ON annot_votes (qid, docid);
    """,
    # 3 (rag): generated answers and their correctness grades (see qrelkit.store.rag)
    """
    CREATE TABLE rag_answers (
        system TEXT NOT NULL, qid TEXT NOT NULL, model TEXT NOT NULL, k INTEGER NOT NULL,
        prompt TEXT NOT NULL, context TEXT NOT NULL, missing TEXT NOT NULL DEFAULT '[]',
        answer TEXT, error TEXT, calls INTEGER NOT NULL DEFAULT 0,
        prompt_tokens INTEGER NOT NULL DEFAULT 0, completion_tokens INTEGER NOT NULL DEFAULT 0,
        cost_usd REAL NOT NULL DEFAULT 0, created_at REAL NOT NULL,
        PRIMARY KEY (system, qid, model, k, prompt));
    CREATE TABLE rag_grades (
        system TEXT NOT NULL, qid TEXT NOT NULL, generator TEXT NOT NULL, grader TEXT NOT NULL,
        prompt TEXT NOT NULL, answer TEXT NOT NULL, correct INTEGER, reason TEXT NOT NULL DEFAULT '',
        error TEXT, calls INTEGER NOT NULL DEFAULT 0, prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0, cost_usd REAL NOT NULL DEFAULT 0,
        created_at REAL NOT NULL, PRIMARY KEY (system, qid, generator, grader));
    """,
    # 4 (signals): cached values of the cheap relevance signals (qrelkit.signals)
    """
    CREATE TABLE signal_values (
        signal TEXT NOT NULL, version TEXT NOT NULL, qid TEXT NOT NULL, docid TEXT NOT NULL,
        value TEXT NOT NULL, created_at REAL NOT NULL, PRIMARY KEY (signal, version, qid, docid));
    """,
    # 5 (samples): the people's probability sample and its census stratum (qrelkit.store.samples);
    # one row per draw (a design with replacement can draw a pair twice), in draw order
    """
    CREATE TABLE people_sample (
        position INTEGER PRIMARY KEY, qid TEXT NOT NULL, docid TEXT NOT NULL, probability REAL NOT NULL,
        census INTEGER NOT NULL DEFAULT 0);
    CREATE INDEX people_sample_pair ON people_sample (qid, docid);
    """,
]

SCHEMA_VERSION = len(MIGRATIONS)


def split_sql(script: str) -> list[str]:
    """The statements of one migration (migrations hold no ';' inside literals)."""
    return [s.strip() for s in script.split(";") if s.strip()]
