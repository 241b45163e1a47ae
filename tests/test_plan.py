"""Plan files: spec strings are read when the plan is loaded, and a bad one names the file and line."""

from __future__ import annotations

import pytest

from qrelkit.errors import InputError
from qrelkit.job.plan import load_plan


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ('[judge]\nmodel = "local"\nmethod = "debate(rounds=0)"\n', 3, "rounds: 0 is out of range"),
        ('[judge]\nmethod = "nope"\n', 2, "unknown method 'nope'"),
        ('[pool]\ndepth = 5\n\n[judge]\nprefilter = "debate"\n', 5, "expected one prefilter"),
        ('[judge]\nmodel = "gpt:x"\n', 2, "unknown model spec"),
    ],
)
def test_a_bad_spec_in_a_plan_names_the_file_and_line(tmp_path, text, line, problem):
    plan = tmp_path / "plan.toml"
    plan.write_text(text)
    with pytest.raises(InputError) as e:
        load_plan(plan)
    assert e.value.line == line
    assert problem in e.value.problem


@pytest.mark.parametrize(
    "text",
    [
        '[judge]\nmethod = "auto"\n',
        '[judge]\nprefilter = ""\nmethod = "debate(rounds=1)"\n',
        '[judge]\nprefilter = "prefilter(keep=0.9)"\nmodel = "openai:m@http://127.0.0.1:1/v1"\n',
    ],
)
def test_good_specs_load(tmp_path, text):
    plan = tmp_path / "plan.toml"
    plan.write_text(text)
    assert load_plan(plan).concurrency == 8


@pytest.mark.parametrize(("text", "value"), [("", "auto"), ('threshold = "auto"', "auto"), ("threshold = 1", 1)])
def test_a_plan_threshold_is_auto_or_a_grade(tmp_path, text, value):
    plan = tmp_path / "plan.toml"
    plan.write_text(f"[judge]\n{text}\n")
    assert load_plan(plan).threshold == value


@pytest.mark.parametrize("text", ['threshold = "two"', "threshold = 0", "threshold = 1.5"])
def test_a_bad_plan_threshold_names_the_plan(tmp_path, text):
    plan = tmp_path / "plan.toml"
    plan.write_text(f"[judge]\n{text}\n")
    with pytest.raises(InputError, match="threshold"):
        load_plan(plan)
