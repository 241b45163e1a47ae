"""Every input reader, fed a few hundred generated malformed files, either
reads them or raises one InputError naming the file; never another exception
(issue 17: "a fuzz test feeds each input reader ... and asserts the same contract").

The files are built from the pieces real files are made of (ids, tabs, JSON
fragments, numbers that are not numbers, bytes that are not UTF-8, deep
nesting, gzip), mixed with lines that are valid, so that the readers get past
their first check and meet repeats, conflicts and missing fields. Hypothesis
runs derandomized: the same examples every time, so a failure is reproducible.
"""
from __future__ import annotations

import gzip
import json
import os
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qrelkit.data import DocIndex, load_qrels, load_topics, read_qrels, read_run, unique_docs
from qrelkit.data.cases import read_cases
from qrelkit.errors import InputError
from qrelkit.evaluate.circularity import read_run_meta
from qrelkit.evaluate.leaveout import read_groups
from qrelkit.evaluate.ragalign import read_generation
from qrelkit.evaluate.stability import read_combination
from qrelkit.job.plan import _SECTIONS, load_plan

TOKENS = ["q1", "q2", "d1", "d2", "0", "1", "2", "-1", "Q0", "2.5", "nan", "inf", "-inf", "1e999", "x", "",
          "{", "}", "[", "]", '"', ":", ",", "=", "true", "null", "qid", "docid", "text", "ü", "\u2028", "\x00",
          "[inputs]", "[pool]", "[prices]", "depth", "runs", "topics", "a1", "share", "judged", "#"]
# numbers at the edges (issue 25): huge, negative, NaN and inf, what only Python's int/float read
# (underscores, Unicode digits), grades at and past the allowed range, digits past int()'s limit
NUMBERS = ["1" + "0" * 30, "-1" + "0" * 30, "1_0", "1__0", "_1", "\u0661", "\uff15", "\u0e53.5", "NaN", "-nan",
           "Infinity", "-inf", "+1", "-0", "0x10", "1e-400", "-1e400", "1000", "1001", "-1000", "-1001", "2147483648",
           "9" * 5000, "1.5e3", "1_000.5", "\u00b2"]
TOKENS += NUMBERS
KEYS = ["qid", "query_id", "id", "text", "query", "answers", "narrative", "description", "docid", "doc_id",
        "_id", "doc", "contents", "body", "title", "system", "correct", "model", "share", "best_rank", "runs",
        "judged", "a.run", "a"]
VALID = ["q1\tfirst query", "q2\tsecond", "d1\tone", "d2\ttitle\ttwo", "q1 0 d1 1", "q1 0 d1 2", "q2 0 d2 0",
         "q1 Q0 d1 1 2.0 a", "q1 Q0 d2 2 1.0 a", "q1 Q0 d1 3 0.5 a", '{"qid": "q1", "text": "a"}',
         '{"docid": "d1", "text": "x"}', '{"docid": "d1", "text": "y"}', "qid\tdocid\tshare", "q1\td1\tllm",
         "a\tg1", "a q1 1", '{"system": "a", "qid": "q1", "correct": 1}', "[inputs]", 'topics = "t.tsv"',
         "[pool]", "depth = 10", 'depth = "ten"', "runs = [1, 2]", "[judge]", 'budget = "5%"', "q1\ta1"]

edge_numbers = st.sampled_from([10**30, -(10**30), 2**31, -(2**31) - 1, 1001, -1001, float("nan"), float("inf"),
                                float("-inf"), 1e308, -0.0])
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8) | st.sampled_from(TOKENS)
    | edge_numbers | st.text(st.characters(categories=["Cs"]), min_size=1, max_size=2),  # lone surrogates
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=4),
    max_leaves=8,
)
token_line = st.lists(st.sampled_from(TOKENS), max_size=8).flatmap(
    lambda toks: st.sampled_from([" ", "\t", "", "  \t"]).map(lambda sep: sep.join(toks)))
json_line = st.one_of(json_values.map(lambda v: json.dumps(v, allow_nan=True, ensure_ascii=False)),
                      json_values.map(lambda v: json.dumps(v, allow_nan=True)))  # surrogates as \\ud800 escapes
deep_line = st.integers(min_value=1000, max_value=60000).map(lambda n: '{"qid": ' + "[" * n + "]" * n + "}")
line = st.one_of(st.sampled_from(VALID), token_line, json_line, st.text(max_size=30), deep_line)
text_file = st.lists(line, max_size=12).flatmap(
    lambda ls: st.sampled_from(["\n", "\r\n"]).map(lambda nl: nl.join(ls).encode("utf-8", "surrogatepass")))
toml_scalar = st.one_of(st.integers(-5, 5), st.floats(allow_nan=False, allow_infinity=False), st.booleans(),
                        st.sampled_from(TOKENS + ["t.tsv", "irds:x", "/abs", "5%", "zeroshot"]),
                        st.sampled_from([10**30, -(10**30), 2**63, -3, 0]))
toml_number = st.sampled_from(["nan", "inf", "-inf", "+inf", "-5.0", "1_0", "1e400", "0x10", "-0", "9" * 30])
toml_value = st.recursive(toml_scalar, lambda inner: st.lists(inner, max_size=3), max_leaves=5).map(
    lambda v: json.dumps(v).replace("NaN", "nan"))
toml_key = st.sampled_from(["topics", "docs", "qrels", "runs", "depth", "human_depth", "method", "model", "task",
                            "budget", "concurrency", "prefilter", "limit", "threshold", "measures", "orders",
                            "seed", "input", "output", "a.run", "model", "x"])
toml_header = st.sampled_from(["[inputs]", "[pool]", "[judge]", "[evaluate]", '[prices."m"]', "[prices]", "[x]",
                               '["a.run"]', ""])
toml_line = st.one_of(toml_header, st.tuples(toml_key, toml_value | toml_number).map(lambda kv: f'"{kv[0]}" = {kv[1]}'))
toml_file = st.lists(toml_line, max_size=10).map(lambda ls: "\n".join(ls).encode())
malformed = st.one_of(text_file, toml_file, st.binary(max_size=200),
                      text_file.map(lambda b: b[: len(b) // 2] + b"\xff\xfe"))
# plans shaped like plans: real sections and keys, values of any TOML type
plan_section = st.sampled_from(sorted(_SECTIONS)).flatmap(lambda sec: st.lists(
    st.tuples(st.sampled_from(_SECTIONS[sec]), toml_value | toml_number), max_size=4).map(
    lambda kvs: f"[{sec}]\n" + "".join(f"{k} = {v}\n" for k, v in dict(kvs).items())))
plan_file = st.lists(plan_section, max_size=4, unique=True).map(lambda ss: "".join(ss).encode())


def _drain(result):
    if hasattr(result, "__iter__") and not isinstance(result, (dict, str)):
        for _ in result:
            pass


def _doc_index(path):
    with tempfile.TemporaryDirectory() as cache:
        DocIndex.open(path, cache_dir=cache).close()


# reader -> (file names to try, read function, generator of contents)
READERS = {
    "topics": (("t.tsv", "t.jsonl", "topics"), load_topics, malformed),
    "docs": (("d.tsv", "d.jsonl.gz", "docs"), lambda p: unique_docs(p), malformed),
    "doc index": (("d.tsv", "d.jsonl", "d.gz"), _doc_index, malformed),
    "qrels": (("q.txt", "q.txt.gz"), load_qrels, malformed),
    "assessor qrels": (("a.qrels",), lambda p: read_qrels(p, allow_conflicts=True), malformed),
    "run": (("a.run", "a.run.gz"), read_run, malformed),
    "cases": (("c.tsv", "c.jsonl"), read_cases, malformed),
    "plan": (("plan.toml",), load_plan, st.one_of(malformed, plan_file)),
    "groups": (("g.tsv", "g.json", "g.toml"), read_groups, malformed),
    "generation": (("gen.tsv", "gen.jsonl"), read_generation, malformed),
    "run meta": (("m.json", "m.toml"), read_run_meta, malformed),
    "combination": (("c.tsv",), lambda p: read_combination(p, ["a1", "a2"]), malformed),
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_malformed_file_is_read_or_refused_with_its_name(reader):
    names, read, contents = READERS[reader]

    @settings(max_examples=200, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(data=contents, name=st.sampled_from(names), gz=st.booleans())
    def check(data, name, gz):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / name
            path.write_bytes(gzip.compress(data, mtime=0) if gz or name.endswith(".gz") else data)
            try:
                _drain(read(path))
            except InputError as e:
                assert e.path == str(path), str(e)

    check()


def _unblock(fifo: Path) -> None:
    """Open the FIFO's other end, so that a reader stuck in ``open`` goes on (to EOF)."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        pass


@pytest.mark.parametrize("kind", ["/dev/zero", "fifo"])
@pytest.mark.parametrize("reader", sorted(READERS))
def test_a_file_that_is_not_a_regular_file_is_refused_with_its_name(reader, kind, tmp_path):
    names, read, _ = READERS[reader]
    path = Path(kind)
    if kind == "fifo":
        path = tmp_path / names[0]
        os.mkfifo(path)
    outcome: list[BaseException | None] = []

    def go() -> None:
        try:
            _drain(read(path))
            outcome.append(None)
        except BaseException as e:  # noqa: BLE001 (handed to the test thread)
            outcome.append(e)

    worker = threading.Thread(target=go, daemon=True)
    worker.start()
    worker.join(timeout=30)
    if worker.is_alive() and kind == "fifo":
        _unblock(path)
    assert not worker.is_alive(), f"{reader} still reading {path} after 30 s"
    assert isinstance(outcome[0], InputError) and "not a regular file" in str(outcome[0]), outcome
