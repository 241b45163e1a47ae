"""A command imports its own module, not the whole command line (:data:`qrelkit.cli.COMMANDS`):
`qrelkit judge --method zero-shot` runs without numpy, the other judges or the other commands."""

from __future__ import annotations

import json
import subprocess
import sys

import typer
from fakeserver import serve

from qrelkit.cli import COMMANDS, app
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Topic


def _modules(info) -> set[str]:
    """The modules whose functions a command (or a command group, recursively) runs."""
    if getattr(info, "typer_instance", None) is None:
        return {info.callback.__module__}
    sub = info.typer_instance
    own = {sub.registered_callback.callback.__module__} if sub.registered_callback else set()
    return own.union(*(_modules(c) for c in (*sub.registered_commands, *sub.registered_groups)))


def test_the_command_table_is_what_the_modules_register_in_help_order():
    group = typer.main.get_command(app)
    assert list(group.commands) == list(COMMANDS)
    infos = {typer.main.get_command_name(c.callback.__name__) if c.name is None else c.name: c
             for c in app.registered_commands} | {g.name: g for g in app.registered_groups}
    assert {name: _modules(info) for name, info in infos.items()} == {
        name: {f"qrelkit.cli.{module}"} for name, module in COMMANDS.items()}


def test_judge_zero_shot_imports_neither_numpy_nor_other_judges_nor_other_commands(tmp_path):
    with Store.create(tmp_path / "ws") as s:
        s.upsert_topics([Topic("q1", "query one")])
        s.upsert_docs([Doc("d1", "passage agree2")])
        s.upsert_cases([Case("q1", "d1", "llm", 1)])
    (tmp_path / "log").write_text("")
    seen = tmp_path / "modules.json"
    # the modules the process holds when it ends (-X importtime would not list those importlib imports)
    probe = (f"import atexit, json, sys; atexit.register(lambda: open({str(seen)!r}, 'w').write("
             "json.dumps(sorted(sys.modules)))); sys.argv[0] = 'qrelkit'; from qrelkit.cli import main; main()")
    with serve("judges.fake_openai", tmp_path / "log") as url:
        r = subprocess.run([sys.executable, "-c", probe, "judge", "-w", str(tmp_path / "ws"), "--method", "zero-shot",
                            "--model", f"openai:fake@{url}", "--json"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads(r.stdout)["judged"] == 1
    # the quick exit (cli._quick_exit) leaves the store closed: WAL checkpointed away, the judgment in it
    assert sorted(p.name for p in (tmp_path / "ws").iterdir()) == ["qrelkit.lock", "qrelkit.sqlite"]
    with Store.open(tmp_path / "ws") as s:
        assert [(j.qid, j.docid) for j in s.judgments()] == [("q1", "d1")]
    imported = set(json.loads(seen.read_text()))
    assert {"qrelkit.judges.zeroshot", "qrelkit.cli.judging", "qrelkit.judging.runner"} <= imported
    assert "numpy" not in imported
    assert "pydantic" not in imported  # typer's option coercion (qrelkit.cli._coercion)
    assert imported.isdisjoint("qrelkit.judges." + m for m in ("confidence", "debate", "icl", "learned", "likelihood",
                                                              "narrative", "oneshot", "prefilter", "vote"))
    commands = {m.removeprefix("qrelkit.cli.") for m in imported if m.startswith("qrelkit.cli.")}
    assert commands.isdisjoint(set(COMMANDS.values()) - {"judging", "jobs"})  # judging borrows jobs' options


def test_the_program_collects_cycles_less_often_and_a_caller_keeps_its_own_setting():
    # qrelkit.cli._fewer_collections: the program's gc threshold, set before the command's imports
    import gc

    from qrelkit.cli import GC_THRESHOLD, main

    probe = ("import atexit, gc, json, sys; atexit.register(lambda: print(json.dumps(gc.get_threshold()))); "
             "sys.argv[0] = 'qrelkit'; from qrelkit.cli import main; main()")
    r = subprocess.run([sys.executable, "-c", probe, "methods"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert tuple(json.loads(r.stdout.splitlines()[-1])) == GC_THRESHOLD != (700, 10, 10)
    before = gc.get_threshold()
    try:
        main(["methods"])
    except SystemExit as e:
        assert e.code in (0, None)
    assert gc.get_threshold() == before
