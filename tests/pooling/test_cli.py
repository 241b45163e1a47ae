"""`qrelkit pool --pool SPEC` and `qrelkit holes --pool SPEC` end to end on the demo collection."""
from __future__ import annotations

import json

import pytest

from qrelkit.data import load_qrels, read_runs
from qrelkit.demo import demo_paths
from qrelkit.pooling import choose, parse_pool
from qrelkit.store import Store
from tests.test_cli_collection import qk


def init(ws, qrels: bool = True):
    d = demo_paths()
    extra = ["--qrels", d.qrels] if qrels else []
    qk("init", "-w", ws, "--topics", d.topics, "--docs", d.docs, *extra, "--runs", *d.runs, "--json")
    return ws


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    return init(tmp_path_factory.mktemp("ws"))


def pool(ws, *args: str) -> dict:
    return json.loads(qk("pool", "-w", ws, *args, "--json").stdout)


def test_pool_depth_spec_is_the_depth_option(ws):
    by_option = pool(ws, "--depth", "5")
    assert pool(ws, "--pool", "depth(k=5)") == {**by_option, "changed": 0, "unchanged": by_option["pooled"]}


def test_pool_reports_its_strategy(ws):
    assert pool(ws, "--pool", "rrf(n=3)")["pool"] == "rrf(k=60,n=3)"


def test_pool_by_a_strategy_stores_exactly_the_chosen_pairs(ws):
    pool(ws, "--pool", "rbp(n=4,p=0.5)")
    chosen = choose(parse_pool("rbp(n=4,p=0.5)"), read_runs([str(p) for p in demo_paths().runs]))
    with Store.open(ws) as store:
        assert {(c.qid, c.docid) for c in store.cases()} == {(q, d) for q, ds in chosen.items() for d in ds}


def test_a_budget_pools_that_many_pairs(ws):
    assert pool(ws, "--pool", "combmnz(budget=20)")["pooled"] == 20


def test_pool_by_mtf_reads_by_the_workspace_qrels(ws):
    from qrelkit.pooling import oracle
    from qrelkit.relevance import resolve_threshold

    pool(ws, "--pool", "mtf(n=5)")
    qrels = dict(load_qrels(str(demo_paths().qrels)).pairs)
    relevant = oracle(qrels, resolve_threshold("auto", qrels).value)
    chosen = choose(parse_pool("mtf(n=5)"), read_runs([str(p) for p in demo_paths().runs]), relevant=relevant)
    with Store.open(ws) as store:
        assert {(c.qid, c.docid) for c in store.cases()} == {(q, d) for q, ds in chosen.items() for d in ds}


def test_pool_by_mtf_without_qrels_is_refused_and_says_why(tmp_path):
    p = qk("pool", "-w", init(tmp_path / "ws", qrels=False), "--pool", "mtf(n=5)", check=False)
    assert (p.returncode, "has none" in p.stderr) == (2, True)


@pytest.mark.parametrize(("args", "message"), [
    (("--depth", "5", "--pool", "rrf(n=3)"), "give --pool or --depth"),
    (("--pool", "rrf(n=3,budget=4)"), "not both"),
    (("--pool", "fancy"), "unknown strategy"),
])
def test_pool_refuses_bad_pool_options_with_exit_2(ws, args, message):
    p = qk("pool", "-w", ws, *args, check=False)
    assert (p.returncode, message in p.stderr, "Traceback" in p.stderr) == (2, True, False)


def holes(*args: str, check: bool = True):
    d = demo_paths()
    return qk("holes", "--runs", *d.runs, "--qrels", d.qrels, *args, "--json", check=check)


def test_holes_counts_the_strategy_pool():
    out = json.loads(holes("--pool", "rrf(budget=10)").stdout)
    qrels = dict(load_qrels(str(demo_paths().qrels)).pairs)
    chosen = choose(parse_pool("rrf(budget=10)"), read_runs([str(p) for p in demo_paths().runs]),
                    topics={q for q, _ in qrels})
    unlabelled = sum(1 for q, ds in chosen.items() for d in ds if (q, d) not in qrels)
    assert (out["pool"], out["pooled"], out["holes"]) == ("rrf(budget=10,k=60)", 10, unlabelled)


def test_holes_keeps_its_depth_as_the_judged_cut_off():
    out = json.loads(holes("--pool", "rrf(n=2)", "--depth", "5").stdout)
    assert all("Judged@5" in v for v in out["runs"].values())


def test_saturation_refuses_a_pool_that_is_not_depth_k():
    d = demo_paths()
    p = holes("--pool", "rrf(n=3)", "--saturation", "--new-qrels", d.full_qrels, check=False)
    assert (p.returncode, "--saturation grows a depth-k pool" in p.stderr) == (2, True)


def test_saturation_grows_a_depth_spec_like_the_depth_option():
    d = demo_paths()
    full = d.full_qrels
    by_spec = json.loads(holes("--pool", "depth(k=5)", "--saturation", "--new-qrels", full).stdout)["saturation"]
    by_option = json.loads(holes("--depth", "5", "--saturation", "--new-qrels", full).stdout)["saturation"]
    assert by_spec == by_option
