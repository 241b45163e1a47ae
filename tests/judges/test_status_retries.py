"""`status` reports what the backends received, retries included, not only the calls answered."""

from __future__ import annotations

from qrelkit.judging.runner import run_judging
from qrelkit.llm.client import Client
from qrelkit.llm.scripted import ScriptedBackend
from qrelkit.status import workspace_status
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Topic


def test_status_counts_attempts_and_retries_of_a_judge_run(tmp_path):
    sent = {"n": 0}

    def flaky(msgs, params):
        sent["n"] += 1
        if sent["n"] % 2:  # every other request fails once, then succeeds
            raise ConnectionError("reset")
        return {"reason": "r", "grade": 2}

    with Store.create(tmp_path / "ws") as store:
        store.upsert_topics([Topic("q1", "fox")])
        store.upsert_docs([Doc(f"d{i}", f"text {i}") for i in range(4)])
        store.upsert_cases([Case("q1", f"d{i}", "llm", i + 1) for i in range(4)])
        client = Client(ScriptedBackend(flaky), store=store, backoff_base=0.0, max_attempts=3)
        run_judging(store, "zero-shot", client, concurrency=1)
        spent = workspace_status(store)["spent"]
    assert spent["calls"] == 4
    assert spent["attempts"] == sent["n"] == 8
    assert spent["retries"] == 4
