"""On TREC DL 2019, `build --pool 'mtf(n=N)'` reads exactly the pairs MTF's simulation reads.

Six official runs on three topics; the judge answers NIST's grade over real HTTP
(tests/pooling/fake_nist.py), so the rounds of judging must choose what
:func:`qrelkit.pooling.choose` chooses with NIST's labels as its oracle, in the same order.
"""
from __future__ import annotations

import dataclasses
import gzip
import json

import pytest
from fakeserver import serve
from shared_data import shared_data_path

from qrelkit.data import read_runs
from qrelkit.job.run import build
from qrelkit.pooling import choose, oracle, parse_pool

QIDS = ("1037798", "1063750", "104861")
RUNS = ("bm25base_p", "idst_bert_p1", "ms_duet_passage", "TUA1-1", "p_exp_rm3_bert", "ICT-CKNRM_B")
SPEC = "mtf(n=12)"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    data = shared_data_path("trec-dl-2019")
    tmp = tmp_path_factory.mktemp("dl19")
    topics = [line for line in (data / "topics.tsv").read_text().splitlines() if line.split("\t")[0] in QIDS]
    (tmp / "topics.tsv").write_text("\n".join(topics) + "\n")
    runs = []
    for name in RUNS:
        with gzip.open(data / "runs" / "official" / f"{name}.run.gz", "rt") as f:
            kept = [line for line in f if line.split()[0] in QIDS]
        (tmp / f"{name}.run").write_text("".join(kept))
        runs.append(str(tmp / f"{name}.run"))
    retrieved = {line.split()[2] for path in runs for line in open(path)}
    with open(data / "passages.jsonl") as f, open(tmp / "docs.jsonl", "w") as out:
        out.writelines(line for line in f if json.loads(line)["docid"] in retrieved)
    log = tmp / "requests.log"
    with serve("pooling.fake_nist", log) as url:
        result = build(tmp / "ws", topics=str(tmp / "topics.tsv"), docs=str(tmp / "docs.jsonl"), runs=runs,
                       pool=SPEC, human_depth=0, method="zero-shot", model=f"openai:fake@{url}", report=False)
    judged = [line.split() for line in log.read_text().splitlines()]
    return data, runs, result, judged


def simulated(data, runs) -> dict:
    """MTF with NIST's labels (relevant = grade >= 2) over the runs' documents that have text."""
    have = {json.loads(line)["docid"] for line in open(data / "passages.jsonl")}
    read = [dataclasses.replace(r, by_topic={q: [e for e in es if e.docid in have] for q, es in r.by_topic.items()})
            for r in sorted(read_runs(runs), key=lambda r: r.name)]  # the store's order: MTF's tie-break
    nist = {(q, d): int(g) for q, _, d, g in (line.split() for line in (data / "qrels.txt").read_text().splitlines())}
    return choose(parse_pool(SPEC), read, QIDS, relevant=oracle(nist, 2))


def test_the_rounds_judge_what_the_simulation_reads_in_its_order(built):
    data, runs, _, judged = built
    by_topic = {q: tuple(d for qq, d, _ in judged if qq == q) for q in QIDS}
    assert by_topic == simulated(data, runs)


def test_the_rounds_spend_the_budget_of_every_topic(built):
    assert built[2].pool["pooled"] == 12 * len(QIDS)


def test_the_merged_qrels_are_nists_grades_of_the_pool(built):
    data, _, result, judged = built
    merged = {(q, d): int(g) for q, _, d, g in (line.split() for line in open(result.qrels))}
    assert merged == {(q, d): int(g) for q, d, g in judged}
