"""A workspace filled by the previous version resumes with 0 new LLM calls and the same qrels:
the method id composed from ``--auto`` (once by string surgery, now as a value) is unchanged."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

from qrelkit import jobs

from .test_cli import log_lines, server  # noqa: F401  (the fake server fixture)

BEFORE = Path(__file__).parent / "data" / "fill-before-one-parser"


def unpack(ws: Path) -> Path:
    ws.mkdir()
    with gzip.open(BEFORE / "qrelkit.sqlite.gz", "rb") as src, open(ws / "qrelkit.sqlite", "wb") as dst:
        shutil.copyfileobj(src, dst)
    return ws


def test_a_fill_from_before_resumes_with_no_new_calls_and_the_same_qrels(server, tmp_path):  # noqa: F811
    url, log = server
    ws = unpack(tmp_path / "ws")
    requests = len(log_lines(log))
    result = jobs.fill(ws, auto=True, model=f"openai:fake@{url}", method="debate(rounds=1)", limit=8,
                       report=False)
    assert result.state == "done"
    assert result.method == "debate(adjudicator=llm,doc_tokens=400,first=relevant,rounds=1)"
    assert result.judge["calls"] == 0
    assert len(log_lines(log)) == requests
    assert (ws / "qrels.merged.txt").read_text() == (BEFORE / "qrels.merged.txt").read_text()
