"""The floor of ``llm_throughput.py --judge``: the same calls with nothing of qrelkit around them.

A fresh interpreter that imports nothing of qrelkit (nor httpx, nor a JSON library) sends the
request bodies a judging run sent (one per line of ``BODIES``, compact JSON) to the same
server, at most ``IN_FLIGHT`` at once, over keep-alive HTTP/1.1 connections driven by bare
asyncio protocols: when an answer is complete, the connection's next request is written from
the same callback, so a freed slot is refilled before anything else runs. The benchmark times
this process as it times ``qrelkit judge`` (interpreter start-up to exit): the ratio of its
wall to the ideal is what this machine and this server allow, and the difference to
qrelkit's ratio is the client's.

It also measures the server's lateness: for every call, the time from writing the request to
the answer's last byte, less the server's scripted latency. This client does nothing between
answers, so its lateness is the server's (and the event loops' wake-ups), not a client's.

Run: python benchmarks/bare_client.py URL BODIES IN_FLIGHT LATENCY  (URL as http://host:port/v1)
Prints one JSON object: calls, seconds (inside the event loop), lateness mean/p50/p90/p99 (ms).
"""

import asyncio
import sys
import time


class Conn(asyncio.Protocol):
    """One keep-alive connection: one exchange at a time, its next request written on completion."""

    def __init__(self, run: "Run") -> None:
        self.run, self.buf, self.sent_at, self.transport, self.finished = run, b"", 0.0, None, False

    def connection_made(self, transport) -> None:
        self.transport = transport
        self.run.next(self)

    def data_received(self, data: bytes) -> None:
        self.buf += data
        head_end = self.buf.find(b"\r\n\r\n")
        if head_end < 0:
            return
        head = self.buf[:head_end].lower()
        if not head.startswith(b"http/1.1 200"):
            self.run.fail(f"status line {self.buf[:40]!r}")
            return
        length = next((int(h[15:]) for h in head.split(b"\r\n") if h.startswith(b"content-length:")), None)
        if length is None:
            self.run.fail("answer without Content-Length")
            return
        if len(self.buf) < head_end + 4 + length:
            return
        self.buf = self.buf[head_end + 4 + length:]
        self.run.took.append(time.perf_counter() - self.sent_at)
        self.run.next(self)

    def connection_lost(self, exc) -> None:
        if not self.finished:
            self.run.fail(f"connection lost: {exc}")


class Run:
    def __init__(self, host: str, prefix: str, bodies: list, in_flight: int) -> None:
        head = f"POST {prefix}/chat/completions HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        self.requests = iter([head.encode() + b"Content-Length: %d\r\n\r\n" % len(b) + b for b in bodies])
        self.total = len(bodies)
        self.took: list = []
        self.done = asyncio.get_running_loop().create_future()
        self.in_flight = in_flight

    def next(self, conn: Conn) -> None:
        if len(self.took) == self.total and not self.done.done():
            self.done.set_result(None)
        req = next(self.requests, None)
        if req is None:
            conn.finished = True
            conn.transport.close()
            return
        conn.sent_at = time.perf_counter()
        conn.transport.write(req)

    def fail(self, why: str) -> None:
        if not self.done.done():
            self.done.set_exception(SystemExit(f"bare client: {why}"))


async def main(url: str, bodies_path: str, in_flight: int) -> tuple:
    hostport, _, prefix = url.removeprefix("http://").partition("/")
    host, _, port = hostport.partition(":")
    with open(bodies_path, "rb") as f:
        bodies = [line for line in f.read().split(b"\n") if line]
    t0 = time.perf_counter()
    run = Run(hostport, "/" + prefix.rstrip("/") if prefix else "", bodies, in_flight)
    loop = asyncio.get_running_loop()
    for _ in range(min(in_flight, len(bodies))):
        await loop.create_connection(lambda: Conn(run), host, int(port))
    await run.done
    return run, time.perf_counter() - t0


if __name__ == "__main__":
    url, bodies_path, in_flight, latency = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    run, seconds = asyncio.run(main(url, bodies_path, in_flight))
    late = sorted(1000 * (t - latency) for t in run.took)

    def q(p: float) -> float:
        return late[min(len(late) - 1, int(p * len(late)))]

    print('{"calls": %d, "seconds": %.4f, "late_mean_ms": %.2f, "late_p50_ms": %.2f, "late_p90_ms": %.2f, '
          '"late_p99_ms": %.2f}' % (len(late), seconds, sum(late) / len(late), q(0.5), q(0.9), q(0.99)))
