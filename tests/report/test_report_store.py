"""The report's entry point for jobs: it takes the open Store (and the job's merge), and hands
back its JSON twin, so `fill` neither opens a second Store nor reads report.json back."""

from __future__ import annotations

import dataclasses
import json

from qrelkit.demo import demo_paths
from qrelkit.merge import MergedLabel, merge
from qrelkit.report import report_from_store
from qrelkit.store import Store
from qrelkit.workspace import load_collection


def loaded(ws):
    d = demo_paths()
    store = Store.create(ws)
    load_collection(store, str(d.topics), str(d.docs), str(d.qrels), [str(p) for p in d.runs])
    return store


def test_the_report_hands_back_what_it_wrote(tmp_path):
    with loaded(tmp_path / "ws") as store:
        files = report_from_store(store, tmp_path / "ws" / "report.html")
    assert files.data == json.loads(files.json.read_text())


def test_the_report_counts_the_merge_it_is_given(tmp_path):
    with loaded(tmp_path / "ws") as store:
        base = merge(store)
        qid = sorted(store.topics())[0]
        extra = MergedLabel(qid, "new-doc", 3, "llm", "consensus", method="zero-shot", model="openai:m")
        given = dataclasses.replace(base, labels=(*base.labels, extra))
        files = report_from_store(store, tmp_path / "ws" / "report.html", merged_result=given)
    assert files.data["provenance"]["counts"]["labels from llm"] == 1
