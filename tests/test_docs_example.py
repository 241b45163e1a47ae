"""Getting started, part 2, run as the page says: the collection in docs/examples/own, the scripted
server for the model, three people through the app's HTTP API, then the bare continuation.

What each command prints is compared with the page, row by row (only the seconds a run took may
differ), so the page cannot drift from what a user sees.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fakeserver import serve
from test_fill_people import serving

from qrelkit.annotate.client import AnnotatorClient

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "getting-started.md"
VARIES = {"judge.seconds"}  # how long a run took: the one row that differs from run to run


def section(title: str) -> str:
    text = PAGE.read_text()
    start = text.index(f"### {title}\n")
    end = text.find("\n### ", start + 1)
    return text[start:end if end > 0 else None]


def blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, re.S)


def table(out: str) -> tuple[str, dict[str, str], str]:
    """(title, rows, the line after it) of a job's summary table, found among the stage and
    progress lines a command prints on stderr."""
    lines = [ln.rstrip() for ln in out.strip("\n").splitlines()]
    top = next(i for i, ln in enumerate(lines) if ln.startswith("┌"))
    bottom = next(i for i, ln in enumerate(lines) if ln.startswith("└"))
    rows = dict(tuple(cell.strip() for cell in ln.strip("│").split("│")) for ln in lines[top:bottom] if ln.startswith("│"))
    after = lines[bottom + 1].strip() if bottom + 1 < len(lines) else ""
    return lines[top - 1].strip(), rows, after


def same_rows(got: dict[str, str], page: dict[str, str]) -> None:
    assert got.keys() == page.keys()
    for key, shown in page.items():
        if key in VARIES:
            continue
        if shown.endswith("…"):  # cut to the column's width: the page shows a prefix
            assert got[key].rstrip("…").startswith(shown[:-1]) or shown[:-1].startswith(got[key].rstrip("…")), key
        else:
            assert got[key] == shown, key


def sh(command: str, cwd: Path, port_url: str) -> subprocess.CompletedProcess:
    command = command.replace("http://127.0.0.1:8765/v1", port_url)
    env = {**os.environ, "COLUMNS": "100", "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    p = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "Traceback" not in p.stderr
    return p


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    with serve("judges.fake_openai", tmp_path_factory.mktemp("log") / "calls.log") as url:
        yield url


@pytest.fixture(scope="module")
def filled(model, tmp_path_factory):
    here = tmp_path_factory.mktemp("own")
    shutil.copytree(ROOT / "docs" / "examples" / "own", here / "c")
    (command,) = blocks(section("Fill: pool, find the holes, judge them"), "bash")
    return here, sh(command, here, model)


def test_the_first_fill_prints_what_the_page_shows(filled):
    _, p = filled
    (shown,) = blocks(section("Fill: pool, find the holes, judge them"), "text")
    got, page = table(p.stderr), table(shown)
    assert got[0] == page[0] == "fill: waiting"
    same_rows(got[1], page[1])
    assert got[2] == page[2]


def test_people_settle_the_escalations_and_the_continuation_prints_what_the_page_shows(filled, model):
    here, _ = filled
    adds = [ln for ln in blocks(section("People"), "bash")[0].splitlines() if "users add" in ln]
    assert len(adds) == 3
    tokens = [json.loads(sh(f"{ln} --json", here, model).stdout)["token"] for ln in adds]
    with serving(here / "own-ws") as url:
        for token in tokens:  # each person: the first case relevant (3), the second marginal (1)
            people = AnnotatorClient(url, token)
            while (case := people.next()) is not None and not case.get("done"):
                grade = 3 if case["docid"] == "1c" else 1
                assert people.vote(case["qid"], case["docid"], grade).status_code == 200
    (command,) = blocks(section("Continue"), "bash")
    (shown,) = blocks(section("Continue"), "text")
    got, page = table(sh(command, here, model).stderr), table(shown)
    assert got[0] == page[0] == "fill: done"
    same_rows(got[1], page[1])
    assert got[2] == page[2]

    (example,) = blocks(section("Report and provenance"), "json")
    prov = [json.loads(ln) for ln in (here / "own-ws" / "qrels.merged.txt.provenance.jsonl").read_text().splitlines()]
    (line,) = [p for p in prov if p["source"] == "human" and p["docid"] == "1c"]
    assert line["grade"] == 3 and len(line["provenance"]["votes"]) == 3
    shown_keys = set(re.findall(r'"(\w+)":', example))
    got_keys = set(line) | set(line["provenance"]) | set(line["provenance"]["votes"][0])
    assert shown_keys <= got_keys, shown_keys - got_keys
