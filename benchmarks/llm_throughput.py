"""How much the LLM client costs on top of the model, in two settings.

1. HTTP: a loopback OpenAI-compatible server (tests/llm_layer/fake_server.py, in its
   own process) answers every call after a fixed latency. With C calls in
   flight the ideal rate is C / latency; we report the achieved fraction and
   the client's own CPU time per call (time.process_time in this process).
   Targets: >= 0.9 of ideal at concurrency 64, < 1 ms CPU per call.
2. Embedded model: tokens/s through qrelkit's local backend over tokens/s
   calling llama-cpp-python directly (create_chat_completion, same prompts,
   same grammar). Target >= 0.9.

Run: python benchmarks/llm_throughput.py [--latency 0.2] [--calls 640] [--skip-model]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from qrelkit.llm import Message, make_client  # noqa: E402

SCHEMA = {
    "type": "object",
    "properties": {"relevant": {"type": "boolean"}, "grade": {"type": "integer", "enum": [0, 1, 2, 3]}},
    "required": ["relevant", "grade"],
}
DOC = (
    "Cats purr by rapidly twitching the muscles of the larynx, which separates the vocal cords "
    "and produces the sound on both inhalation and exhalation. "
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(latency: float) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "tests" / "llm_layer" / "fake_server.py"),
            "--port",
            str(port),
            "--latency",
            str(latency),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/v1/models", timeout=1).status_code == 200:
                httpx.post(
                    f"{base}/_script",
                    json={
                        "keep_bodies": False,
                        "latency": latency,
                        "reply": '{"relevant": true, "grade": 2}',
                    },
                )
                return proc, f"{base}/v1"
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("fake server did not start")


def proc_cpu(pid: int) -> float:
    """CPU seconds used so far by another process (Linux), to show the server's share."""
    try:
        f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return float("nan")


def http_row(url: str, latency: float, concurrency: int, calls: int, tag: str, server_pid: int) -> dict:
    client = make_client(f"openai:fake@{url}", concurrency=concurrency, timeout=30)

    async def go():
        # Warm the connection pool so that connection setup is not billed to the steady state.
        await asyncio.gather(
            *[client.complete([Message("user", f"warm {tag} {i}")]) for i in range(concurrency)]
        )
        s0, c0, t0 = proc_cpu(server_pid), time.process_time(), time.perf_counter()
        res = await asyncio.gather(
            *[
                client.complete(
                    [Message("system", "judge"), Message("user", f"{tag} case {i}: {DOC}")], schema=SCHEMA
                )
                for i in range(calls)
            ]
        )
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        server_cpu = proc_cpu(server_pid) - s0
        await client.aclose()
        return res, wall, cpu, server_cpu

    res, wall, cpu, server_cpu = asyncio.run(go())
    assert all(r.ok for r in res), [r.error for r in res if not r.ok][:3]
    ideal = concurrency / latency
    rate = calls / wall
    return {
        "concurrency": concurrency,
        "calls": calls,
        "wall_s": wall,
        "calls_per_s": rate,
        "ideal": ideal,
        "ratio": rate / ideal,
        "cpu_ms_per_call": 1000 * cpu / calls,
        "server_cpu_ms_per_call": 1000 * server_cpu / calls,
    }


def model_rows(n_prompts: int, max_tokens: int) -> dict:
    """Same prompts both ways, alternating which goes first (ABBA).

    On a shared machine the load drifts; alternating makes the drift cancel.
    """
    from llama_cpp import Llama

    from qrelkit.llm.local import N_CTX, N_THREADS, SEED, default_model_path

    prompts = [
        [
            Message("system", "You are a relevance assessor. Reply with JSON."),
            Message("user", f"Query {i}: why do cats purr\nDocument: {DOC * 5}\nGrade 0-3."),
        ]
        for i in range(n_prompts)
    ]
    direct = Llama(
        str(default_model_path()),
        n_ctx=N_CTX,
        n_threads=N_THREADS,
        n_threads_batch=N_THREADS,
        seed=SEED,
        logits_all=False,
        verbose=False,
    )
    client = make_client("local", timeout=600, read_cache=False)
    fmt = {"type": "json_object", "schema": SCHEMA}

    def run_direct(msgs: list[Message]) -> int:
        out = direct.create_chat_completion(
            messages=[{"role": m.role, "content": m.content} for m in msgs],
            temperature=0.0,
            max_tokens=max_tokens,
            repeat_penalty=1.0,
            response_format=fmt,
        )
        return out["usage"]["prompt_tokens"] + out["usage"]["completion_tokens"]

    async def run_qrelkit(msgs: list[Message]) -> int:
        r = await client.complete(msgs, schema=SCHEMA, max_tokens=max_tokens)
        assert r.ok, r.error
        return r.prompt_tokens + r.completion_tokens

    async def go():
        await client.complete([Message("user", "warm up")], max_tokens=1)  # load outside the timing
        run_direct([Message("user", "warm up")])
        per_prompt = []
        for i, msgs in enumerate(prompts):
            d = q = (0, 0.0)
            for which in "dq" if i % 2 == 0 else "qd":
                t0 = time.perf_counter()
                if which == "d":
                    n = run_direct(msgs)
                    d = (n, time.perf_counter() - t0)
                else:
                    n = await run_qrelkit(msgs)
                    q = (n, time.perf_counter() - t0)
            per_prompt.append((d, q))
        return per_prompt

    per_prompt = asyncio.run(go())
    d_tok = sum(d[0] for d, _ in per_prompt)
    d_s = sum(d[1] for d, _ in per_prompt)
    q_tok = sum(q[0] for _, q in per_prompt)
    q_s = sum(q[1] for _, q in per_prompt)
    ratios = sorted((q[0] / q[1]) / (d[0] / d[1]) for d, q in per_prompt)
    return {
        "direct_tok_s": d_tok / d_s,
        "qrelkit_tok_s": q_tok / q_s,
        "ratio": (q_tok / q_s) / (d_tok / d_s),
        "median_ratio": statistics.median(ratios),
        "tokens": q_tok,
        "direct_tokens": d_tok,
        "prompts": n_prompts,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument(
        "--calls", type=int, default=640, help="calls at concurrency 64 (fewer at lower concurrency)"
    )
    ap.add_argument("--prompts", type=int, default=12)
    ap.add_argument("--max-tokens", type=int, default=32)
    ap.add_argument("--skip-model", action="store_true")
    args = ap.parse_args()

    proc, url = start_server(args.latency)
    rows = []
    try:
        for c in (1, 8, 64):
            n = max(20, min(args.calls, c * args.calls // 64))
            rows.append(http_row(url, args.latency, c, n, tag=f"c{c}", server_pid=proc.pid))
    finally:
        proc.terminate()
        proc.wait(timeout=10)

    print(
        f"\nHTTP client against a loopback server with {args.latency * 1000:.0f} ms latency "
        f"(server in its own process; {os.cpu_count()} cores)"
    )
    print(
        f"{'concurrency':>11} {'calls':>6} {'wall s':>7} {'calls/s':>8} {'ideal':>7} {'ratio':>6} "
        f"{'client CPU ms/call':>19} {'server CPU ms/call':>19}"
    )
    for r in rows:
        print(
            f"{r['concurrency']:>11} {r['calls']:>6} {r['wall_s']:>7.2f} {r['calls_per_s']:>8.1f} "
            f"{r['ideal']:>7.1f} {r['ratio']:>6.2f} {r['cpu_ms_per_call']:>19.3f} "
            f"{r['server_cpu_ms_per_call']:>19.3f}"
        )

    if not args.skip_model:
        m = model_rows(args.prompts, args.max_tokens)
        print(
            f"\nEmbedded model ({m['prompts']} judge prompts, JSON grammar, max_tokens {args.max_tokens}; "
            "tokens = prompt + completion)"
        )
        print(
            f"{'direct tok/s':>13} {'qrelkit tok/s':>14} {'ratio':>6} {'median per prompt':>18} "
            f"{'tokens (direct/qrelkit)':>24}"
        )
        print(
            f"{m['direct_tok_s']:>13.1f} {m['qrelkit_tok_s']:>14.1f} {m['ratio']:>6.2f} "
            f"{m['median_ratio']:>18.2f} "
            f"{m['direct_tokens']:>12}/{m['tokens']}"
        )


if __name__ == "__main__":
    main()
