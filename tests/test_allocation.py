"""People's-share strategies: depth-k, reference-stratified (simulation) and rank-band stratified."""
from __future__ import annotations

import json
from collections import Counter

import pytest

from qrelkit.demo import demo_paths
from qrelkit.errors import UsageError
from qrelkit.job.plan import load_plan
from qrelkit.pooling.allocation import parse_allocation, resolve_people, stratum_quotas
from qrelkit.types import Case

# A toy pool of one topic: 100 cases, best ranks 1..10 (10 each), grades 60 x 0, 30 x 1, 10 x 2.
TOY = tuple(Case("q1", f"d{i:03d}", best_rank=i % 10 + 1) for i in range(100))
REFERENCE = {("q1", f"d{i:03d}"): (0 if i < 60 else 1 if i < 90 else 2) for i in range(100)}


def people_grades(spec: str) -> Counter:
    chosen = parse_allocation(spec).people(TOY, REFERENCE)
    return Counter(REFERENCE[p] for p in chosen)


@pytest.mark.parametrize(("grade", "count"), [(0, 6), (1, 3), (2, 1)])
def test_reference_stratification_takes_each_grade_in_its_exact_share(grade, count):
    assert people_grades("stratified(rate=0.10)")[grade] == count


@pytest.mark.parametrize(("grade", "count"), [(0, 15), (1, 8), (2, 2)])
def test_quotas_round_by_largest_remainders_to_the_topic_total(grade, count):
    assert stratum_quotas({0: 60, 1: 30, 2: 10}, 0.25)[grade] == count


def test_unlabelled_pooled_cases_are_a_stratum_of_their_own():
    partial = {k: v for k, v in REFERENCE.items() if v > 0}  # the 60 zeros unlabelled
    chosen = parse_allocation("stratified(rate=0.1)").people(TOY, partial)
    assert sum(1 for p in chosen if p not in partial) == 6


def test_reference_stratification_refuses_without_a_reference_and_says_why():
    with pytest.raises(UsageError, match="only a simulation has.*by=rank"):
        parse_allocation("stratified(rate=0.1)").people(TOY, None)


@pytest.mark.parametrize("rank", range(1, 11))
def test_rank_bands_need_no_reference_and_take_one_per_band(rank):
    chosen = parse_allocation("stratified(rate=0.1, by=rank)").people(TOY, None)
    assert sum(1 for c in TOY if (c.qid, c.docid) in chosen and c.best_rank == rank) == 1


def test_wider_rank_bands_sample_within_the_band():
    chosen = parse_allocation("stratified(rate=0.1, by=rank, band=5)").people(TOY, None)
    assert Counter((c.best_rank - 1) // 5 for c in TOY if (c.qid, c.docid) in chosen) == {0: 5, 1: 5}


def test_the_same_seed_draws_the_same_sample():
    a = parse_allocation("stratified(rate=0.2, seed=3)").people(TOY, REFERENCE)
    assert a == parse_allocation("stratified(rate=0.2, seed=3)").people(TOY, REFERENCE)


def test_another_seed_draws_another_sample():
    a = parse_allocation("stratified(rate=0.2, seed=3)").people(TOY, REFERENCE)
    assert a != parse_allocation("stratified(rate=0.2, seed=4)").people(TOY, REFERENCE)


def test_samples_are_drawn_per_topic():
    two = TOY + tuple(Case("q2", c.docid, best_rank=c.best_rank) for c in TOY[:50])
    chosen = parse_allocation("stratified(rate=0.1, by=rank)").people(two, None)
    assert Counter(q for q, _ in chosen) == {"q1": 10, "q2": 5}


def test_depth_takes_the_top_k_human_ranks():
    chosen = parse_allocation("depth(k_human=3)").people(TOY)
    assert {c.best_rank for c in TOY if (c.qid, c.docid) in chosen} == {1, 2, 3}


def test_allocate_marks_shares():
    shares = Counter(c.share for c in parse_allocation("depth(k_human=2)").allocate(TOY))
    assert shares == {"people": 20, "llm": 80}


@pytest.mark.parametrize(("text", "canonical"), [
    ("depth", "depth(k_human=3)"),
    ("stratified", "stratified(band=1,by=reference,rate=0.1,seed=0)"),
    ("stratified(rate=0.10, by=rank)", "stratified(band=1,by=rank,rate=0.1,seed=0)"),
])
def test_specs_have_a_canonical_form(text, canonical):
    assert str(parse_allocation(text)) == canonical


@pytest.mark.parametrize(("text", "problem"), [
    ("lottery(rate=0.1)", "unknown strategy 'lottery'"),
    ("stratified(rate=2)", "out of range"),
    ("stratified(by=grade)", "not one of reference, rank"),
    ("depth+depth", "expected one strategy"),
])
def test_bad_specs_say_what_is_wrong(text, problem):
    with pytest.raises(UsageError, match=problem):
        parse_allocation(text)


def test_human_depth_and_people_together_are_refused():
    with pytest.raises(UsageError, match="not both"):
        resolve_people("depth(k_human=2)", 3)


def test_human_depth_is_the_depth_strategy():
    assert str(resolve_people(None, 5)) == "depth(k_human=5)"


def test_a_plan_file_names_the_people_share(tmp_path):
    f = tmp_path / "plan.toml"
    f.write_text('[pool]\npeople = "stratified(rate=0.2, by=rank)"\n')
    assert load_plan(f).people == "stratified(rate=0.2, by=rank)"


def test_a_bad_people_spec_in_a_plan_names_its_line(tmp_path):
    from qrelkit.errors import InputError

    f = tmp_path / "plan.toml"
    f.write_text('[pool]\ndepth = 10\npeople = "stratified(rate=7)"\n')
    with pytest.raises(InputError, match=r"plan.toml:3.*out of range"):
        load_plan(f)


def test_a_command_line_human_depth_replaces_the_plans_people(tmp_path):
    f = tmp_path / "plan.toml"
    f.write_text('[pool]\npeople = "stratified(rate=0.2, by=rank)"\n')
    assert load_plan(f).override(human_depth=2).people is None


def _qk(*args):
    from tests.test_cli_collection import qk
    return qk(*args, check=False)


@pytest.fixture(scope="module")
def demo_ws(tmp_path_factory):
    d = demo_paths()
    ws = tmp_path_factory.mktemp("ws")
    _qk("init", "-w", ws, "--topics", d.topics, "--docs", d.docs, "--qrels", d.qrels, "--runs", *d.runs)
    return ws


def test_pool_people_stratified_by_rank_on_the_demo(demo_ws):
    out = json.loads(_qk("pool", "-w", demo_ws, "--people", "stratified(rate=0.5, by=rank)", "--json").stdout)
    assert out["people"] + out["llm"] == out["holes"]


def test_pool_reports_the_strategy(demo_ws):
    out = json.loads(_qk("pool", "-w", demo_ws, "--people", "stratified(rate=0.5)", "--json").stdout)
    assert out["allocation"] == "stratified(band=1,by=reference,rate=0.5,seed=0)"


def test_pool_with_a_bad_people_spec_exits_2(demo_ws):
    assert _qk("pool", "-w", demo_ws, "--people", "stratified(by=grade)").returncode == 2


def test_pool_human_depth_still_works(demo_ws):
    out = json.loads(_qk("pool", "-w", demo_ws, "--human-depth", "2", "--json").stdout)
    assert out["allocation"] == "depth(k_human=2)"


def test_pool_stratified_by_reference_without_qrels_exits_2_and_says_why(tmp_path):
    d = demo_paths()
    ws = tmp_path / "ws"
    _qk("init", "-w", ws, "--topics", d.topics, "--docs", d.docs, "--runs", *d.runs)
    p = _qk("pool", "-w", ws, "--people", "stratified(rate=0.1)")
    assert (p.returncode, "only a simulation has" in p.stderr) == (2, True)
