"""Shared helpers for judge tests: scripted clients and tiny workspaces."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from qrelkit.judges import JudgeInput, Task
from qrelkit.llm import Client, ScriptedBackend
from qrelkit.types import Case, Doc, Topic

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"


def stance_of(messages) -> str:
    """Which debate role a request is for: relevant | irrelevant | adjudicator | zeroshot | prefilter."""
    system = messages[0].content
    if "senior relevance assessor" in system:
        return "adjudicator"
    if "IS relevant" in system:
        return "relevant"
    if "NOT relevant" in system:
        return "irrelevant"
    if "sort out documents" in system:
        return "prefilter"
    return "zeroshot"


def round_of(messages) -> int:
    # search every message: on a retry the client appends a corrective turn
    m = re.search(r"^Round (\d+)\.", "\n".join(x.content for x in messages), re.M)
    return int(m.group(1)) if m else 0


def agent(grade=None, label=None, evidence=(), reasoning="because"):
    out = {"evidence": list(evidence), "reasoning": reasoning}
    if grade is not None:
        out["grade"] = grade
    if label is not None:
        out["label"] = label
    return out


def make_client(fn, score_fn=None, store=None, **kw):
    backend = ScriptedBackend(fn, score_fn=score_fn)
    return Client(backend, store=store, backoff_base=0.0, **kw)


@pytest.fixture
def graded_input():
    def make(text="The quick brown fox jumps over the lazy dog.", qid="q1", docid="d1", narrative=None):
        return JudgeInput(
            Case(qid, docid),
            Topic(qid, "what does the fox do", narrative=narrative),
            Doc(docid, text),
            Task("graded", 2),
        )

    return make


@pytest.fixture
def answer_input():
    def make(text="Paris is the capital of France.", qid="q1", docid="d1"):
        return JudgeInput(
            Case(qid, docid),
            Topic(qid, "capital of france", answers=("Paris",)),
            Doc(docid, text),
            Task("answer"),
        )

    return make
