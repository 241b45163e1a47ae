"""What names a run (issue 24, point 9; issue 45, point 7), through the real CLI: by default its
tag, or its file where the tag is a placeholder (TREC DL 2019's SPLADE run is tagged
``my-system-name``), shared by several files or missing, said once on stderr; ``--run-names tag``
names every run by its tag, ``--run-names file`` by its file. fill, build and ``qrelkit.score`` too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from qrelkit.store import Store

# file -> tag: a placeholder tag, a tag two files share, a tag that is the file name, a tag that names the system
TAGS = {"splade.run": "my-system-name", "rankgpt4.run": "rank_gpt", "rankgpt4o.run": "rank_gpt", "bm25.run": "bm25",
        "dense.run": "colbert"}
DOCS = [f"d{i}" for i in range(8)]
BY_AUTO = {"splade", "rankgpt4", "rankgpt4o", "bm25", "colbert"}  # placeholder and shared tags: the file
BY_TAG = {"my-system-name", "rankgpt4", "rankgpt4o", "bm25", "colbert"}  # a shared tag falls back to the file
BY_FILE = {"splade", "rankgpt4", "rankgpt4o", "bm25", "dense"}


def run_text(tag: str, shift: int) -> str:
    return "".join(f"{q} Q0 {DOCS[(i + shift) % 8]} {i + 1} {10 - i} {tag}\n" for q in ("q1", "q2") for i in range(6))


@pytest.fixture
def files(tmp_path: Path) -> Path:
    for i, (name, tag) in enumerate(TAGS.items()):
        (tmp_path / name).write_text(run_text(tag, i))
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 {d} {i % 3}\n" for q in ("q1", "q2") for i, d in enumerate(DOCS)))
    (tmp_path / "assessor1.txt").write_text((tmp_path / "qrels.txt").read_text())
    (tmp_path / "assessor2.txt").write_text((tmp_path / "qrels.txt").read_text())
    for gen, names in (("gen.tsv", BY_AUTO), ("gen-tag.tsv", BY_TAG), ("gen-file.tsv", BY_FILE)):  # ragalign
        (tmp_path / gen).write_text("".join(f"{n}\t{q}\t{int(q == 'q1')}\n" for n in sorted(names) for q in ("q1", "q2")))
    (tmp_path / "topics.tsv").write_text("q1\tfirst\nq2\tsecond\n")
    (tmp_path / "docs.jsonl").write_text("".join(json.dumps({"docid": d, "text": f"text {d}"}) + "\n" for d in DOCS))
    return tmp_path


def qrelkit(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "qrelkit", *args], capture_output=True, text=True, cwd=cwd,
                          env=dict(os.environ, COLUMNS="400"), timeout=300)


RUNS = ("--runs", *TAGS)
# command -> (arguments, the run names its JSON reports)
COMMANDS = {
    "evaluate": (("evaluate", *RUNS, "--qrels", "qrels.txt"),
                 lambda d: set(d["versions"]["qrels"]["systems"])),
    "holes": (("holes", *RUNS, "--qrels", "qrels.txt"), lambda d: set(d["runs"])),
    "leave-out": (("simulate", "leave-out", *RUNS, "--qrels", "qrels.txt"),
                  lambda d: {r["run"] for g in d["groups"] for r in g["runs"]}),
    "stability": (("stability", *RUNS, "--primary", "qrels.txt", "--assessors", "assessor1.txt", "assessor2.txt",
                   "--samples", "5"), lambda d: set(d["aggregations"]["max"]["systems"])),
    "ragalign": (("ragalign", *RUNS, "--qrels", "qrels.txt", "--generation", "gen.tsv"),
                 lambda d: set(d["versions"]["qrels"]["systems"])),
}


@pytest.mark.parametrize("command", COMMANDS)
def test_runs_are_named_by_tag_but_placeholders_and_shared_tags_by_file_by_default(files, command):
    args, names = COMMANDS[command]
    r = qrelkit(files, *args, "--json")
    assert r.returncode == 0, r.stderr
    assert names(json.loads(r.stdout)) == BY_AUTO


@pytest.mark.parametrize("command", COMMANDS)
def test_run_names_tag_names_every_run_by_its_tag(files, command):
    args, names = COMMANDS[command]
    args = tuple("gen-tag.tsv" if a == "gen.tsv" else a for a in args)
    r = qrelkit(files, *args, "--run-names", "tag", "--json")
    assert r.returncode == 0, r.stderr
    assert names(json.loads(r.stdout)) == BY_TAG


@pytest.mark.parametrize("command", COMMANDS)
def test_run_names_file_names_every_run_by_its_file(files, command):
    args, names = COMMANDS[command]
    args = tuple("gen-file.tsv" if a == "gen.tsv" else a for a in args)  # the generator's labels name files too
    r = qrelkit(files, *args, "--run-names", "file", "--json")
    assert r.returncode == 0, r.stderr
    assert names(json.loads(r.stdout)) == BY_FILE


@pytest.mark.parametrize("command", COMMANDS)
def test_the_naming_is_reported_once_on_stderr(files, command):
    args, _ = COMMANDS[command]
    r = qrelkit(files, *args, "--json")
    assert r.stderr.count("run names:") == 1


@pytest.mark.parametrize("named", ["splade.run's tag 'my-system-name' is a placeholder (named by file)",
                                   "tag 'rank_gpt' is shared by rankgpt4.run, rankgpt4o.run (named by file)",
                                   "dense.run is named 'colbert' (its tag)",
                                   "--run-names file"])
def test_the_warning_names_the_files_and_the_way_out(files, named):
    r = qrelkit(files, *COMMANDS["evaluate"][0], "--json")
    assert named in r.stderr


def test_a_run_tagged_with_its_file_name_is_not_mentioned(files):
    r = qrelkit(files, *COMMANDS["evaluate"][0], "--json")
    assert "bm25.run" not in r.stderr


def test_runs_named_by_file_are_not_warned_about(files):
    r = qrelkit(files, *COMMANDS["evaluate"][0], "--run-names", "file", "--json")
    assert "run names:" not in r.stderr


def test_runs_whose_tags_are_their_file_names_are_not_warned_about(files):
    r = qrelkit(files, "evaluate", "--runs", "bm25.run", "--qrels", "qrels.txt", "--json")
    assert "run names:" not in r.stderr


def test_an_unknown_run_naming_is_a_usage_error(files):
    r = qrelkit(files, *COMMANDS["evaluate"][0], "--run-names", "tags", "--json")
    assert r.returncode == 2
    assert "--run-names: expected auto, tag, file" in r.stderr


def stored_names(ws: Path) -> set[str]:
    with Store.open(ws) as s:
        return {n for n, _, _ in s.runs()}


@pytest.mark.parametrize("option, expected", [((), BY_AUTO), (("--run-names", "tag"), BY_TAG),
                                              (("--run-names", "file"), BY_FILE)])
def test_init_stores_the_runs_under_the_chosen_names(files, option, expected):
    r = qrelkit(files, "init", "-w", "ws", "--topics", "topics.tsv", "--docs", "docs.jsonl", "--qrels", "qrels.txt",
                *RUNS, *option, "--json")
    assert r.returncode == 0, r.stderr
    assert stored_names(files / "ws") == expected


def test_init_warns_about_the_run_names_once(files):
    r = qrelkit(files, "init", "-w", "ws", "--topics", "topics.tsv", "--docs", "docs.jsonl", *RUNS, "--json")
    assert r.stderr.count("run names:") == 1


def test_pool_names_the_cases_runs_as_init_named_them(files):
    qrelkit(files, "init", "-w", "ws", "--topics", "topics.tsv", "--docs", "docs.jsonl", *RUNS, "--run-names", "file")
    r = qrelkit(files, "pool", "-w", "ws", "--depth", "6", "--json")
    assert r.returncode == 0, r.stderr
    with Store.open(files / "ws") as s:
        assert {n for c in s.cases() for n in c.runs} == BY_FILE


def test_holes_of_a_workspace_use_the_names_init_gave(files):
    qrelkit(files, "init", "-w", "ws", "--topics", "topics.tsv", "--docs", "docs.jsonl", "--qrels", "qrels.txt",
            *RUNS, "--run-names", "file")
    r = qrelkit(files, "holes", "-w", "ws", "--json")
    assert set(json.loads(r.stdout)["runs"]) == BY_FILE


@pytest.mark.parametrize("option, expected", [((), BY_AUTO), (("--run-names", "file"), BY_FILE)])
def test_fill_stores_the_runs_under_the_chosen_names(files, option, expected):
    r = qrelkit(files, "fill", "-w", "ws", "--topics", "topics.tsv", "--docs", "docs.jsonl", "--qrels", "qrels.txt",
                *RUNS, "--method", "zero-shot", "--limit", "0", "--no-report",
                *option, "--json")
    assert r.returncode == 0, r.stderr
    assert stored_names(files / "ws") == expected


def test_fill_warns_about_the_run_names_once(files):
    r = qrelkit(files, "fill", "-w", "ws", "--topics", "topics.tsv", "--docs", "docs.jsonl", "--qrels", "qrels.txt",
                *RUNS, "--method", "zero-shot", "--limit", "0", "--no-report", "--json")
    assert r.stderr.count("run names:") == 1


def test_score_names_runs_as_the_command_line_does_and_warns(files):
    import qrelkit as api

    with pytest.warns(UserWarning, match="is a placeholder"):
        df = api.score([str(files / f) for f in TAGS], str(files / "qrels.txt"), measures=["P@5"])
    assert set(df.index) == BY_AUTO


def test_score_takes_run_names(files):
    df = __import__("qrelkit").score([str(files / f) for f in TAGS], str(files / "qrels.txt"), measures=["P@5"],
                                     run_names="file")
    assert set(df.index) == BY_FILE
