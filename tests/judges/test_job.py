"""One judging job for every command: the method composed as a value, the task by
one rule, and a run against a real (fake) OpenAI-compatible server that resumes
with no new calls."""

from __future__ import annotations

import pytest

from qrelkit.errors import UsageError
from qrelkit.judging import JudgingJob, run_job
from qrelkit.judging.selection import resolve_task
from qrelkit.store import Store
from qrelkit.types import Qrel, Topic

from .test_cli import make_ws, server  # noqa: F401  (the fake server fixture)

SERVED = "openai:fake@http://127.0.0.1:9/v1"
DEBATE = "debate(adjudicator=human,doc_tokens=1024,first=relevant,prompt=v2,rounds=2)"
DEBATE_LLM = "debate(adjudicator=llm,doc_tokens=1024,first=relevant,prompt=v2,rounds=2)"
PREFILTER = "prefilter(by=likelihood,calib=200,doc_tokens=400,keep=0.9)"


@pytest.mark.parametrize(
    ("job", "expected"),
    [
        (JudgingJob(model="local"), "likelihood(calib=200,doc_tokens=400,threshold=0)"),
        (JudgingJob(method="auto", model="local", command="fill"), "likelihood(calib=200,doc_tokens=400,threshold=auto)"),
        (JudgingJob(model=SERVED, command="fill"), DEBATE),
        (JudgingJob(model=SERVED, command="fill", adjudicator="llm"), DEBATE_LLM),
        (JudgingJob(method="debate(adjudicator=human)", model=SERVED, adjudicator="llm"), DEBATE),
        (JudgingJob(model=SERVED, command="fill", prefilter="prefilter(keep=0.9)"), f"{PREFILTER}+{DEBATE}"),
        (JudgingJob(model=SERVED, prefilter="prefilter(keep=0.9)", adjudicator="llm"), f"{PREFILTER}+{DEBATE_LLM}"),
        (JudgingJob(method="zero-shot", model=SERVED, adjudicator="llm"), "zero-shot(doc_tokens=400,narrative=none)"),
        (JudgingJob(model=SERVED, command="build"), "narrative(doc_tokens=400,docs=all,example_tokens=120,icl=0,"
                                                "instructor=same,seed=0,select=random,variant=all)"),
        (JudgingJob(method="debate", model=SERVED, prefilter=""), DEBATE),
    ],
)
def test_a_job_composes_its_method(job, expected):
    assert str(job.spec()) == expected


@pytest.mark.parametrize(
    "job",
    [
        JudgingJob(method="debate", prefilter="zero-shot"),
        JudgingJob(method="confidence", prefilter="prefilter"),
        JudgingJob(method="confidence", budget="10%"),
        JudgingJob(method="debate(rounds=0)"),
    ],
)
def test_a_job_that_cannot_run_is_a_user_error(job):
    with pytest.raises(UsageError):
        job.spec()


@pytest.mark.parametrize(
    ("answers", "grades", "expected"),
    [
        (True, (0, 1), "answer"),
        (True, (0, 2), "graded"),
        (True, (), "answer"),
        (False, (0, 1), "graded"),
        (False, (), "graded"),
    ],
)
def test_auto_task_keeps_the_collection_scale(tmp_path, answers, grades, expected):
    with Store.create(tmp_path / "ws") as store:
        store.upsert_topics([Topic("q1", "query", ("an answer",) if answers else ())])
        store.upsert_qrels([Qrel("q1", f"d{i}", g) for i, g in enumerate(grades)])
        assert resolve_task(store, "auto").name == expected


def test_a_job_runs_and_resumes_with_no_new_calls(server, tmp_path):  # noqa: F811
    url, _ = server
    ws = make_ws(tmp_path / "ws", n=6)
    job = JudgingJob(method="debate(rounds=1)", model=f"openai:fake@{url}", task="graded", adjudicator="llm",
                     concurrency=4)
    with Store.open(ws) as store:
        first = run_job(store, job)
        again = run_job(store, job)
    assert first.method == "debate(adjudicator=llm,doc_tokens=1024,first=relevant,prompt=v2,rounds=1)"
    assert first.judged == 6
    assert first.calls > 0
    assert again.calls == 0
    assert again.new == 0
