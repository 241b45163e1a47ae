"""Consensus persistence by round (the DREAM paper's B.3 table), from literal round labels and
from a real debate run with stop=never read back by `qrelkit agree --by-round`."""
from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from qrelkit.cli import app
from qrelkit.data import write_qrels
from qrelkit.evaluate.persistence import by_round
from qrelkit.judging.runner import run_judging
from qrelkit.llm import Client, ScriptedBackend
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Qrel, Topic

# four debates, three rounds each: (round labels), reference grade
DEBATES = {
    ("q", "a"): ([[1, 1], [1, 1], [1, 1]], 3),  # relevant, persistent consensus
    ("q", "b"): ([[1, 1], [1, 0], [1, 0]], 0),  # spurious consensus that breaks up
    ("q", "c"): ([[0, 0], [0, 0], [0, 0]], 0),  # non-relevant, persistent
    ("q", "d"): ([[1, 0], [0, 0], [0, 0]], 2),  # no consensus at round 1, then a wrong one
}
ROWS = by_round({p: r for p, (r, _) in DEBATES.items()}, {p: g for p, (_, g) in DEBATES.items()}, 2)


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        ("consensus", [0.75, 0.75, 0.75]),
        ("persistence", [1.0, 0.6667, 0.6667]),
        ("spurious", [0.3333, 0.3333, 0.3333]),
        ("recall_relevant", [1.0, 0.5, 0.5]),
        ("recall_nonrelevant", [0.5, 1.0, 1.0]),
        ("balanced_accuracy", [0.75, 0.75, 0.75]),
        ("consensus_labels", [3, 3, 3]),
    ],
)
def test_by_round_table(field, expected):
    assert [getattr(r, field) for r in ROWS] == expected


def test_a_debate_counts_only_in_the_rounds_it_reached():
    rows = by_round({("q", "a"): [[1, 1]], ("q", "b"): [[1, 0], [1, 1]]}, {}, 2)
    assert [r.debates for r in rows] == [2, 1]


def test_rates_without_a_denominator_are_none():
    assert by_round({("q", "a"): [[1, 0]]}, {}, 2)[0].spurious is None


def _agent(messages, params):
    """Agree in round 1; the irrelevant-stance agent flips to 0 from round 2 on document d1."""
    text = "\n".join(m.content for m in messages)
    rnd = int(re.search(r"^Round (\d+)\.", text, re.M).group(1))
    flips = "doc one" in text and rnd >= 2 and "NOT relevant" in messages[0].content
    return {"evidence": [], "reasoning": "r", "grade": 0 if flips else 3}


@pytest.fixture
def debated(tmp_path):
    ws = tmp_path / "ws"
    with Store.create(ws) as s:
        s.upsert_topics([Topic("q1", "query")])
        s.upsert_docs([Doc("d0", "doc zero"), Doc("d1", "doc one")])
        s.upsert_cases([Case("q1", "d0", "llm", 1), Case("q1", "d1", "llm", 2)])
        client = Client(ScriptedBackend(_agent), store=s, backoff_base=0.0)
        run_judging(s, "debate(rounds=3,stop=never)", client, task="graded")
    ref = tmp_path / "ref.qrels"
    write_qrels(ref, [Qrel("q1", "d0", 3), Qrel("q1", "d1", 0)])
    return ws, ref


def test_agree_by_round_reads_the_workspaces_debates(debated):
    ws, ref = debated
    res = CliRunner().invoke(app, ["agree", "-w", str(ws), "--by-round", "--reference", str(ref), "--json"])
    assert res.exit_code == 0, res.output
    (rows,) = json.loads(res.stdout)["by_round"].values()
    assert [r["persistence"] for r in rows] == [1.0, 0.5, 0.5]


def test_agree_by_round_spurious_rate(debated):
    ws, ref = debated
    res = CliRunner().invoke(app, ["agree", "-w", str(ws), "--by-round", "--reference", str(ref), "--json"])
    (rows,) = json.loads(res.stdout)["by_round"].values()
    assert [r["spurious"] for r in rows] == [0.5, 0.0, 0.0]
