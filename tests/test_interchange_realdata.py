"""A published LLM judgment set of TREC DL 2019 imported as a version: `agree -w` gives what a direct
comparison of the two files gives (real data from ../shared/data; skipped without it)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from qrelkit.cli import app
from qrelkit.data import load_qrels
from qrelkit.store import Store
from qrelkit.types import Qrel, Topic

DL19 = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "trec-dl-2019"
LLM = "farzi_dl19_4prompts_llama3.3-70b"
runner = CliRunner()


def cli(*args) -> dict:
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


@pytest.fixture(scope="module")
def agreement(tmp_path_factory):
    if not (DL19 / "llm-qrels" / f"{LLM}.qrel").exists():
        pytest.skip(f"real data not found at {DL19.resolve()} (expects ../shared/data next to the repository)")
    ws = tmp_path_factory.mktemp("dl19") / "ws"
    with Store.create(ws) as s:
        s.upsert_topics([Topic(*line.split("\t", 1)) for line in (DL19 / "topics.tsv").read_text().splitlines()])
        s.upsert_qrels([Qrel(q, d, g) for (q, d), g in load_qrels(str(DL19 / "qrels.txt")).pairs.items()])
    imported = cli("import", "-w", ws, "--qrels", DL19 / "llm-qrels" / f"{LLM}.qrel", "--source", LLM, "--json")
    via_ws = {r["name"]: r for r in cli("agree", "-w", ws, "--json")["results"]}[f"imported:{LLM}"]
    direct = cli("agree", "--reference", DL19 / "qrels.txt", "--labels", DL19 / "llm-qrels" / f"{LLM}.qrel", "--json")
    return imported, via_ws, direct


def test_every_published_label_is_imported(agreement):
    imported, _, _ = agreement
    assert imported["labels"] == 9260


@pytest.mark.parametrize("key", ["cohen_kappa", "balanced_accuracy", "krippendorff_alpha"])
def test_the_imported_version_agrees_with_nist_as_the_file_does(agreement, key):
    _, via_ws, direct = agreement
    assert via_ws[key] == pytest.approx(direct[key])
