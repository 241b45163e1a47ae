"""The exports under ir_measures' and PyTerrier's column names, read back by pandas and scored by ir_measures.

TREC DL's ids are numbers (qid 1037798, docid 7134595), which pandas reads as integers unless told
otherwise, and ir_measures (pytrec_eval) then refuses them ("Expected string as key"): the id columns
are read as text, as the docs say. PyTerrier is not installable here (it needs Java); its qrels
frame is ``qid, docno, label``, which PyTerrier renames to ir_measures' names before scoring
(``qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})`` in its
evaluation code, the rename ir_measures' docs show), so the test does the same rename."""
from __future__ import annotations

import json

import ir_measures
import pandas as pd
import pytest
from ir_measures import AP, P, nDCG
from typer.testing import CliRunner

import qrelkit
from qrelkit.cli import app
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Judgment, Qrel, Topic

MEASURES = [nDCG @ 10, P(rel=2) @ 3, AP(rel=2)]
ORIGINAL = {("1037798", "7134595"): 3, ("1037798", "1000001"): 0, ("104861", "2000002"): 2}
JUDGE = {("1037798", "3000003"): 2, ("104861", "4000004"): 0, ("104861", "5000005"): 3}
RUN = [ir_measures.ScoredDoc(q, d, float(10 - i))
       for q, docs in (("1037798", ("3000003", "7134595", "1000001")), ("104861", ("4000004", "5000005", "2000002")))
       for i, d in enumerate(docs)]
PYTERRIER_TO_IR_MEASURES = {"qid": "query_id", "docno": "doc_id", "label": "relevance"}  # what pt.Evaluate renames
TEXT_IDS = {"query_id": str, "doc_id": str, "qid": str, "docno": str}


@pytest.fixture
def ws(tmp_path):
    with Store.create(tmp_path / "ws") as s:
        s.upsert_topics([Topic("1037798", "who is robert gray"), Topic("104861", "cost of interior concrete flooring")])
        s.upsert_docs([Doc(d, f"passage {d}") for _, d in {**ORIGINAL, **JUDGE}])
        s.upsert_qrels([Qrel(q, d, g) for (q, d), g in ORIGINAL.items()])
        s.upsert_cases([Case(q, d, "llm", 1) for q, d in JUDGE])
        s.put_judgments([Judgment(q, d, "zero-shot(doc_tokens=400,narrative=none)", "openai:fake", label=int(g >= 2),
                                  grade=g, status="auto") for (q, d), g in JUDGE.items()])
    return tmp_path / "ws"


def export(ws, out, *fmt) -> None:
    res = CliRunner().invoke(app, ["export", "-w", str(ws), "--out", str(out), *fmt, "--json"])
    assert res.exit_code == 0, res.output
    json.loads(res.stdout)


def scores(qrels) -> dict:
    return {str(m): v for m, v in ir_measures.calc_aggregate(MEASURES, qrels, RUN).items()}


@pytest.fixture
def trec(ws, tmp_path) -> dict:
    """The scores of the TREC export, read by ir_measures' own reader."""
    export(ws, tmp_path / "m.qrels")
    return scores(list(ir_measures.read_trec_qrels(str(tmp_path / "m.qrels"))))


def test_the_trec_export_read_by_ir_measures_holds_every_label(ws, tmp_path):
    export(ws, tmp_path / "m.qrels")
    got = {(q.query_id, q.doc_id): q.relevance for q in ir_measures.read_trec_qrels(str(tmp_path / "m.qrels"))}
    assert got == {**ORIGINAL, **JUDGE}


def test_the_trec_export_scores_what_the_labels_score(trec):
    truth = [ir_measures.Qrel(q, d, g) for (q, d), g in {**ORIGINAL, **JUDGE}.items()]
    assert trec == pytest.approx(scores(truth))


def test_an_ir_measures_export_with_numeric_ids_read_as_text_scores_like_the_trec_export(ws, tmp_path, trec):
    export(ws, tmp_path / "m.tsv", "--format", "ir_measures")
    assert scores(pd.read_csv(tmp_path / "m.tsv", sep="\t", dtype=TEXT_IDS)) == pytest.approx(trec)


def test_a_pyterrier_export_renamed_as_pyterrier_does_scores_like_the_trec_export(ws, tmp_path, trec):
    export(ws, tmp_path / "m.csv", "--format", "pyterrier")
    frame = pd.read_csv(tmp_path / "m.csv", dtype=TEXT_IDS).rename(columns=PYTERRIER_TO_IR_MEASURES)
    assert scores(frame) == pytest.approx(trec)


def test_a_pyterrier_frame_of_merged_qrels_scores_like_the_trec_export(ws, trec):
    frame = qrelkit.merged_qrels(ws, columns="pyterrier").rename(columns=PYTERRIER_TO_IR_MEASURES)
    assert scores(frame[["query_id", "doc_id", "relevance"]]) == pytest.approx(trec)


def test_merged_qrels_keeps_numeric_ids_as_text(ws):
    frame = qrelkit.merged_qrels(ws, columns="ir_measures")
    assert {type(v) for v in [*frame.query_id, *frame.doc_id]} == {str}
