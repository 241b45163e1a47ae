"""`judge`, `fill` and `build` take their options from the one option table
(:data:`qrelkit.job.options.OPTIONS`), as the plan files do; a bad spec given to them is a user error."""

from __future__ import annotations

import dataclasses

import pytest
import typer

from qrelkit.cli import app, main
from qrelkit.demo import demo_paths
from qrelkit.job import options as opts
from qrelkit.job.plan import Plan, load_plan

COMMON = {"workspace", "as_json"}


def command(name: str):
    return typer.main.get_command(app).commands[name]


def params(name: str) -> set[str]:
    return {p.name for p in command(name).params}


@pytest.mark.parametrize(("name", "own"), [("fill", {"plan", "rag"}), ("build", {"plan"}), ("judge", {"oracle"})])
def test_a_judging_command_has_exactly_the_table_options_of_its_command_and_its_own(name, own):
    assert params(name) == {o.name for o in opts.for_command(name)} | COMMON | own


@pytest.mark.parametrize("name", ["judge", "fill", "build"])
def test_every_table_option_of_a_command_shows_its_help_and_flag(name):
    shown = {p.name: p for p in command(name).params}
    for o in opts.for_command(name):
        assert o.cli_flag in shown[o.name].opts
        assert shown[o.name].help.startswith(o.help)


def test_the_plan_has_one_field_per_plan_key_of_the_table_and_prices():
    keys = {o.name for o in opts.OPTIONS if o.section}
    assert {f.name for f in dataclasses.fields(Plan)} == keys | {"prices"}


def test_the_plan_defaults_are_the_table_defaults():
    plan = Plan()
    for o in opts.OPTIONS:
        if o.section:
            assert getattr(plan, o.name) == o.default, o.name


@pytest.mark.parametrize("o", [o for o in opts.OPTIONS if o.section and o.bounds[0] is not None],
                         ids=lambda o: o.name)
def test_a_plan_value_below_the_table_bound_is_refused_naming_the_line(tmp_path, o):
    plan = tmp_path / "plan.toml"
    low = o.bounds[0]
    bad = int(low) - 1 if o.type_name == "int" else low - 0.5
    plan.write_text(f"# a plan\n[{o.section}]\n{o.name} = {bad}\n")
    with pytest.raises(Exception) as e:
        load_plan(plan)
    assert e.value.line == 3
    assert f"{o.name} must be at least" in str(e.value)


def test_a_new_table_option_with_a_section_becomes_a_plan_key(monkeypatch, tmp_path):
    """Adding an option is one entry: the plan validation reads the table."""
    extra = opts.JobOption("extra_knob", "int", 1, "a knob", "judge", frozenset(), (1, 5))
    monkeypatch.setitem(opts.BY_NAME, "extra_knob", extra)
    monkeypatch.setitem(opts.SECTIONS, "judge", opts.SECTIONS["judge"] + ("extra_knob",))
    plan = tmp_path / "plan.toml"
    plan.write_text("[judge]\nextra_knob = 9\n")
    with pytest.raises(Exception) as e:
        load_plan(plan)
    assert "extra_knob must be at most 5" in str(e.value)


@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        (["--method", "debate(rounds=0)"], "rounds: 0 is out of range"),
        (["--prefilter", "zero-shot"], "expected one prefilter"),
        (["--method", "confidence", "--prefilter", "prefilter"], "cannot follow"),
    ],
)
def test_a_bad_spec_stops_fill_with_exit_2(tmp_path, capsys, extra, problem):
    d = demo_paths()
    inputs = ["--topics", str(d.topics), "--docs", str(d.docs), "--qrels", str(d.qrels), "--runs", str(d.runs[0])]
    with pytest.raises(SystemExit) as e:
        main(["fill", "-w", str(tmp_path / "ws"), *inputs, *extra])
    assert e.value.code == 2
    assert problem in capsys.readouterr().err


@pytest.mark.parametrize("wrong,said", [(0, "11 of them came back as relevant, and no other document was called "
                                            "relevant (balanced accuracy 0.87)."),
                                        (1, "1 document was called relevant that is not"),
                                        (2, "2 documents were called relevant that are not")])
def test_the_demo_story_says_how_many_documents_were_wrongly_called_relevant(wrong, said):
    from types import SimpleNamespace

    from qrelkit.cli.jobs import demo_story

    result = SimpleNamespace(method="learned", model="local", pool={"pooled": 187, "holes": 44},
                             judge={"relevant": 11 + wrong}, qrels=None, report=None)
    rec = {"hidden_relevant": 15, "hidden": 44, "recovered_relevant": 11, "false_relevant": wrong,
           "balanced_accuracy": 0.8667}
    assert said in demo_story(result, rec, 6)


@pytest.mark.parametrize("spec,named,unnamed", [
    ("learned", ["similarity to the documents people judged", "the topic's share of relevant labels"], []),
    ("learned(signals=pmi+ql+dense+lexical+pool)", [], ["similarity to the documents people judged",
                                                       "the topic's share of relevant labels"]),
    ("learned(signals=pmi+ql+dense+lexical+pool+feedback)", ["similarity to the documents people judged"],
     ["the topic's share of relevant labels"]),
])
def test_the_demo_story_names_the_signals_the_judge_used(spec, named, unnamed):
    from types import SimpleNamespace

    from qrelkit.cli.jobs import demo_story

    result = SimpleNamespace(method=spec, model="local", pool={"pooled": 187, "holes": 44},
                             judge={"relevant": 12}, qrels=None, report=None)
    story = demo_story(result, {}, 6)
    assert all(s in story for s in named) and not any(s in story for s in unnamed)
