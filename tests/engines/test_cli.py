"""`--engine ray` on the command line: against the fake OpenAI server, as real subprocesses that
start their own local Ray; and the messages a user gets without Ray or with a bad engine."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from judges.test_cli import final, make_ws, qrelkit, server  # noqa: F401  (server is a fixture)

from qrelkit.errors import InputError
from qrelkit.job.plan import load_plan
from qrelkit.store import Store

RAY = ["--engine", "ray", "--ray-actors", "2", "--ray-cpus", "0.5"]


def judge_args(url: str) -> list[str]:
    return ["--method", "debate", "--model", f"openai:fake@{url}", "--concurrency", "4"]


@pytest.fixture(scope="module")
def reference(server, tmp_path_factory):  # noqa: F811
    """The plain engine's judgments of the 18 cases."""
    ws = make_ws(tmp_path_factory.mktemp("plain") / "ws")
    r = qrelkit("judge", "-w", str(ws), *judge_args(server[0]), "--json")
    assert r.returncode == 0, r.stderr
    return final(ws), json.loads(r.stdout)


def test_judge_with_engine_ray_writes_the_plain_engines_judgments(pytest_ray_cli, reference):
    assert final(pytest_ray_cli[0]) == reference[0]


@pytest.mark.parametrize("key", ["cases", "judged", "escalations", "errors", "calls", "prompt_tokens"])
def test_judge_with_engine_ray_reports_the_plain_engines_summary(pytest_ray_cli, reference, key):
    assert pytest_ray_cli[1][key] == reference[1][key]


@pytest.fixture(scope="module")
def pytest_ray_cli(server, tmp_path_factory):  # noqa: F811
    ws = make_ws(tmp_path_factory.mktemp("ray") / "ws")
    r = qrelkit("judge", "-w", str(ws), *judge_args(server[0]), *RAY, "--json")
    assert r.returncode == 0, r.stderr
    return ws, json.loads(r.stdout)


def test_driver_killed_then_rerun_judges_only_unfinished_cases(server, reference, tmp_path):  # noqa: F811
    ws = make_ws(tmp_path / "ws")
    cmd = [sys.executable, "-m", "qrelkit", "judge", "-w", str(ws), *judge_args(server[0]), *RAY, "--json"]
    # its own process group, killed whole as a terminal's kill of the command would (Ray's agents
    # are in it; a SIGKILL to the driver alone leaves them running)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    done, deadline = 0, time.time() + 120
    while done < 4 and time.time() < deadline and proc.poll() is None:
        try:
            with sqlite3.connect(ws / "qrelkit.sqlite", timeout=5) as c:
                done = c.execute("SELECT COUNT(*) FROM judgments").fetchone()[0]
        except sqlite3.Error:
            pass
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert 4 <= done < 18, "the run should have been killed part-way"
    with sqlite3.connect(ws / "qrelkit.sqlite") as c:
        finished = c.execute("SELECT COUNT(*) FROM judgments").fetchone()[0]
    r = qrelkit("judge", "-w", str(ws), *judge_args(server[0]), *RAY, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["new"] == 18 - finished
    assert final(ws) == reference[0]


BLOCK_RAY = "import sys; sys.modules['ray'] = None; from qrelkit.cli import main; sys.argv[0] = 'qrelkit'; main()"


def test_without_ray_engine_ray_exits_2_saying_how_to_install(tmp_path):
    ws = make_ws(tmp_path / "ws")
    r = subprocess.run([sys.executable, "-c", BLOCK_RAY, "judge", "-w", str(ws), "--model",
                        "openai:fake@http://127.0.0.1:9/v1", "--engine", "ray"], capture_output=True, text=True)
    assert r.returncode == 2
    assert "pip install 'qrelkit[ray]'" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("args, message", [
    (["--engine", "cluster"], "expected one of local, ray"),
    (["--engine", "ray(actors=0)"], "actors: 0 is out of range"),
    (["--engine", "local", "--ray-actors", "2"], "--ray-actors needs --engine ray"),
    (["--ray-address", "nowhere"], "--ray-address: expected local, auto"),
])
def test_a_bad_engine_is_one_line_and_exit_2(tmp_path, args, message):
    ws = make_ws(tmp_path / "ws")
    r = qrelkit("judge", "-w", str(ws), "--model", "openai:fake@http://127.0.0.1:9/v1", *args)
    assert r.returncode == 2
    assert message in r.stderr


@pytest.mark.parametrize("line, engine", [
    ('engine = "ray(actors=4, gpus=1)"', "ray(actors=4, gpus=1)"),
    ('engine = "local"', "local"),
])
def test_a_plan_names_its_engine(tmp_path, line, engine):
    plan = tmp_path / "plan.toml"
    plan.write_text(f"[judge]\nmodel = \"local\"\n{line}\n")
    assert load_plan(plan).engine == engine


def test_a_bad_engine_in_a_plan_names_the_file_and_line(tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text('[judge]\nmodel = "local"\nengine = "ray(nodes=3)"\n')
    with pytest.raises(InputError, match=r"plan.toml:3: \[judge\] engine spec .* has no parameter 'nodes'"):
        load_plan(plan)


@pytest.mark.parametrize("command", ["fill", "build"])
def test_fill_and_build_read_the_engine_options(tmp_path, command):
    r = qrelkit(command, "-w", str(tmp_path / "ws"), "--engine", "ray(actors=0)")
    assert r.returncode == 2
    assert "engine spec 'ray(actors=0)': actors: 0 is out of range" in r.stderr


def test_the_plans_engine_reaches_the_judging_job(tmp_path):
    from qrelkit.job.plan import Plan
    from qrelkit.job.stored import resolve_job

    with Store.create(tmp_path / "w") as store:
        job = resolve_job(store, "fill", Plan().override(engine="ray(actors=3)"), {})
    assert job.judging().engine_spec().actors == 3
