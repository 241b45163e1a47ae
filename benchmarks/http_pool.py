"""qrelkit's plain-http connection pool (qrelkit.llm.http1, httptools) against aiohttp's client.

Both send the same chat-completion POST (same body, same headers) to the
loopback fake OpenAI server (tests/llm_layer/fake_server.py, its own process),
which answers every call after a fixed latency. With C calls in flight the
ideal rate is C / latency. For each pool and each C we report the achieved
fraction of that ideal and the client's own CPU per call (time.process_time of
this process), measured after a warm-up that opens the connections. The pools
alternate (qrelkit, aiohttp, aiohttp, qrelkit) so that load drift on a shared machine
cancels; each figure is the mean of its two passes.

Only the transport is compared: the request body is prebuilt and the reply is
read as bytes, so JSON and the Client's accounting (identical for both) are
not in the figures.

aiohttp is not a qrelkit dependency: ``pip install aiohttp`` (or the
``bench`` extra) to run this.

Run: python benchmarks/http_pool.py [--latency 0.2] [--rounds 4] [--concurrency 64,256]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from llm_throughput import start_server  # noqa: E402

from qrelkit.llm.http1 import Http1Pool  # noqa: E402

BODY = json.dumps({
    "model": "fake",
    "messages": [{"role": "system", "content": "judge"},
                 {"role": "user", "content": "why do cats purr? " + "Cats purr by twitching the larynx. " * 20}],
    "temperature": 0,
}).encode()
HEADERS = [(b"Content-Type", b"application/json"), (b"Authorization", b"Bearer x")]


async def qrelkit_pass(url: str, c: int, calls: int) -> tuple[float, float]:
    pool = Http1Pool(url, HEADERS, c, 10.0)
    try:
        await asyncio.gather(*[pool.post("/chat/completions", BODY) for _ in range(c)])
        c0, t0 = time.process_time(), time.perf_counter()
        replies = await asyncio.gather(*[pool.post("/chat/completions", BODY) for _ in range(calls)])
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    finally:
        await pool.aclose()
    assert all(r.status == 200 for r in replies)
    return wall, cpu


async def aiohttp_pass(url: str, c: int, calls: int) -> tuple[float, float]:
    import aiohttp

    headers = {k.decode(): v.decode() for k, v in HEADERS}
    connector = aiohttp.TCPConnector(limit=c, limit_per_host=c)
    async with aiohttp.ClientSession(connector=connector, headers=headers) as session:

        async def post() -> int:
            async with session.post(url + "/chat/completions", data=BODY) as resp:
                await resp.read()
                return resp.status

        await asyncio.gather(*[post() for _ in range(c)])
        c0, t0 = time.process_time(), time.perf_counter()
        statuses = await asyncio.gather(*[post() for _ in range(calls)])
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    assert all(s == 200 for s in statuses)
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--rounds", type=int, default=4, help="calls per pass = rounds x concurrency")
    ap.add_argument("--concurrency", default="64,256")
    args = ap.parse_args()
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        raise SystemExit("aiohttp is not installed: pip install aiohttp") from None
    proc, url = start_server(args.latency)
    rows = []
    try:
        for c in (int(x) for x in args.concurrency.split(",")):
            calls = args.rounds * c
            got: dict[str, list[tuple[float, float]]] = {"qrelkit (httptools)": [], "aiohttp": []}
            for name in ("qrelkit (httptools)", "aiohttp", "aiohttp", "qrelkit (httptools)"):
                fn = qrelkit_pass if name.startswith("qrelkit") else aiohttp_pass
                got[name].append(asyncio.run(fn(url, c, calls)))
            ideal = c / args.latency
            for name, passes in got.items():
                wall = sum(w for w, _ in passes) / len(passes)
                cpu = sum(p for _, p in passes) / len(passes)
                rows.append((c, name, calls / wall, calls / wall / ideal, 1000 * cpu / calls))
    finally:
        proc.kill()
    print(f"{'in flight':>9}  {'pool':<14} {'calls/s':>8} {'of ideal':>9} {'client CPU ms/call':>19}")
    for c, name, rate, frac, ms in rows:
        print(f"{c:>9}  {name:<14} {rate:8.0f} {frac:9.2f} {ms:19.3f}")


if __name__ == "__main__":
    main()
