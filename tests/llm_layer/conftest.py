from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

HERE = Path(__file__).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(url: str, proc: subprocess.Popen, deadline_s: float) -> None:
    """Poll ``url`` until it answers, the process dies, or the deadline passes."""
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}: {proc.stderr.read().decode()[-2000:]}")
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"server at {url} not ready after {deadline_s}s")


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


class FakeServer:
    def __init__(self, latency: float = 0.0):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(HERE / "fake_server.py"),
                "--port",
                str(self.port),
                "--latency",
                str(latency),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        wait_ready(f"{self.base}/v1/models", self.proc, 30)

    def script(self, **kw) -> None:
        httpx.post(f"{self.base}/_script", json=kw, timeout=5).raise_for_status()

    def reset(self) -> None:
        httpx.post(f"{self.base}/_reset", timeout=5).raise_for_status()

    def stats(self) -> dict:
        return httpx.get(f"{self.base}/_stats", timeout=5).json()

    @property
    def calls(self) -> int:
        return self.stats()["calls"]

    def close(self) -> None:
        stop(self.proc)


@pytest.fixture(scope="session")
def _servers():
    servers = [FakeServer(), FakeServer()]
    yield servers
    for s in servers:
        s.close()


@pytest.fixture
def server(_servers) -> FakeServer:
    _servers[0].reset()
    return _servers[0]


@pytest.fixture
def two_servers(_servers) -> list[FakeServer]:
    for s in _servers:
        s.reset()
    return _servers


THREADS = os.environ.get("QRELKIT_LOCAL_THREADS", "2")  # one per worker under pytest-xdist (tests/conftest.py)


def start_llama_server(alias: str = "smollm2") -> tuple[subprocess.Popen, int]:
    """llama-cpp-python's own OpenAI-compatible server on the embedded GGUF (skips without its extras)."""
    import importlib.util

    from qrelkit.llm.local import default_model_path

    for mod in ("sse_starlette", "starlette_context", "pydantic_settings"):
        if importlib.util.find_spec(mod) is None:
            pytest.skip(f"llama_cpp.server needs {mod} (llama-cpp-python[server])")
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(default_model_path()), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", "2048", "--n_threads", THREADS, "--n_threads_batch", THREADS,
         "--model_alias", alias, "--verbose", "False"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    return proc, port


@pytest.fixture(scope="session")
def llama_url():
    """One llama.cpp server for every test that talks to it (starting one loads the model: seconds on
    a busy machine); its base URL, ``http://127.0.0.1:PORT/v1``. Stopped at the session's end."""
    proc, port = start_llama_server()
    try:
        wait_ready(f"http://127.0.0.1:{port}/v1/models", proc, 120)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        stop(proc)


def collection(d: Path) -> list:
    """A one-topic collection in ``d`` (topics, docs, qrels, a run) for the llama.cpp server tests; the
    `fill` options that load it."""
    d.mkdir()
    (d / "topics.jsonl").write_text(json.dumps({"qid": "1", "text": "how do cats purr"}) + "\n")
    docs = {"a": "Cats purr by vibrating the muscles of the larynx.",
            "b": "Purring comes from the cat's laryngeal muscles twitching rapidly.",
            "c": "The Great Barrier Reef is the largest coral reef system in the world.",
            "e": "Use sorted(xs) or xs.sort(); both take a key function."}
    (d / "docs.jsonl").write_text("".join(json.dumps({"docid": k, "text": v}) + "\n" for k, v in docs.items()))
    (d / "qrels.txt").write_text("1 0 a 2\n")
    (d / "run.txt").write_text("".join(f"1 Q0 {k} {i} {10 - i} sys\n" for i, k in enumerate(docs, 1)))
    return ["--topics", d / "topics.jsonl", "--docs", d / "docs.jsonl", "--qrels", d / "qrels.txt",
            "--runs", d / "run.txt"]
