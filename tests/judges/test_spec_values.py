"""Judge specs after the move to one parser: the same canonical ids as before, composed as values.

The table's canonical ids were written by the previous, hand-written parser
(qrelkit before the ast parser): stored method ids, caches and resumes depend
on them staying byte-for-byte the same."""
import pytest

from qrelkit.errors import UsageError
from qrelkit.judges import (
    AUTO_METHODS,
    auto_method,
    canonical,
    describe,
    methods,
    parse_prefilter,
    parse_spec,
    resolve_method,
)

PREVIOUS_CANONICAL = [
    ('zero-shot(narrative=topic)',
     'zero-shot(doc_tokens=400)'),
    ('zeroshot(narrative=topic)',
     'zero-shot(doc_tokens=400)'),
    ('zero_shot(narrative=topic)',
     'zero-shot(doc_tokens=400)'),
    ('ZERO-SHOT(doc_tokens=400)',
     'zero-shot(doc_tokens=400)'),
    ('debate',
     'debate(adjudicator=human,doc_tokens=400,first=relevant,rounds=2)'),
    ('DEBATE( adjudicator = human ,rounds=2)',
     'debate(adjudicator=human,doc_tokens=400,first=relevant,rounds=2)'),
    ('debate(rounds=2, first=relevant)',
     'debate(adjudicator=human,doc_tokens=400,first=relevant,rounds=2)'),
    ('debate(rounds=1,adjudicator=llm)',
     'debate(adjudicator=llm,doc_tokens=400,first=relevant,rounds=1)'),
    ('debate(rounds=3,adjudicator=llm)',
     'debate(adjudicator=llm,doc_tokens=400,first=relevant,rounds=3)'),
    ('debate(first=irrelevant,adjudicator=llm)',
     'debate(adjudicator=llm,doc_tokens=400,first=irrelevant,rounds=2)'),
    ('debate(narrative=true)',
     'debate(adjudicator=human,doc_tokens=400,first=relevant,narrative=true,rounds=2)'),
    ('debate(narrative=false)',
     'debate(adjudicator=human,doc_tokens=400,first=relevant,rounds=2)'),
    ('debate(rounds=1,narrative=true)',
     'debate(adjudicator=human,doc_tokens=400,first=relevant,narrative=true,rounds=1)'),
    ('debate(doc_tokens=64)',
     'debate(adjudicator=human,doc_tokens=64,first=relevant,rounds=2)'),
    ('likelihood',
     'likelihood(calib=200,doc_tokens=400,threshold=0)'),
    ('ql',
     'likelihood(calib=200,doc_tokens=400,threshold=0)'),
    ('query-likelihood',
     'likelihood(calib=200,doc_tokens=400,threshold=0)'),
    ('likelihood(threshold=auto)',
     'likelihood(calib=200,doc_tokens=400,threshold=auto)'),
    ('likelihood(threshold=.5)',
     'likelihood(calib=200,doc_tokens=400,threshold=0.5)'),
    ('likelihood(threshold=0.50)',
     'likelihood(calib=200,doc_tokens=400,threshold=0.5)'),
    ('likelihood(threshold=-1.25)',
     'likelihood(calib=200,doc_tokens=400,threshold=-1.25)'),
    ('likelihood(threshold=auto,calib=40)',
     'likelihood(calib=40,doc_tokens=400,threshold=auto)'),
    ('confidence',
     'confidence(batch=50,budget=12.5%,calib=200,doc_tokens=400,features=score,score=yesno,seed=0)'),
    ('confidence(budget=12.5%)',
     'confidence(batch=50,budget=12.5%,calib=200,doc_tokens=400,features=score,score=yesno,seed=0)'),
    ('confidence(budget=12.50%)',
     'confidence(batch=50,budget=12.5%,calib=200,doc_tokens=400,features=score,score=yesno,seed=0)'),
    ('confidence(budget=3.5%)',
     'confidence(batch=50,budget=3.5%,calib=200,doc_tokens=400,features=score,score=yesno,seed=0)'),
    ('confidence(budget=3)',
     'confidence(batch=50,budget=3,calib=200,doc_tokens=400,features=score,score=yesno,seed=0)'),
    ('confidence(budget=50%,batch=8)',
     'confidence(batch=8,budget=50%,calib=200,doc_tokens=400,features=score,score=yesno,seed=0)'),
    ('confidence(score=likelihood, budget=12.5%)',
     'confidence(batch=50,budget=12.5%,calib=200,doc_tokens=400,features=score,score=likelihood,seed=0)'),
    ('confidence(score=likelihood,batch=4,calib=100)',
     'confidence(batch=4,budget=12.5%,calib=100,doc_tokens=400,features=score,score=likelihood,seed=0)'),
    ('confidence(score=yesno,budget=20%,batch=5)',
     'confidence(batch=5,budget=20%,calib=200,doc_tokens=400,features=score,score=yesno,seed=0)'),
    ('confidence(budget=0,batch=10,features=score+pool)',
     'confidence(batch=10,budget=0,calib=200,doc_tokens=400,features=score+pool,score=yesno,seed=0)'),
    ('confidence(score=likelihood,budget=3,features=score+length)',
     'confidence(batch=50,budget=3,calib=200,doc_tokens=400,features=score+length,score=likelihood,seed=0)'),
    ('icl',
     'icl(doc_tokens=400,example_tokens=150,k=2,seed=0,select=random)'),
    ('icl(k=2, select=random, seed=0)',
     'icl(doc_tokens=400,example_tokens=150,k=2,seed=0,select=random)'),
    ('icl(k=3,select=relevant-only)',
     'icl(doc_tokens=400,example_tokens=150,k=3,seed=0,select=relevant-only)'),
    ('icl(k=1)',
     'icl(doc_tokens=400,example_tokens=150,k=1,seed=0,select=random)'),
    ('narrative',
     'narrative(doc_tokens=400,docs=6,example_tokens=120,icl=0,instructor=same,seed=0,select=random,variant=all)'),
    ('narrative(icl=2)',
     'narrative(doc_tokens=400,docs=6,example_tokens=120,icl=2,instructor=same,seed=0,select=random,variant=all)'),
    ('narrative(variant=relevant)',
     'narrative(doc_tokens=400,docs=6,example_tokens=120,icl=0,instructor=same,seed=0,select=random,variant=relevant)'),
    ('narrative(instructor=same)',
     'narrative(doc_tokens=400,docs=6,example_tokens=120,icl=0,instructor=same,seed=0,select=random,variant=all)'),
    ('narrative(instructor=local)',
     'narrative(doc_tokens=400,docs=6,example_tokens=120,icl=0,instructor=local:smollm2-135m-instruct-q4_1,seed=0,select=random,variant=all)'),
    ('narrative(instructor=openai:big@http://127.0.0.1:8000/v1)',
     'narrative(doc_tokens=400,docs=6,example_tokens=120,icl=0,instructor=openai:big,seed=0,select=random,variant=all)'),
    ('narrative(instructor="openai:big@http://a:1/v1,http://b:2/v1")',
     'narrative(doc_tokens=400,docs=6,example_tokens=120,icl=0,instructor=openai:big,seed=0,select=random,variant=all)'),
    ("narrative(instructor='openai:big@http://a:1/v1?json=object')",
     'narrative(doc_tokens=400,docs=6,example_tokens=120,icl=0,instructor=openai:big,seed=0,select=random,variant=all)'),
    ('prefilter+zero-shot(narrative=topic)',
     'prefilter(by=likelihood,calib=200,doc_tokens=400,keep=0.95)+zero-shot(doc_tokens=400)'),
    ('prefilter(keep=0.9)+debate',
     'prefilter(by=likelihood,calib=200,doc_tokens=400,keep=0.9)+debate(adjudicator=human,doc_tokens=400,first=relevant,rounds=2)'),
    ('prefilter(keep=0.8)+debate(rounds=1)',
     'prefilter(by=likelihood,calib=200,doc_tokens=400,keep=0.8)+debate(adjudicator=human,doc_tokens=400,first=relevant,rounds=1)'),
    ('prefilter(by=likelihood, keep=0.95)+debate',
     'prefilter(by=likelihood,calib=200,doc_tokens=400,keep=0.95)+debate(adjudicator=human,doc_tokens=400,first=relevant,rounds=2)'),
    ('prefilter(by=llm)+zero-shot(narrative=topic)',
     'prefilter(by=llm,calib=200,doc_tokens=400,keep=0.95)+zero-shot(doc_tokens=400)'),
    ('prefilter(keep=0.95)+likelihood(threshold=auto)',
     'prefilter(by=likelihood,calib=200,doc_tokens=400,keep=0.95)+likelihood(calib=200,doc_tokens=400,threshold=auto)'),
    ('prefilter(keep=0.9) + icl(k=1)',
     'prefilter(by=likelihood,calib=200,doc_tokens=400,keep=0.9)+icl(doc_tokens=400,example_tokens=150,k=1,seed=0,select=random)'),
    ('prefilter(keep=0.9)+narrative(icl=2)',
     'prefilter(by=likelihood,calib=200,doc_tokens=400,keep=0.9)+narrative(doc_tokens=400,docs=6,example_tokens=120,icl=2,instructor=same,seed=0,select=random,variant=all)'),
    ('confidence(batch=50,budget=12.5%,calib=200,doc_tokens=400,features=score,score=yesno,seed=0)',
     'confidence(batch=50,budget=12.5%,calib=200,doc_tokens=400,features=score,score=yesno,seed=0)'),
    ('debate(adjudicator=human,doc_tokens=400,first=relevant,narrative=false,rounds=2)',
     'debate(adjudicator=human,doc_tokens=400,first=relevant,rounds=2)'),
    ('icl(doc_tokens=400,example_tokens=150,k=2,seed=0,select=random)',
     'icl(doc_tokens=400,example_tokens=150,k=2,seed=0,select=random)'),
    ('likelihood(calib=200,doc_tokens=400,threshold=0)',
     'likelihood(calib=200,doc_tokens=400,threshold=0)'),
    ('narrative(doc_tokens=400,docs=6,example_tokens=120,icl=0,instructor=same,seed=0,select=random,variant=all)',
     'narrative(doc_tokens=400,docs=6,example_tokens=120,icl=0,instructor=same,seed=0,select=random,variant=all)'),
    ('prefilter(by=likelihood,calib=200,doc_tokens=400,keep=0.95)+zero-shot(narrative=topic)',
     'prefilter(by=likelihood,calib=200,doc_tokens=400,keep=0.95)+zero-shot(doc_tokens=400)'),
    ('zero-shot(doc_tokens=400)',
     'zero-shot(doc_tokens=400)'),
]


# Issue 16 changed what a bare `zero-shot` means (no topic narrative): the old meaning is spelled
# `zero-shot(narrative=topic)` above and keeps its id; the new default has an id of its own.
NEW_ZERO_SHOT = [
    ("zero-shot", "zero-shot(doc_tokens=400,narrative=none)"),
    ("zeroshot", "zero-shot(doc_tokens=400,narrative=none)"),
    ("prefilter+zero-shot", "prefilter(by=likelihood,calib=200,doc_tokens=400,keep=0.95)+zero-shot(doc_tokens=400,narrative=none)"),
    ("zero-shot(doc_tokens=800,narrative=none)", "zero-shot(doc_tokens=800,narrative=none)"),
]


# Issue 16 made `narrative` read every judged document (docs=all); `docs=6` is the old reading
# and keeps its id (a bare `narrative` resumes it, as above); `budget` shows only when given.
NEW_NARRATIVE = [
    ("narrative",
     "narrative(doc_tokens=400,docs=all,example_tokens=120,icl=0,instructor=same,seed=0,select=random,variant=all)"),
    ("narrative(docs=all,budget=auto)",
     "narrative(doc_tokens=400,docs=all,example_tokens=120,icl=0,instructor=same,seed=0,select=random,variant=all)"),
    ("narrative(budget=3000,variant=relevant)",
     "narrative(budget=3000,doc_tokens=400,docs=all,example_tokens=120,icl=0,instructor=same,seed=0,select=random,"
     "variant=relevant)"),
    ("narrative(docs=6)",
     "narrative(doc_tokens=400,docs=6,example_tokens=120,icl=0,instructor=same,seed=0,select=random,variant=all)"),
]


@pytest.mark.parametrize(("text", "expected"), NEW_NARRATIVE)
def test_the_new_narrative_default_has_an_id_of_its_own(text, expected):
    assert canonical(text) == expected


@pytest.mark.parametrize(("text", "expected"), NEW_NARRATIVE)
def test_the_new_narrative_id_reads_back_as_itself(text, expected):
    assert canonical(expected) == expected


@pytest.mark.parametrize(("text", "expected"), NEW_ZERO_SHOT)
def test_the_new_zero_shot_default_has_an_id_of_its_own(text, expected):
    assert canonical(text) == expected


@pytest.mark.parametrize(("text", "expected"), NEW_ZERO_SHOT)
def test_the_new_zero_shot_id_reads_back_as_itself(text, expected):
    assert canonical(expected) == expected


@pytest.mark.parametrize(("text", "expected"), PREVIOUS_CANONICAL)
def test_a_spec_resumes_under_the_canonical_id_it_had_before(text, expected):
    """Specs whose defaults never changed keep their id; a debate, whose default prompt became
    v2, resumes a workspace judged under its old id (``as_before``, see the runner)."""
    assert str(parse_spec(text).as_before()) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("debate", "debate(adjudicator=human,doc_tokens=1024,first=relevant,prompt=v2,rounds=2)"),
        ("debate(prompt=v1,doc_tokens=400)", "debate(adjudicator=human,doc_tokens=400,first=relevant,rounds=2)"),
        ("debate(agents=4)", "debate(adjudicator=human,agents=4,doc_tokens=1024,first=relevant,prompt=v2,rounds=2)"),
        ("debate(temperature=[0.0,0.7])",
         "debate(adjudicator=human,doc_tokens=1024,first=relevant,prompt=v2,rounds=2,temperature=[0,0.7])"),
        ("debate(quotes=5,reasoning_chars=1200,adjudicator_sees=final,stop=agree,agents=2)",
         "debate(adjudicator=human,doc_tokens=1024,first=relevant,prompt=v2,rounds=2)"),
    ],
)
def test_a_new_debate_names_its_prompt_and_only_non_default_new_parameters(text, expected):
    assert canonical(text) == expected


@pytest.mark.parametrize("text", ["debate", "debate(agents=4,stop=never,rounds=5)", "debate(prompt=v1)"])
def test_a_new_debate_id_reads_back_as_itself(text):
    assert canonical(canonical(text)) == canonical(text)


def test_a_stored_v1_id_reads_back_as_the_v1_debate():
    assert parse_spec("debate(adjudicator=llm,doc_tokens=400,first=relevant,rounds=1)")["prompt"] == "v1"


@pytest.mark.parametrize(("text", "expected"), PREVIOUS_CANONICAL)
def test_a_canonical_id_reads_back_as_itself(text, expected):
    assert canonical(expected) == expected


@pytest.mark.parametrize("name", methods())
def test_every_registered_method_round_trips(name):
    text = name + ("+zero-shot" if parse_prefilter_ok(name) else "")
    assert canonical(str(parse_spec(text))) == str(parse_spec(text))


def parse_prefilter_ok(name: str) -> bool:
    return {m.name: m.prefilter for m in describe()}[name]


def test_with_prefilter_equals_the_chain_written_out():
    composed = parse_spec("debate(rounds=1)").with_prefilter(parse_prefilter("prefilter(keep=0.8)"))
    assert composed == parse_spec("prefilter(keep=0.8)+debate(rounds=1)")


def test_with_prefilter_refuses_a_batch_judge():
    with pytest.raises(UsageError, match="batches"):
        parse_spec("confidence").with_prefilter(parse_prefilter("prefilter"))


@pytest.mark.parametrize("bad", ["debate", "zero-shot", "prefilter+debate", "prefilter(keep=2)", "prefilter("])
def test_a_prefilter_option_must_be_one_prefilter(bad):
    with pytest.raises(UsageError):
        parse_prefilter(bad)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("debate", "debate(adjudicator=llm,doc_tokens=1024,first=relevant,prompt=v2,rounds=2)"),
        ("debate(rounds=1)", "debate(adjudicator=llm,doc_tokens=1024,first=relevant,prompt=v2,rounds=1)"),
        ("debate(adjudicator=human)", "debate(adjudicator=human,doc_tokens=1024,first=relevant,prompt=v2,rounds=2)"),
        ("debate(narrative=true)", "debate(adjudicator=llm,doc_tokens=1024,first=relevant,narrative=true,prompt=v2,rounds=2)"),
        (
            "prefilter(keep=0.9)+debate",
            "prefilter(by=likelihood,calib=200,doc_tokens=400,keep=0.9)"
            "+debate(adjudicator=llm,doc_tokens=1024,first=relevant,prompt=v2,rounds=2)",
        ),
        ("zero-shot", "zero-shot(doc_tokens=400,narrative=none)"),
        ("likelihood(threshold=auto)", "likelihood(calib=200,doc_tokens=400,threshold=auto)"),
    ],
)
def test_the_llm_adjudicator_is_added_unless_the_spec_names_one(text, expected):
    assert str(parse_spec(text).with_adjudicator("llm")) == expected


def test_with_params_validates_the_value():
    with pytest.raises(UsageError, match="rounds"):
        parse_spec("debate").with_params(rounds="0")


@pytest.mark.parametrize(("command", "local"), sorted(AUTO_METHODS))
def test_every_auto_method_is_a_valid_spec(command, local):
    model = "local" if local else "openai:m@http://127.0.0.1:1/v1"
    assert auto_method(model, command) == parse_spec(AUTO_METHODS[(command, local)])


@pytest.mark.parametrize("command", ["judge", "fill", "build"])
def test_the_embedded_model_gets_query_likelihood(command):
    assert auto_method("local", command).name == "likelihood"


@pytest.mark.parametrize(("command", "expected"), [("judge", "debate"), ("fill", "debate"), ("build", "narrative")])
def test_a_served_model_debates_or_induces_narratives(command, expected):
    assert auto_method("openai:m@http://127.0.0.1:1/v1", command).name == expected


@pytest.mark.parametrize("method", [None, "", "auto", " AUTO "])
def test_no_method_means_auto(method):
    assert resolve_method(method, "local", "fill") == auto_method("local", "fill")


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("debate(rounds=1,rounds=2)", "given twice"),
        ("debate(rounds=2", "never closed"),
        ("debate(rounds)", "is not key=value"),
        ("debate(colour=red)", "no parameter 'colour'"),
        ('narrative(instructor="openai:m@http://a/v1)', "cannot read"),
        ("debate-", "cannot read"),
        ("debate()()", "cannot read"),
        ("prefilter", "needs a judge after it"),
        ("debate+zero-shot", "only a prefilter"),
        ("narrative(docs=0)", "out of range"),
        ("narrative(docs=some)", "expected all or an integer"),
        ("narrative(budget=100)", "below 512"),
    ],
)
def test_a_bad_spec_says_what_is_wrong(bad, message):
    with pytest.raises(UsageError, match=message):
        parse_spec(bad)
