import json

import pytest

from qrelkit.errors import UsageError
from qrelkit.judges import auto_method, build, canonical, methods, parse_spec


def test_equal_configurations_give_equal_ids():
    assert (
        canonical("debate")
        == canonical("debate(rounds=2, first=relevant)")
        == canonical("DEBATE( adjudicator = human ,rounds=2)")
    )
    assert canonical("debate") == "debate(adjudicator=human,doc_tokens=1024,first=relevant,prompt=v2,rounds=2)"
    assert canonical("zeroshot") == canonical("zero-shot(doc_tokens=400,narrative=none)")
    assert canonical("likelihood(threshold=0.50)") == canonical("likelihood(threshold=.5)")
    assert canonical("debate(rounds=3)") != canonical("debate")


def test_prefilter_chains():
    spec = parse_spec("prefilter(keep=0.8)+debate(rounds=1)")
    assert spec.name == "prefilter" and spec.then.name == "debate" and spec.main.name == "debate"
    assert str(spec) == (
        "prefilter(by=likelihood,calib=200,doc_tokens=400,keep=0.8)"
        "+debate(adjudicator=human,doc_tokens=1024,first=relevant,prompt=v2,rounds=1)"
    )
    assert parse_spec(str(spec)) == spec
    judge = build(spec)
    assert {"score", "chat", "json_schema"} <= judge.requires


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "nope",
        "debate(rounds=0)",
        "debate(rounds=x)",
        "debate(colour=red)",
        "debate(first=maybe)",
        "debate(rounds=2",
        "debate+zero-shot",
        "prefilter",
        "prefilter(keep=1.5)+debate",
        "debate(rounds)",
        "debate(rounds=1,rounds=2)",
        "auto",
    ],
)
def test_bad_specs_are_user_errors(bad):
    with pytest.raises(UsageError):
        parse_spec(bad)


def test_auto_method():
    assert auto_method("local").name == "likelihood"
    assert auto_method("openai:gpt-4o@http://127.0.0.1:1/v1").name == "debate"
    assert methods() == ["confidence", "debate", "icl", "learned", "likelihood", "narrative", "oneshot", "prefilter",
                         "vote", "zero-shot"]


def test_every_method_is_described_and_its_defaults_read_back():
    from qrelkit.judges import describe

    infos = {m.name: m for m in describe()}
    assert sorted(infos) == methods() and {"confidence", "debate", "icl", "narrative"} <= set(infos)
    for m in infos.values():
        assert m.summary and m.params, m.name
        for p in m.params:
            assert p.help, (m.name, p.name)
            # the listed default, written into a spec, is the default configuration
            spec = f"{m.name}({p.name}={p.default})"
            if m.name == "zero-shot" and p.name == "doc_tokens":
                # `zero-shot(doc_tokens=400)` alone is the stored id of the TREC-narrative baseline (issue 16)
                spec = "zero-shot(doc_tokens=400,narrative=none)"
            if m.prefilter:
                spec += "+zero-shot"
            assert canonical(spec) == canonical(m.name + ("+zero-shot" if m.prefilter else "")), spec
    assert infos["confidence"].batch and infos["confidence"].learns and infos["icl"].learns
    assert not infos["zero-shot"].learns and infos["prefilter"].prefilter and not infos["debate"].prefilter
    assert {p.name: p.default for p in infos["confidence"].params}["budget"] == "12.5%"


def test_cli_methods_json(capsys):
    from qrelkit.cli import main

    try:
        main(["methods", "--json"])
    except SystemExit as e:
        assert e.code in (0, None)
    out = json.loads(capsys.readouterr().out)
    narrative = next(m for m in out["methods"] if m["name"] == "narrative")
    assert narrative["learns"] is True
    params = {p["name"]: p["default"] for p in narrative["params"]}
    assert params["instructor"] == "same" and params["variant"] == "all"


@pytest.mark.parametrize("example", ["e.g. [relevant,irrelevant]", "e.g. [zero-shot,zero-shot(narrative=topic)]"])
def test_the_methods_table_shows_a_bracketed_example_as_written(example):
    """Issue 45, point 9: rich took `[relevant,irrelevant]` for markup and printed "e.g." then nothing."""
    import os
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "qrelkit", "methods"], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, COLUMNS="400"))
    assert example in " ".join(r.stderr.split())
