"""The rcl preset's LLM rows on a hybrid pool, as a real subprocess against the scripted HTTP server.

Four topics of 15 passages each (odd ones relevant, their text says agree3), five runs ranking
them in different seeded orders: pooled at depth 10, people get every run's top 3 (depth) or a
10 % stratified sample, the scripted LLM the rest (tests/compare/fake_rcl.py)."""

from __future__ import annotations

import json
import random
import urllib.request
from pathlib import Path

import pytest
from compare.test_compare_cli import qrelkit
from fakeserver import serve

from qrelkit.store import Store
from qrelkit.types import Doc, Topic

TOPICS, DOCS, RUNS = 4, 15, 5


def grade(d: int) -> int:
    return 3 if d % 2 else 0


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    root = tmp_path_factory.mktemp("rcl")
    ref = root / "qrels.txt"
    ref.write_text("".join(f"q{q} 0 q{q}d{d} {grade(d)}\n" for q in range(TOPICS) for d in range(DOCS)))
    for r in range(RUNS):
        lines = []
        for q in range(TOPICS):
            order = list(range(DOCS))
            random.Random(f"{r}|{q}").shuffle(order)
            lines += [f"q{q} Q0 q{q}d{d} {i + 1} {DOCS - i} run{r}\n" for i, d in enumerate(order)]
        (root / f"run{r}.txt").write_text("".join(lines))
    return root


def make_ws(path: Path) -> Path:
    with Store.create(path) as s:
        s.upsert_topics([Topic(f"q{q}", f"query {q}") for q in range(TOPICS)])
        s.upsert_docs([Doc(f"q{q}d{d}", f"passage {'agree3' if grade(d) else 'agree0'} number {d} of {q}")
                       for q in range(TOPICS) for d in range(DOCS)])
    return path


@pytest.fixture()
def server(tmp_path):
    log = tmp_path / "requests.log"
    log.write_text("")
    with serve("compare.fake_rcl", log, delay=0.05) as url:
        yield f"openai:fake@{url}", log, url


def rcl(ws: Path, collection: Path, model: str, *args: str):
    runs = [str(collection / f"run{r}.txt") for r in range(RUNS)]
    return qrelkit("compare", "-w", str(ws), "--preset", "rcl", "--model", model, "--reference",
                   str(collection / "qrels.txt"), "--runs", *runs, "--topics", "2", "--per-topic", "2",
                   "--concurrency", "8", *args)


def rcl_json(ws: Path, collection: Path, model: str, *args: str) -> dict:
    r = rcl(ws, collection, model, "--json", *args)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)
