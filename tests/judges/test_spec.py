import pytest

from qrelkit.errors import UsageError
from qrelkit.judges import build, canonical, methods, parse_spec, resolve_auto


def test_equal_configurations_give_equal_ids():
    assert (
        canonical("debate")
        == canonical("debate(rounds=2, first=relevant)")
        == canonical("DEBATE( adjudicator = human ,rounds=2)")
    )
    assert canonical("debate") == "debate(adjudicator=human,doc_tokens=400,first=relevant,rounds=2)"
    assert canonical("zeroshot") == canonical("zero-shot(doc_tokens=400)")
    assert canonical("likelihood(threshold=0.50)") == canonical("likelihood(threshold=.5)")
    assert canonical("debate(rounds=3)") != canonical("debate")


def test_prefilter_chains():
    spec = parse_spec("prefilter(keep=0.8)+debate(rounds=1)")
    assert spec.name == "prefilter" and spec.then.name == "debate" and spec.main.name == "debate"
    assert str(spec) == (
        "prefilter(by=likelihood,calib=200,doc_tokens=400,keep=0.8)"
        "+debate(adjudicator=human,doc_tokens=400,first=relevant,rounds=1)"
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
    assert resolve_auto("auto", "local") == "likelihood"
    assert resolve_auto("auto", "openai:gpt-4o@http://127.0.0.1:1/v1") == "debate"
    assert resolve_auto("zero-shot", "local") == "zero-shot"
    assert methods() == ["confidence", "debate", "icl", "likelihood", "narrative", "prefilter", "zero-shot"]
