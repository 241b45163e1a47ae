"""The rcl preset's LLM rows on a hybrid pool, as a real subprocess against the scripted HTTP server.

Four topics of 15 passages each (odd ones relevant, their text says agree3), five runs ranking
them in different seeded orders: pooled at depth 10, people get every run's top 3 (depth) or a
10 % stratified sample, the scripted LLM the rest (tests/compare/fake_rcl.py)."""

from __future__ import annotations

import json
import random
import urllib.request
from pathlib import Path

import pytest
from browser import ARGS, CHROMIUM, needs_chromium
from fakeserver import serve

from compare.test_compare_cli import qrelkit
from qrelkit.store import Store
from qrelkit.types import Doc, Topic

TOPICS, DOCS, RUNS = 4, 15, 5


def grade(d: int) -> int:
    return 3 if d % 2 else 0


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    root = tmp_path_factory.mktemp("rcl")
    ref = root / "qrels.txt"
    ref.write_text("".join(f"q{q} 0 q{q}d{d} {grade(d)}\n" for q in range(TOPICS) for d in range(DOCS)))
    for r in range(RUNS):
        lines = []
        for q in range(TOPICS):
            order = list(range(DOCS))
            random.Random(f"{r}|{q}").shuffle(order)
            lines += [f"q{q} Q0 q{q}d{d} {i + 1} {DOCS - i} run{r}\n" for i, d in enumerate(order)]
        (root / f"run{r}.txt").write_text("".join(lines))
    return root


def make_ws(path: Path) -> Path:
    with Store.create(path) as s:
        s.upsert_topics([Topic(f"q{q}", f"query {q}") for q in range(TOPICS)])
        s.upsert_docs([Doc(f"q{q}d{d}", f"passage {'agree3' if grade(d) else 'agree0'} number {d} of {q}")
                       for q in range(TOPICS) for d in range(DOCS)])
    return path


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    log = tmp_path_factory.mktemp("srv") / "requests.log"
    log.write_text("")
    with serve("compare.fake_rcl", log, delay=0.05) as url:
        yield f"openai:fake@{url}", log, url


def rcl(ws: Path, collection: Path, model: str, *args: str):
    runs = [str(collection / f"run{r}.txt") for r in range(RUNS)]
    return qrelkit("compare", "-w", str(ws), "--preset", "rcl", "--model", model, "--reference",
                   str(collection / "qrels.txt"), "--runs", *runs, "--topics", "2", "--per-topic", "2",
                   "--concurrency", "8", *args)


def rcl_json(ws: Path, collection: Path, model: str, *args: str) -> dict:
    r = rcl(ws, collection, model, "--json", *args)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


LLM_ROWS = 23  # Table 1's 7 rows under both allocations, Table 2's 3 and Table 3's 6 under depth-k


@pytest.fixture(scope="module")
def measured(server, collection, tmp_path_factory):
    """One run of the preset, twice executed (--repeat 2), with its page; then the same call again."""
    model, log, url = server
    root = tmp_path_factory.mktemp("measured")
    ws = make_ws(root / "ws")
    first = rcl_json(ws, collection, model, "--repeat", "2", "--html", str(root / "rcl.html"))
    lines = log.read_text().split()
    flight = json.loads(urllib.request.urlopen(url.removesuffix("/v1") + "/stats").read())["in_flight_max"]
    again = rcl(ws, collection, model, "--repeat", "2")
    return {"out": first, "requests": lines, "in_flight_max": flight, "again": again,
            "again_requests": len(log.read_text().split()) - len(lines), "page": root / "rcl.html"}


def row(out: dict, name: str) -> dict:
    return next(x for x in out["rcl_rows"] if x["row"] == name)


def test_every_llm_row_is_measured_under_its_allocation(measured):
    assert len(measured["out"]["rcl_rows"]) == LLM_ROWS


@pytest.mark.parametrize("name", ["Zero-shot, depth-k", "ICL k=3, sampling", "RCL w/ relevants", "RICL Relevant k=2"])
def test_a_row_judges_every_pair_of_its_sample_with_one_assessor_call_each(measured, name):
    r = row(measured["out"], name)
    assert (r["cases"], r["calls_per_case"], r["undecided"]) == (4, 1.0, 0)  # 2 topics x 2 pairs


def test_no_prompt_reaches_the_server_twice_across_rows_executions_and_allocations(measured):
    assert len(measured["requests"]) == len(set(measured["requests"]))


def test_a_second_call_resumes_without_a_model_call(measured):
    assert (measured["again"].returncode, measured["again_requests"]) == (0, 0)


def test_repeat_gives_each_row_that_many_executions_and_a_standard_deviation(measured):
    r = row(measured["out"], "ICL k=1, sampling")
    assert (r["executions"], r["f1_std"] is not None, r["mcc_std"] is not None) == (2, True, True)


def test_the_scripted_assessor_that_is_always_right_scores_f1_1(measured):
    assert row(measured["out"], "RCL w/ all human-judged")["f1"] == 1.0


def test_the_table_prints_the_published_and_the_measured_column_of_an_llm_row(measured):
    line = next(x for x in measured["again"].stderr.splitlines() if "| Zero-shot, depth-k | f1 |" in x)
    assert line.split("|")[4:6] == [" 0.7598 ", " 1 ± 0 "]  # published, measured: mean ± std of 2 executions


def test_the_json_pairs_the_published_and_the_measured_figure_of_an_llm_row(measured):
    r = next(x for x in measured["out"]["preset"]["rows"] if x["row"] == "RICL k=2" and x["figure"] == "mcc")
    assert (r["published"], r["measured"] is not None) == (0.8881, True)


def test_the_methods_of_the_preset_are_judged_at_once(measured):
    assert 4 < measured["in_flight_max"] <= 8  # one method alone has 4 pairs; the comparison's limit is 8


@pytest.mark.browser
@needs_chromium
def test_the_html_page_shows_the_per_query_f1_box_plot_in_chromium(measured):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page()
            page.goto(measured["page"].as_uri())
            width = page.eval_on_selector("img[alt='per-query F1 box plot']", "e => e.naturalWidth")
        finally:
            browser.close()
    assert width > 300
