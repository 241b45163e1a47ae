from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from qrelkit.annotate import create_app, sync_tasks
from qrelkit.store import Store

from .helpers import add_login, build_workspace


@pytest.fixture
def ws(tmp_path):
    """A synced workspace: 2 escalations, 4 people's cases, 1 attention item (default settings)."""
    path = build_workspace(tmp_path / "ws")
    with Store.open(path) as s:
        sync_tasks(s)
    return path


@pytest.fixture
def store(ws):
    with Store.open(ws) as s:
        yield s


class Annotator:
    """A TestClient signed in as one user (https base URL: the session cookie is Secure)."""

    def __init__(self, app, store, name: str, admin: bool = False):
        self.name = name
        self.client = TestClient(app, base_url="https://testserver")
        r = self.client.post("/login", data={"token": add_login(store, name, admin)}, follow_redirects=False)
        assert r.status_code == 303, r.text
        self.csrf = self.client.get("/api/session").json()["csrf"]

    def next(self) -> dict:
        r = self.client.get("/api/next")
        assert r.status_code == 200, r.text
        return r.json()

    def vote(self, qid: str, docid: str, grade: int, **extra):
        return self.client.post(
            "/api/vote", json={"qid": qid, "docid": docid, "grade": grade, **extra},
            headers={"X-CSRF-Token": self.csrf},
        )

    def skip(self, qid: str, docid: str):
        return self.client.post("/api/skip", json={"qid": qid, "docid": docid}, headers={"X-CSRF-Token": self.csrf})


@pytest.fixture
def app(ws):
    a = create_app(ws)
    yield a
    a.state.store.close()


@pytest.fixture
def annotator(app, store):
    def make(name: str, admin: bool = False) -> Annotator:
        return Annotator(app, store, name, admin)

    return make
