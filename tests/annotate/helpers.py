"""Test workspaces and servers for the annotation app.

Workspaces are built directly with the store's upserts (no readers, no judge)
so these tests depend only on the store contract: escalations are judgments
with status 'escalate' carrying a fake debate history in their provenance.
"""
from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path
from typing import Optional

from qrelkit.annotate import auth
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Judgment, Qrel, Topic

HOSTILE = (
    "Beware of this page. <script>alert(1)</script> Next an image "
    "<img src=x onerror=alert(2)> and a closing </textarea> tag & an ampersand."
)
TIDES = (
    "Tides are caused by the gravitational pull of the Moon and the Sun on the oceans. "
    "The Moon is closer, so its effect is stronger. "
    + " ".join(f"Paragraph {i}: more about coasts, harbours and sailing schedules." for i in range(60))
)


def debate_provenance(pro_quote: str, con_quote: str, missing_quote: Optional[str] = None) -> str:
    con_evidence = [{"quote": con_quote, "found": True}]
    if missing_quote:
        con_evidence.append({"quote": missing_quote, "found": False})
    return json.dumps({
        "history": [
            {"round": 1, "agents": [
                {"stance": "relevant", "label": 1, "grade": 2,
                 "evidence": [{"quote": pro_quote, "found": True}],
                 "reasoning": "The passage states the cause directly."},
                {"stance": "not_relevant", "label": 0, "grade": None,
                 "evidence": con_evidence,
                 "reasoning": "It is mostly about <b>sailing</b>, not the cause."},
            ]},
            {"round": 2, "agents": [
                {"stance": "relevant", "label": 1, "grade": 2, "evidence": [], "reasoning": "I keep my label."},
                {"stance": "not_relevant", "label": 0, "grade": 1, "evidence": [], "reasoning": "Still partial."},
            ]},
        ],
        "rounds": 2,
    })


def escalation(qid: str, docid: str, provenance: str, method: str = "debate(rounds=2)") -> Judgment:
    return Judgment(qid, docid, method, "scripted", None, None, "escalate", "llm", 2, "agents disagree",
                    (), provenance)


def build_workspace(path: Path) -> Path:
    """Two topics (graded; answer task), two escalations (one with a hostile
    document), four people's cases, known labels for attention checks."""
    ws = Path(path)
    with Store.create(ws) as s:
        s.upsert_topics([
            Topic("q1", "what causes ocean tides", (), "Relevant documents name the cause of tides."),
            Topic("q2", "who wrote hamlet", ("William Shakespeare", "Shakespeare"), None),
        ])
        docs = [Doc("d1", TIDES, "Tides"), Doc("d2", HOSTILE, "A <b>hostile</b> title")]
        docs += [Doc(f"d{i}", f"Document number {i} about topic {i % 2}.") for i in range(3, 13)]
        s.upsert_docs(docs)
        s.upsert_cases([
            Case("q1", "d1", "llm", 3, ("runA",), False),
            Case("q2", "d2", "llm", 5, ("runA",), False),
            Case("q1", "d3", "people", 1, ("runA",), False),
            Case("q1", "d4", "people", 2, ("runB",), False),
            Case("q2", "d5", "people", 1, ("runA",), False),
            Case("q2", "d6", "people", 2, ("runB",), False),
            Case("q1", "d7", "people", 3, ("runB",), True),  # judged: not a task
            Case("q1", "d8", "llm", 4, ("runB",), False),  # the LLM's share: not a task
        ])
        s.upsert_qrels([Qrel("q1", "d7", 2), Qrel("q1", "d9", 3), Qrel("q1", "d10", 0),
                        Qrel("q2", "d11", 3), Qrel("q2", "d12", 0)])
        s.put_judgments([
            escalation("q1", "d1", debate_provenance("gravitational pull of the Moon", "sailing schedules",
                                                     "this sentence is not there")),
            escalation("q2", "d2", debate_provenance("<script>alert(1)</script>", "& an ampersand")),
            Judgment("q1", "d8", "debate(rounds=2)", "scripted", 1, 2, "consensus", "llm", 1),
        ])
    return ws


def build_load_workspace(path: Path, n_cases: int) -> Path:
    """Many people's cases, no known labels (no attention checks)."""
    ws = Path(path)
    with Store.create(ws) as s:
        s.upsert_topics([Topic("t1", "load topic", (), None), Topic("t2", "yes or no", ("yes",), None)])
        s.upsert_docs([Doc(f"L{i}", f"load document {i}") for i in range(n_cases)])
        s.upsert_cases([Case("t1" if i % 2 else "t2", f"L{i}", "people", i, ("r",), False) for i in range(n_cases)])
    return ws


def add_login(store, name: str, admin: bool = False) -> str:
    """A fresh one-time token for a new annotator."""
    return auth.add_user(store, name, admin=admin).token


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerThread:
    """A real uvicorn server on 127.0.0.1 in a thread, stopped by `stop()`."""

    def __init__(self, app):
        import uvicorn

        from qrelkit.annotate.app import uvicorn_config

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn_config(app, "127.0.0.1", self.port, lifespan="on")  # as `annotate serve` runs it
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> "ServerThread":
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
