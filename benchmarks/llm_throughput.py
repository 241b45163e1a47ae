"""How much the LLM client costs on top of the model, in two settings.

1. HTTP: a loopback OpenAI-compatible server (tests/llm_layer/fake_server.py, in its
   own process) answers every call after a fixed latency. With C calls in
   flight the ideal rate is C / latency; we report the achieved fraction and
   the client's own CPU time per call (time.process_time in this process).
   Targets: >= 0.9 of ideal at concurrency 64, < 1 ms CPU per call.
2. Embedded model: tokens/s through qrelkit's local backend over tokens/s
   calling llama-cpp-python directly (create_chat_completion, same prompts,
   same grammar). Target >= 0.9.

3. ``--judge``: the whole ``qrelkit judge --method zero-shot`` command, a subprocess on a
   fresh copy of a workspace of real LLMJudge-dev pairs (``../shared/data/llmjudge-dev``; per
   topic its judged passages, then others, all holes of the LLM share), against the same
   server, for every case count x in-flight count. Wall is the whole command (interpreter
   start-up to exit); ideal = server calls x latency / in flight; CPU is the command's
   user + sys time (wait4 rusage of that child). The split into client (qrelkit.llm, its HTTP parser and
   the event loop's I/O), runner (everything else of the run: judging, judges, prompts,
   progress), store (qrelkit.store and SQLite under it) and start-up + exit (imports, CLI,
   anything outside the event loop) comes from a second run of the same row under
   ``py-spy record --nonblocking`` (sampling from outside, so the process is not slowed by
   it): each sample of the run goes to the bucket of its innermost qrelkit frame, and the shares
   are applied to the first run's CPU less start-up + exit, which is the CPU of the re-run
   (the same command on the judged workspace: nothing to judge). Each row also re-runs the command on the judged
   workspace and fails if that made any call. ``--floor`` adds the floor of each row: a bare asyncio
   client (benchmarks/bare_client.py, a fresh interpreter importing nothing of qrelkit) sending the
   same request bodies (captured once from a run of the command) at the same in-flight count to the
   same server, timed the same way; its ratio to ideal is what this machine and server allow, so
   the difference to the command's ratio is qrelkit's, and its per-call lateness (answer time less
   the latency) is the server's. Its CPU per call (the whole interpreter, start-up included) is a
   reading of the machine's speed at that moment: the same build's CPU column moves by 15-20%
   over a day on a shared virtual machine, and this one moves with it. Goals (issue 30): >= 0.95 of ideal at 5,000
   cases and 64 in flight, >= 0.9 at 256, <= 0.5 ms of CPU per case (client + runner + store).

Run: python benchmarks/llm_throughput.py [--latency 0.2] [--calls 640] [--skip-model]
     python benchmarks/llm_throughput.py --judge [--cases 1000,5000,20000] [--in-flight 16,64,256]
            [--no-split] [--floor]   (py-spy: pip install 'qrelkit[bench]'; without it the split is left out)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
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


def start_server(latency: float, reply: str = '{"relevant": true, "grade": 2}') -> tuple[subprocess.Popen, str]:
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
                script_server(f"{base}/v1", reply=reply, keep_bodies=False, latency=latency)
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
    ap.add_argument("--judge", action="store_true",
                    help="time the whole `qrelkit judge` command instead (the table of docs/benchmarks.md)")
    ap.add_argument("--cases", default="1000,5000", help="--judge: case counts (20000 works too)")
    ap.add_argument("--in-flight", default="16,64,256", help="--judge: --concurrency values")
    ap.add_argument("--no-split", action="store_true", help="--judge: skip the py-spy CPU attribution pass")
    ap.add_argument("--floor", action="store_true",
                    help="--judge: also time benchmarks/bare_client.py, a bare asyncio client, on the same calls")
    args = ap.parse_args()
    if args.judge:
        command_table(args)
        return

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



# ---- the whole `qrelkit judge` command ------------------------------------------------------
DATA = ROOT.parent / "shared" / "data" / "llmjudge-dev"
REPLY = '{"reason": "the passage answers the query", "grade": 2}'
# py-spy attribution: a sample of the run (or of a helper thread) goes to the bucket of its innermost
# qrelkit frame (httptools, the HTTP parser, is C: its time shows under qrelkit.llm.http1's frames); a
# sample of the run's event loop with no qrelkit frame (selector, transports, scheduling) is the client's I/O
OWNERS = (("qrelkit/store/", "store"), ("qrelkit/llm/", "client"), ("qrelkit/", "runner"))
RUN = "arun_judging"  # frames under it are the run; the rest is start-up and exit


def make_collection(cases: int, out: Path) -> Path:
    """A run file of ``cases`` real LLMJudge-dev pairs: per topic its judged passages first, then
    others in a seeded order, so each (qid, docid) is distinct and every passage has text."""
    import random

    topics = [line.split("\t", 1)[0] for line in (DATA / "topics.tsv").read_text().splitlines() if line]
    docids = [json.loads(line)["docid"] for line in (DATA / "passages.jsonl").open()]
    judged: dict[str, list[str]] = {q: [] for q in topics}
    for line in (DATA / "qrels.txt").read_text().splitlines():
        q, _, d, _ = line.split()
        judged.setdefault(q, []).append(d)
    rng = random.Random(0)
    per_topic = -(-cases // len(topics))
    lines, n = [], 0
    for q in topics:
        others = [d for d in docids if d not in set(judged[q])]
        rng.shuffle(others)
        for rank, d in enumerate((judged[q] + others)[:per_topic], 1):
            if n < cases:
                lines.append(f"{q} Q0 {d} {rank} {1000 - rank / 1000:.4f} bench")
                n += 1
    out.mkdir(parents=True, exist_ok=True)
    (out / "run.txt").write_text("\n".join(lines) + "\n")
    return out / "run.txt"


def template_workspace(cases: int, root: Path) -> Path:
    """init + pool once per size (every pair a hole of the LLM share); each row copies it."""
    ws = root / f"ws-{cases}"
    if ws.exists():
        return ws
    run = make_collection(cases, root / f"data-{cases}")
    cli = [sys.executable, "-m", "qrelkit"]
    for cmd in (["init", "-w", str(ws), "--topics", str(DATA / "topics.tsv"), "--docs", str(DATA / "passages.jsonl"),
                 "--runs", str(run)],
                ["pool", "-w", str(ws), "--depth", str(cases), "--human-depth", "0"]):
        subprocess.run(cli + cmd, check=True, capture_output=True, env=child_env())
    return ws


def child_env() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "200"}


def judge_cmd(ws: Path, url: str, in_flight: int) -> list[str]:
    return [sys.executable, "-m", "qrelkit", "judge", "-w", str(ws), "--method", "zero-shot",
            "--model", f"openai:fake@{url}", "--concurrency", str(in_flight), "--json"]


def timed(cmd: list[str]) -> tuple[dict, float, float]:
    """Run ``cmd``: its --json, wall seconds and CPU seconds (user + sys of that child alone)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, env=child_env())
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return json.loads(proc.stdout), wall, cpu


# frames only a judging run has (its judges, client, store calls); a sample with none of them, and no
# event loop under it, is start-up or exit
RUN_MARKS = ("qrelkit/judging/", "qrelkit/judges/", "qrelkit/llm/", "qrelkit/store/", "qrelkit/prompts/",
             "_run_once", RUN)


def attribute(raw: Path) -> dict[str, float]:
    """Shares of the judging run's sampled CPU per bucket (client, runner, store) from py-spy's raw
    stacks (``frame;frame;... count``, outermost first). A sample taken in a system call can come
    back cut short (no event loop frame under it): it still counts for the run when it holds one of
    the run's frames (``RUN_MARKS``), by its innermost qrelkit frame; start-up and exit are measured
    apart, by the re-run that has nothing to judge (:func:`command_row`)."""
    got = {"client": 0, "runner": 0, "store": 0}
    for line in raw.read_text(errors="replace").splitlines():  # py-spy may write a frame name in another encoding
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        helper = "(threading.py" in stack.split(";", 1)[0]  # the store's checkpointer, the progress heartbeat
        frames = stack.split(";")
        if not helper and not any(m in f for f in frames for m in RUN_MARKS):
            continue
        owner = "client"
        for frame in reversed(frames):
            hit = next((name for mark, name in OWNERS if mark in frame), None)
            if hit is not None:
                owner = hit
                break
        got[owner] += int(count)
    total = sum(got.values()) or 1
    return {k: v / total for k, v in got.items()}


def profiled_split(ws: Path, url: str, in_flight: int, root: Path) -> dict[str, float]:
    raw = root / f"spy-{ws.name}.txt"
    cmd = ["py-spy", "record", "--format", "raw", "--nonblocking", "-r", "250", "-o", str(raw), "--",
           *judge_cmd(ws, url, in_flight)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=child_env())
    return attribute(raw)


def fresh_copy(template: Path, root: Path, tag: str) -> Path:
    ws = root / tag
    shutil.rmtree(ws, ignore_errors=True)
    shutil.copytree(template, ws)
    return ws


def script_server(url: str, reply: str = REPLY, **script: object) -> None:
    base = url.removesuffix("/v1")
    httpx.post(f"{base}/_reset")
    httpx.post(f"{base}/_script", json={"reply": reply, **script})


def captured_bodies(cases: int, url: str, latency: float, root: Path) -> Path:
    """The request bodies a judging run of ``cases`` sends, one compact JSON a line: the command
    once on a fresh copy, the server keeping what it is sent and answering at once (the set of
    requests does not depend on the latency: one per distinct prompt), then scripted back."""
    out = root / f"bodies-{cases}.jsonl"
    if out.exists():
        return out
    script_server(url, keep_bodies=True, latency=0.0)
    try:
        timed(judge_cmd(fresh_copy(template_workspace(cases, root), root, f"capture-{cases}"), url, 64))
        bodies = httpx.get(f"{url.removesuffix('/v1')}/_stats", timeout=60).json()["bodies"]
    finally:
        script_server(url, keep_bodies=False, latency=latency)
    out.write_text("".join(json.dumps(b, separators=(",", ":"), ensure_ascii=False) + "\n" for b in bodies))
    return out


def floor_row(cases: int, in_flight: int, latency: float, url: str, root: Path) -> dict:
    """The bare client (benchmarks/bare_client.py) on the same calls, timed as the command is."""
    bodies = captured_bodies(cases, url, latency, root)
    cmd = [sys.executable, str(ROOT / "benchmarks" / "bare_client.py"), url, str(bodies), str(in_flight),
           str(latency)]
    out, wall, cpu = timed(cmd)
    return {**out, "wall_s": wall, "cpu_ms": 1000 * cpu / out["calls"]}


def command_row(cases: int, in_flight: int, latency: float, url: str, root: Path, split: bool,
                floor: bool = False) -> dict:
    template = template_workspace(cases, root)
    ws = fresh_copy(template, root, f"run-{cases}-{in_flight}")
    bare = floor_row(cases, in_flight, latency, url, root) if floor else None
    out, wall, cpu = timed(judge_cmd(ws, url, in_flight))
    again, _, cpu_again = timed(judge_cmd(ws, url, in_flight))  # resumed: nothing left, so no call
    calls = out["calls"] - out["cache_hits"]
    assert out["judged"] == out["cases"] == cases, out
    row = {"cases": cases, "in_flight": in_flight, "calls": calls, "wall_s": wall, "run_s": out["seconds"],
           "ideal_s": calls * latency / in_flight, "cpu_ms": 1000 * cpu / cases, "rerun_calls": again["calls"]}
    row["ratio"] = row["ideal_s"] / wall
    if bare is not None:
        assert bare["calls"] == calls, (bare, calls)  # the same calls, or the floor compares nothing
        row.update({"floor_wall_s": bare["wall_s"], "floor_ratio": row["ideal_s"] / bare["wall_s"],
                    "server_late_ms": bare["late_mean_ms"], "server_late_p90_ms": bare["late_p90_ms"],
                    "floor_cpu_ms": bare["cpu_ms"]})
    if split:
        # start-up + exit: what the same command costs with nothing to judge (the re-run); the rest
        # is the run's, split by the py-spy shares
        row["start-up+exit_ms"] = min(row["cpu_ms"], 1000 * cpu_again / cases)
        shares = profiled_split(fresh_copy(template, root, f"spy-{cases}-{in_flight}"), url, in_flight, root)
        row.update({f"{k}_ms": (row["cpu_ms"] - row["start-up+exit_ms"]) * v for k, v in shares.items()})
    return row


def command_table(args: argparse.Namespace) -> None:
    sizes = [int(float(x)) for x in args.cases.split(",")]
    flights = [int(x) for x in args.in_flight.split(",")]
    if not (DATA / "passages.jsonl").exists():
        raise SystemExit(f"{DATA} is absent: this benchmark judges LLMJudge-dev passages")
    split = not args.no_split and shutil.which("py-spy") is not None
    # bytecode as an installed package has it: a source checkout under PYTHONDONTWRITEBYTECODE (this
    # machine sets it) would otherwise compile every module it imports in every timed command
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "src")], check=True)
    root = Path(tempfile.mkdtemp(prefix="qrelkit-judge-bench-"))
    proc, url = start_server(args.latency, REPLY)
    rows = []
    try:
        for cases in sizes:
            for c in flights:
                rows.append(command_row(cases, c, args.latency, url, root, split, args.floor))
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(root, ignore_errors=True)
    load = os.getloadavg()
    print(f"\nwhole `qrelkit judge --method zero-shot` against a loopback server, {args.latency * 1000:.0f} ms "
          f"latency; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, {os.cpu_count()} cores")
    cols = ["cases", "in flight", "calls", "wall s", "run s", "ideal s", "of ideal", "CPU ms/case"]
    if args.floor:
        cols += ["floor wall s", "floor of ideal", "server late ms (mean/p90)", "floor CPU ms/call"]
    if split:
        cols += ["client", "runner", "store", "start-up+exit"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "|".join(" ---: " for _ in cols) + "|")
    for r in rows:
        cells = [r["cases"], r["in_flight"], r["calls"], f"{r['wall_s']:.2f}", f"{r['run_s']:.2f}",
                 f"{r['ideal_s']:.2f}", f"{r['ratio']:.3f}", f"{r['cpu_ms']:.3f}"]
        if args.floor:
            cells += [f"{r['floor_wall_s']:.2f}", f"{r['floor_ratio']:.3f}",
                      f"{r['server_late_ms']:.1f}/{r['server_late_p90_ms']:.1f}", f"{r['floor_cpu_ms']:.3f}"]
        if split:
            cells += [f"{r[k + '_ms']:.3f}" for k in ("client", "runner", "store", "start-up+exit")]
        print("| " + " | ".join(str(c) for c in cells) + " |")
    bad = [r for r in rows if r["rerun_calls"]]
    if bad:
        raise SystemExit(f"a re-run made calls: {bad}")


if __name__ == "__main__":
    main()
