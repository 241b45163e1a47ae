"""The judge contract's close hook: a debate whose agents have models of their own
(``debate(models=[...])``) closes those clients when the run ends; the job's client stays the
caller's to close."""

from __future__ import annotations

from engines.scripted import debate_reply
from llm_layer.test_vllm_backend import make_store, vllm  # noqa: F401  (vllm is a fixture)

from qrelkit.judging.runner import run_judging
from qrelkit.llm import Client, ScriptedBackend
from qrelkit.llm.vllm_backend import VLLMBackend

SPEC = 'debate(rounds=1,models=["vllm:fake/agent",same])'


def test_a_debates_own_agent_clients_are_closed_after_the_run(vllm, tmp_path, monkeypatch):  # noqa: F811
    closed = []

    async def aclose(self):
        closed.append(self.model_id)

    monkeypatch.setattr(VLLMBackend, "aclose", aclose)
    store = make_store(tmp_path / "ws")
    run_judging(store, SPEC, Client(ScriptedBackend(debate_reply), store=store), task="graded")
    assert closed == ["vllm:fake/agent"]


def test_the_agents_own_model_answered(vllm, tmp_path):  # noqa: F811
    store = make_store(tmp_path / "ws")
    run_judging(store, SPEC, Client(ScriptedBackend(debate_reply), store=store), task="graded")
    assert sum(n for _, n in vllm.CALLS) == 8
