"""output=label: exactly "Relevant" or "Not Relevant", anything else an error, never a guess."""

from __future__ import annotations

import asyncio

import pytest

from qrelkit.judges import build, canonical
from qrelkit.judges.output import SCHEMA

from .conftest import make_client


def judge(graded_input, reply, spec="zero-shot(output=label)"):
    client = make_client(lambda m, p: reply)
    return asyncio.run(build(spec)(graded_input(), client)), client


@pytest.mark.parametrize(("reply", "label"), [('"Relevant"', 1), ('"Not Relevant"', 0), (' "Relevant"\n', 1)])
def test_an_exact_label_is_read(graded_input, reply, label):
    assert judge(graded_input, reply)[0].label == label


@pytest.mark.parametrize("reply", ['"relevant"', '"Relevant."', '"Yes"', "Relevant, I think", '"Not relevant"', "{}"])
def test_anything_else_is_an_error(graded_input, reply):
    assert judge(graded_input, reply)[0].status == "error"


@pytest.mark.parametrize("reply", ['"relevant"', "Relevant, I think"])
def test_an_error_has_no_label(graded_input, reply):
    assert judge(graded_input, reply)[0].label is None


def test_the_request_carries_the_two_label_enum(graded_input):
    _, client = judge(graded_input, '"Relevant"')
    assert client.backend.requests[0][1]["schema"] == SCHEMA


def test_the_prompt_asks_for_the_two_labels(graded_input):
    _, client = judge(graded_input, '"Relevant"')
    assert '"Relevant" or "Not Relevant"' in client.backend.requests[0][0][-1].content


def test_a_graded_task_stores_the_threshold_grade_and_says_so(graded_input):
    v, _ = judge(graded_input, '"Relevant"')
    assert (v.grade, v.provenance["grade_from_label"]) == (2, True)


@pytest.mark.parametrize("spec", ["icl(output=label)", "zero-shot(narrative=topic,output=label)"])
def test_other_generation_judges_take_output_label(graded_input, spec):
    assert judge(graded_input, '"Not Relevant"', spec)[0].label == 0


@pytest.mark.parametrize(("spec", "old"), [
    ("zero-shot(narrative=topic,output=json)", "zero-shot(doc_tokens=400)"),
    ("icl(output=json)", "icl(doc_tokens=400,example_tokens=150,k=2,seed=0,select=random)"),
])
def test_output_json_is_the_default_and_keeps_the_id(spec, old):
    assert canonical(spec) == old


def test_the_embedded_models_grammar_compiles_the_enum():
    import json

    from llama_cpp.llama_grammar import LlamaGrammar

    from qrelkit.llm.local import LocalBackend  # noqa: F401  (llama_cpp is installed with qrelkit)

    assert LlamaGrammar.from_json_schema(json.dumps(SCHEMA), verbose=False) is not None


def test_a_new_parameter_next_to_doc_tokens_gets_the_new_zero_shot_default():
    assert canonical("zero-shot(doc_tokens=120,output=label)") == "zero-shot(doc_tokens=120,narrative=none,output=label)"
