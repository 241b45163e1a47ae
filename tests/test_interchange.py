"""Interchange: merged qrels under ir_measures' and PyTerrier's column names, the confidence judge's
probabilities in LARA's form, and other tools' judgments imported as a qrels version.

Exports are read back by ir_measures and pandas; imports are compared with `agree`."""
from __future__ import annotations

import json
import math
from pathlib import Path

import ir_measures
import pandas as pd
import pytest
from ir_measures import P, nDCG
from typer.testing import CliRunner

import qrelkit
from qrelkit.cli import app, main
from qrelkit.data import write_qrels
from qrelkit.errors import UsageError
from qrelkit.evaluate.agreement import compare_labels
from qrelkit.judges.calibration import sigmoid
from qrelkit.judging.runner import run_judging
from qrelkit.llm import CHAT, JSON_SCHEMA, TOP_LOGPROBS, Client, Completion, ScriptedBackend, TokenLogprob
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Judgment, Qrel, Topic

runner = CliRunner()
MEASURES = [nDCG @ 10, P(rel=2) @ 5]
ORIGINAL = {("q1", "d0"): 2, ("q1", "d1"): 0, ("q2", "d2"): 3, ("q2", "d3"): 1}
JUDGE = {("q1", "d4"): 2, ("q1", "d5"): 0, ("q2", "d6"): 3}  # an LLM judge's labels of the holes
METHOD = "zero-shot(doc_tokens=400,narrative=none)"


def cli(*args) -> dict:
    res = runner.invoke(app, [str(a) for a in args])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


@pytest.fixture
def ws(tmp_path) -> Path:
    with Store.create(tmp_path / "ws") as s:
        s.upsert_topics([Topic("q1", "what is a fox"), Topic("q2", "how big is a dog")])
        s.upsert_docs([Doc(f"d{i}", f"passage number {i}") for i in range(8)])
        s.upsert_qrels([Qrel(q, d, g) for (q, d), g in ORIGINAL.items()])
        s.upsert_cases([Case(q, d, "llm", 1) for q, d in JUDGE])
        s.put_judgments([Judgment(q, d, METHOD, "openai:fake", label=int(g >= 2), grade=g, status="auto")
                         for (q, d), g in JUDGE.items()])
    return tmp_path / "ws"


@pytest.fixture
def run_file(tmp_path) -> Path:
    path = tmp_path / "a.run"
    path.write_text("".join(f"{q} Q0 d{i} {r + 1} {10 - r} a\n" for q, ids in (("q1", (4, 0, 5, 1)), ("q2", (2, 6, 3)))
                            for r, i in enumerate(ids)))
    return path


def scores(qrels) -> dict:
    return {str(m): v for m, v in ir_measures.calc_aggregate(MEASURES, qrels, RUN).items()}


RUN: list = []


@pytest.fixture(autouse=True)
def _run(run_file):
    RUN[:] = list(ir_measures.read_trec_run(str(run_file)))


# ---- exports read back ----------------------------------------------------------------------------
def trec_scores(ws, tmp_path) -> dict:
    cli("export", "-w", ws, "--out", tmp_path / "m.qrels", "--json")
    return scores(list(ir_measures.read_trec_qrels(str(tmp_path / "m.qrels"))))


def test_an_ir_measures_export_scores_like_the_trec_export(ws, tmp_path):
    cli("export", "-w", ws, "--out", tmp_path / "m.tsv", "--format", "ir_measures", "--json")
    table = pd.read_csv(tmp_path / "m.tsv", sep="\t", dtype={"query_id": str, "doc_id": str})
    assert scores(table) == pytest.approx(trec_scores(ws, tmp_path))


def test_an_ir_measures_export_keeps_provenance_columns(ws, tmp_path):
    cli("export", "-w", ws, "--out", tmp_path / "m.tsv", "--format", "ir_measures", "--json")
    table = pd.read_csv(tmp_path / "m.tsv", sep="\t")
    assert list(table.columns) == ["query_id", "doc_id", "relevance", "source", "status", "method", "model", "round"]


def test_a_pyterrier_export_is_a_csv_of_qid_docno_label(ws, tmp_path):
    cli("export", "-w", ws, "--out", tmp_path / "m.csv", "--format", "pyterrier", "--json")
    table = pd.read_csv(tmp_path / "m.csv", dtype={"qid": str, "docno": str})
    got = {(r.qid, r.docno): r.label for r in table.itertuples()}
    assert got == {**ORIGINAL, **JUDGE}


def test_a_pyterrier_export_says_where_each_label_came_from(ws, tmp_path):
    cli("export", "-w", ws, "--out", tmp_path / "m.csv", "--format", "pyterrier", "--json")
    table = pd.read_csv(tmp_path / "m.csv")
    assert table.groupby("source").size().to_dict() == {"llm": 3, "original": 4}


def test_merged_qrels_with_ir_measures_columns_score_directly(ws, tmp_path):
    frame = qrelkit.merged_qrels(ws, columns="ir_measures")
    assert scores(frame[["query_id", "doc_id", "relevance"]]) == pytest.approx(trec_scores(ws, tmp_path))


@pytest.mark.parametrize("columns,first", [("ir_measures", ["query_id", "doc_id", "relevance"]),
                                          ("pyterrier", ["qid", "docno", "label"]),
                                          ("qrelkit", ["qid", "docid", "grade"])])
def test_merged_qrels_puts_the_tools_column_names_first(ws, columns, first):
    assert list(qrelkit.merged_qrels(ws, columns=columns).columns[:3]) == first


def test_merged_qrels_keeps_the_provenance_column(ws):
    assert "provenance" in qrelkit.merged_qrels(ws, columns="pyterrier").columns


def test_merged_qrels_refuses_an_unknown_column_set(ws):
    with pytest.raises(UsageError, match="choose from"):
        qrelkit.merged_qrels(ws, columns="trec_eval")


def test_an_unknown_export_format_is_a_user_error(ws, tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["export", "-w", str(ws), "--out", str(tmp_path / "x"), "--format", "xml"])
    assert (e.value.code, "choose from" in capsys.readouterr().err) == (2, True)


# ---- LARA ----------------------------------------------------------------------------------------------
def yesno_client(store):
    """P(yes) = sigmoid(strength written in the passage): the scripted model's answer."""

    def fn(messages, params):
        s = float(messages[-1].content.split("strength ")[1].split()[0])
        p = min(max(sigmoid(s), 1e-9), 1 - 1e-9)
        top = sorted((("Yes", math.log(p)), ("No", math.log(1 - p))), key=lambda t: -t[1])
        return Completion(text=top[0][0], logprobs=(TokenLogprob(top[0][0], top[0][1], tuple(top)),),
                          prompt_tokens=10, completion_tokens=1)

    return Client(ScriptedBackend(fn, capabilities=frozenset({CHAT, JSON_SCHEMA, TOP_LOGPROBS})), store=store,
                  backoff_base=0.0)


@pytest.fixture
def confidence_ws(tmp_path):
    """24 labelled pairs to calibrate on and 12 holes judged by confidence; 6 holes labelled afterwards."""
    path = tmp_path / "cws"
    strength = {f"h{i}": -3 + i * 0.5 for i in range(12)}
    with Store.create(path) as s:
        s.upsert_topics([Topic("q1", "fox")])
        s.upsert_docs([Doc(f"l{i}", f"labelled strength {-3 + i * 0.25} .") for i in range(24)]
                      + [Doc(d, f"hole strength {v} .") for d, v in strength.items()])
        s.upsert_qrels([Qrel("q1", f"l{i}", 2 if -3 + i * 0.25 >= 1 else 0) for i in range(24)])
        s.upsert_cases([Case("q1", d, "llm", 1) for d in strength])
        run_judging(s, "confidence(budget=2,batch=12)", yesno_client(s), task="graded", threshold=2)
        s.upsert_qrels([Qrel("q1", f"h{i}", 3 if i % 2 else 0) for i in range(6)])
    return path, strength


def test_the_lara_export_has_laras_columns(confidence_ws, tmp_path):
    ws, _ = confidence_ws
    cli("export", "-w", ws, "--lara", tmp_path / "lara.csv", "--json")
    assert list(pd.read_csv(tmp_path / "lara.csv").columns) == ["topic_id", "doc_id", "annotation", "prob_yes",
                                                                "prob_no"]


def test_the_lara_export_gives_the_models_p_yes(confidence_ws, tmp_path):
    ws, strength = confidence_ws
    cli("export", "-w", ws, "--lara", tmp_path / "lara.csv", "--json")
    table = pd.read_csv(tmp_path / "lara.csv")
    assert dict(zip(table.doc_id, table.prob_yes)) == pytest.approx({d: sigmoid(v) for d, v in strength.items()},
                                                                   rel=1e-5)


def test_the_lara_export_probabilities_sum_to_one(confidence_ws, tmp_path):
    ws, _ = confidence_ws
    cli("export", "-w", ws, "--lara", tmp_path / "lara.csv", "--json")
    table = pd.read_csv(tmp_path / "lara.csv")
    assert (table.prob_yes + table.prob_no).tolist() == pytest.approx([1.0] * len(table))


def test_the_lara_annotation_is_the_peoples_binary_label_where_there_is_one(confidence_ws, tmp_path):
    ws, _ = confidence_ws
    out = cli("export", "-w", ws, "--lara", tmp_path / "lara.csv", "--json")
    table = pd.read_csv(tmp_path / "lara.csv").set_index("doc_id")
    got = {d: table.annotation[d] for d in table.index if not pd.isna(table.annotation[d])}
    assert (got, out["lara"]["annotated"]) == ({f"h{i}": float(i % 2) for i in range(6)}, 6)


def test_the_lara_export_needs_a_confidence_judge(ws, tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["export", "-w", str(ws), "--lara", str(tmp_path / "l.csv")])
    assert (e.value.code, "no confidence judgments" in capsys.readouterr().err) == (2, True)


# ---- imports ---------------------------------------------------------------------------------------
OTHER = {("q1", "d0"): 2, ("q1", "d1"): 2, ("q2", "d2"): 3, ("q2", "d3"): 0}  # another assessor


def test_imported_trec_qrels_agree_as_a_direct_comparison_says(ws, tmp_path):
    write_qrels(tmp_path / "other.qrels", OTHER)
    cli("import", "-w", ws, "--qrels", tmp_path / "other.qrels", "--source", "nist2", "--json")
    results = {r["name"]: r for r in cli("agree", "-w", ws, "--json")["results"]}
    direct = compare_labels(ORIGINAL, OTHER, 2, name="x").to_dict()
    assert results["imported:nist2"]["cohen_kappa"] == pytest.approx(direct["cohen_kappa"])


def test_an_import_reports_its_labels(ws, tmp_path):
    write_qrels(tmp_path / "other.qrels", OTHER)
    out = cli("import", "-w", ws, "--qrels", tmp_path / "other.qrels", "--source", "nist2", "--json")
    assert (out["method"], out["labels"]) == ("imported:nist2", 4)


def test_an_imported_version_carries_imported_provenance(ws, tmp_path):
    write_qrels(tmp_path / "other.qrels", OTHER)
    cli("import", "-w", ws, "--qrels", tmp_path / "other.qrels", "--source", "nist2", "--json")
    with Store.open(ws) as s:
        prov = json.loads(s.judgments(method="imported:nist2")[0].provenance)
    assert (prov["source"], prov["imported"]["format"]) == ("imported", "trec")


def test_importing_a_version_again_replaces_it(ws, tmp_path):
    write_qrels(tmp_path / "other.qrels", OTHER)
    cli("import", "-w", ws, "--qrels", tmp_path / "other.qrels", "--source", "nist2", "--json")
    write_qrels(tmp_path / "other.qrels", {("q1", "d0"): 1})
    out = cli("import", "-w", ws, "--qrels", tmp_path / "other.qrels", "--source", "nist2", "--json")
    with Store.open(ws) as s:
        assert (out["replaced"], len(s.judgments(method="imported:nist2"))) == (4, 1)


def test_an_import_does_not_become_the_default_judge_of_export(ws, tmp_path):
    write_qrels(tmp_path / "other.qrels", OTHER)
    cli("import", "-w", ws, "--qrels", tmp_path / "other.qrels", "--source", "nist2", "--json")
    assert cli("export", "-w", ws, "--out", tmp_path / "m.qrels", "--json")["method"] == METHOD


def umbrela_lines() -> list[dict]:
    """UMBRELA's JSONL output: pairs named by their text, no ids."""
    def rec(q, p, j, status=1):
        return {"model": "gpt-4o", "query": q, "passage": p, "prompt": "...",
                "prediction": f"...\n##final score: {j}", "judgment": j, "result_status": status}
    return [rec("what is a fox", "passage number 4", 3), rec("what is a fox", "passage number 5", 1),
            rec("how big is a dog", "passage number 6", 0, status=0), rec("what is a cat", "passage number 7", 2)]


@pytest.fixture
def umbrela_file(tmp_path) -> Path:
    path = tmp_path / "umbrela.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in umbrela_lines()))
    return path


def test_umbrela_records_are_matched_to_pairs_by_their_text(ws, umbrela_file):
    cli("import", "-w", ws, "--umbrela", umbrela_file, "--source", "umbrela", "--json")
    with Store.open(ws) as s:
        got = {(j.qid, j.docid): j.grade for j in s.judgments(method="imported:umbrela")}
    assert got == {("q1", "d4"): 3, ("q1", "d5"): 1, ("q2", "d6"): None}


def test_an_umbrela_fallback_zero_is_kept_undecided(ws, umbrela_file):
    out = cli("import", "-w", ws, "--umbrela", umbrela_file, "--source", "umbrela", "--json")
    assert (out["labels"], out["errors"]) == (2, 1)


def test_an_umbrela_record_for_an_unknown_topic_is_counted_unmatched(ws, umbrela_file):
    out = cli("import", "-w", ws, "--umbrela", umbrela_file, "--source", "umbrela", "--json")
    assert (out["unmatched"], out["unmatched_lines"]) == (1, [4])


def test_umbrela_labels_keep_umbrelas_model(ws, umbrela_file):
    cli("import", "-w", ws, "--umbrela", umbrela_file, "--source", "umbrela", "--json")
    with Store.open(ws) as s:
        assert {j.model for j in s.judgments(method="imported:umbrela")} == {"gpt-4o"}


def test_an_imported_version_merges_and_exports_as_imported(ws, umbrela_file, tmp_path):
    cli("import", "-w", ws, "--umbrela", umbrela_file, "--source", "umbrela", "--json")
    out = cli("export", "-w", ws, "--out", tmp_path / "u.qrels", "--method", "imported:umbrela", "--json")
    merged = {(q.query_id, q.doc_id): q.relevance for q in ir_measures.read_trec_qrels(str(tmp_path / "u.qrels"))}
    assert (out["imported"], merged) == (2, {**ORIGINAL, ("q1", "d4"): 3, ("q1", "d5"): 1})


def test_a_malformed_umbrela_line_is_a_user_error_naming_the_line(ws, tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(umbrela_lines()[0]) + "\n{not json\n")
    with pytest.raises(SystemExit) as e:
        main(["import", "-w", str(ws), "--umbrela", str(bad)])
    err = capsys.readouterr().err
    assert (e.value.code, "bad.jsonl:2" in err, "Traceback" in err) == (2, True, False)


def test_import_needs_exactly_one_file(ws, capsys):
    with pytest.raises(SystemExit) as e:
        main(["import", "-w", str(ws)])
    assert (e.value.code, "exactly one" in capsys.readouterr().err) == (2, True)
