"""``qrelkit judge --model vllm:...`` as real subprocesses with the fake vllm on PYTHONPATH: in
process, then with ``--engine ray`` (a real local Ray, the engine built in the actor from the
shipped spec); and the message a user gets without vLLM."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from qrelkit.store import Store

from .test_vllm_backend import FAKE, MODEL, make_store

SRC = Path(__file__).resolve().parents[2] / "src"
JUDGE = ["--method", "zero-shot(output=label)", "--task", "graded", "--concurrency", "8", "--json"]


def qrelkit(*args: str, log: Path | None = None, fake: bool = True) -> subprocess.CompletedProcess:
    paths = [str(SRC)] + ([str(FAKE)] if fake else [])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths), PYTHONUNBUFFERED="1")
    if log is not None:
        env["FAKE_VLLM_LOG"] = str(log)
    proc = subprocess.Popen([sys.executable, "-m", "qrelkit", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    out, err = proc.communicate(timeout=300)
    done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    done.pid = proc.pid  # the driver's process id: engine events from another process ran elsewhere
    return done


def events(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def labels(ws: Path) -> dict:
    with Store.open(ws) as s:
        return {(j.qid, j.docid): (j.label, j.grade, j.status, j.model) for j in s.judgments()}


def workspace(path: Path) -> Path:
    make_store(path).close()
    return path


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """One in-process run and its re-run."""
    tmp = tmp_path_factory.mktemp("local")
    ws, log = workspace(tmp / "ws"), tmp / "vllm.log"
    first = qrelkit("judge", "-w", str(ws), "--model", MODEL, *JUDGE, log=log)
    n_events = len(events(log))
    again = qrelkit("judge", "-w", str(ws), "--model", MODEL, *JUDGE, log=log)
    return ws, first, again, events(log), n_events


def test_judge_with_a_vllm_model_judges_every_case(local_run):
    assert local_run[1].returncode == 0, local_run[1].stderr
    assert json.loads(local_run[1].stdout)["judged"] == 8


def test_the_cli_run_batched_its_calls_into_few_engine_calls(local_run):
    chats = [e["n"] for e in local_run[3] if e["event"] == "chat"]
    assert sum(chats) == 8
    assert len(chats) < 8


def test_the_labels_are_the_scripted_ones_under_the_vllm_model_id(local_run):
    assert set(labels(local_run[0]).values()) == {(1, 2, "auto", MODEL), (0, 0, "auto", MODEL)}


def test_in_process_the_engine_runs_in_the_commands_own_process(local_run):
    assert {e["pid"] for e in local_run[3]} == {local_run[1].pid}


def test_a_cli_rerun_loads_no_engine_and_makes_no_calls(local_run):
    assert local_run[2].returncode == 0, local_run[2].stderr
    assert json.loads(local_run[2].stdout)["calls"] == 0
    assert len(local_run[3]) == local_run[4]


def test_without_vllm_the_cli_exits_2_saying_how_to_install_it(tmp_path):
    r = qrelkit("judge", "-w", str(workspace(tmp_path / "ws")), "--model", MODEL, *JUDGE, fake=False)
    assert r.returncode == 2
    assert "pip install vllm" in r.stderr
    assert "Traceback" not in r.stderr


def test_engine_ray_builds_the_vllm_engine_in_the_actor_from_the_spec(local_run, tmp_path):
    pytest.importorskip("ray", reason="Ray is an optional extra: pip install 'qrelkit[ray]'")
    ws, log = workspace(tmp_path / "ws"), tmp_path / "vllm.log"
    spec = MODEL + "?tensor_parallel_size=1"
    r = qrelkit("judge", "-w", str(ws), "--model", spec, *JUDGE, "--engine", "ray", "--ray-actors", "1",
                "--ray-cpus", "0.5", "--ray-gpus", "1", log=log)
    assert r.returncode == 0, r.stderr
    loads = [e for e in events(log) if e["event"] == "load"]
    assert [e["kwargs"] for e in loads] == [{"tensor_parallel_size": 1}]
    assert loads[0]["pid"] != r.pid  # built in the actor, not in the driver
    assert labels(ws) == labels(local_run[0])
