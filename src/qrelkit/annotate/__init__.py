"""The people's side of qrelkit: a small web app where annotators judge
escalated cases (seeing the AI debate) and the people's share of a pool.

Modules: settings (project settings in the workspace), tasks (task queue,
assignment), votes (voting, decisions, attention checks), auth (users, login
links, sessions, CSRF), stats (agreement and progress), export (votes JSONL,
decided qrels), content (what a case page shows), app (the FastAPI app).
The web stack is imported only by :func:`create_app`, so that the library
parts stay cheap to import.
"""
from __future__ import annotations

from qrelkit.annotate.settings import AnnotateSettings, load_settings, save_settings
from qrelkit.annotate.tasks import SyncResult, sync_tasks
from qrelkit.annotate.votes import VoteOutcome, VoteRejected, cast_vote, refresh_decisions


def create_app(workspace, settings=None):
    from qrelkit.annotate.app import create_app as _create

    return _create(workspace, settings)


__all__ = [
    "AnnotateSettings", "SyncResult", "VoteOutcome", "VoteRejected", "cast_vote", "create_app",
    "load_settings", "refresh_decisions", "save_settings", "sync_tasks",
]
