"""The whole RAG chain on the bundled demo with the embedded model: generate -> grade -> ragalign.

Kept short (two systems, one topic, k=2: at most four model calls) because the
135M model is slow on two cores; its answers and grades are weak, so only the
chain and its bookkeeping are checked, not the verdicts.
"""
from __future__ import annotations

import json

import pytest

from qrelkit.demo import demo_paths

from .test_cli_rag import qrelkit

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    try:
        from qrelkit.llm.local import load

        load()
    except Exception as e:  # noqa: BLE001 - any failure to load means: no embedded model here
        pytest.skip(f"the embedded model cannot be loaded: {e}")
    d, tmp = demo_paths(), tmp_path_factory.mktemp("demo")
    topics = tmp / "topics.jsonl"
    topics.write_text(d.topics.read_text().splitlines()[0] + "\n")
    ws = tmp / "ws"
    runs = [str(p) for p in d.runs if p.stem in ("bm25", "monot5")]
    gen = qrelkit("rag", "generate", "--runs", *runs, "--topics", topics, "--docs", d.docs, "--k", "2",
                  "--model", "local", "-w", ws, "--json")
    grade = qrelkit("rag", "grade", "-w", ws, "--topics", topics, "--model", "local", "--json")
    align = qrelkit("ragalign", "--runs", *runs, "--qrels", d.qrels, "--qrels", d.full_qrels, "--k", "2",
                    "--generation", ws / "answers.graded.jsonl", "--json")
    return gen, grade, align


def test_generate_answers_both_systems(chain):
    gen, _, _ = chain
    assert gen.returncode == 0, gen.stderr
    assert json.loads(gen.stdout)["answers"] == 2


def test_grade_gives_a_verdict_or_an_explicit_error_for_each_answer(chain):
    _, grade, _ = chain
    assert grade.returncode == 0, grade.stderr
    out = json.loads(grade.stdout)
    assert out["graded"] + out["errors"] == 2


def test_ragalign_compares_the_partial_and_the_full_qrels(chain):
    _, _, align = chain
    assert align.returncode == 0, align.stderr
    assert list(json.loads(align.stdout)["versions"]) == ["qrels", "qrels.full"]
