"""The embedded model in a Ray actor, started for the job as the command line does: the same
judgments as in-process on 3 LLMJudge-dev pairs (slow: marked ``model``)."""

from __future__ import annotations

import pytest
from judges.conftest import embedded_model_workspace

from qrelkit.judging import JudgingJob, run_job

from .test_ray import final

pytest.importorskip("ray", reason="Ray is an optional extra: pip install 'qrelkit[ray]'")
pytestmark = [pytest.mark.model, pytest.mark.realdata]


def test_embedded_model_in_a_ray_actor_judges_as_in_process(tmp_path):
    job = JudgingJob(method="likelihood", model="local", task="graded", share="judged", limit=3, concurrency=2)
    plain = embedded_model_workspace(tmp_path / "plain")
    run_job(plain, job)
    on_ray = embedded_model_workspace(tmp_path / "ray")
    run_job(on_ray, JudgingJob(**{**job.__dict__, "engine": "ray(actors=1)"}))
    assert final(on_ray) == final(plain)
