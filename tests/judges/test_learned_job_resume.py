"""A fill or build job settles its method id once: a new job in a workspace judged under an earlier
default of ``learned`` takes that id (its judgments, merge and report agree), ``--rejudge`` takes
today's and judges anew (real store, scripted scores)."""
from __future__ import annotations

import pytest

from qrelkit.job.plan import Plan
from qrelkit.job.stored import record_job, resolve_job
from qrelkit.judges.spec import method_filter
from qrelkit.judging.runner import run_judging
from qrelkit.llm.spec import canonical_model_id
from qrelkit.types import Judgment

from .test_learned import client, ws  # noqa: F401  (fixture)
from .test_learned_feedback import EARLIER, NEW_ID, score

LOCAL = canonical_model_id("local")


def judged_under(store, method: str) -> None:
    """What `qrelkit judge` left in the workspace: one finished judgment under ``method``."""
    store.put_judgments([Judgment("q1", "q1-c21", method, LOCAL, 1, 2, "auto", "llm", 1)])


@pytest.mark.parametrize("stored", EARLIER)
def test_a_new_auto_job_takes_the_earlier_default_the_workspace_was_judged_under(ws, stored):  # noqa: F811
    judged_under(ws, stored)
    assert resolve_job(ws, "fill", Plan(), {"model": "local"}).method_id == stored


def test_a_new_auto_job_in_a_fresh_workspace_takes_todays_default(ws):  # noqa: F811
    assert resolve_job(ws, "fill", Plan(), {"model": "local"}).method_id == NEW_ID


@pytest.mark.parametrize("stored", EARLIER)
def test_rejudge_takes_todays_default(ws, stored):  # noqa: F811
    judged_under(ws, stored)
    record_job(ws, resolve_job(ws, "fill", Plan(), {"model": "local"}))
    job = resolve_job(ws, "fill", Plan(), {"model": "local", "method": "auto"}, rejudge=True)
    assert job.method_id == NEW_ID


def test_a_jobs_judging_runs_its_settled_id_as_it_is(ws):  # noqa: F811
    assert resolve_job(ws, "fill", Plan(), {"model": "local"}).judging().resume is False


def test_a_run_told_not_to_resume_judges_under_todays_id(ws):  # noqa: F811
    run_judging(ws, EARLIER[-1], client(ws, score))
    again = run_judging(ws, "learned", client(ws, score), resume=False)
    assert (again.method, again.new) == (NEW_ID, 40)


@pytest.mark.parametrize("stored", EARLIER)
def test_a_method_filter_finds_the_judgments_of_an_earlier_default(stored):
    assert method_filter("learned", lambda method: method == stored) == stored


def test_a_method_filter_names_todays_id_when_nothing_is_stored():
    assert method_filter("learned", lambda method: False) == NEW_ID
