"""rag grade as a library: gold answers, one call per distinct answer, malformed replies are errors."""
from __future__ import annotations

import asyncio
import re

import pytest

from qrelkit.errors import InputError
from qrelkit.rag import agenerate, agrade, answer_record, grade_record, read_answers, write_jsonl
from qrelkit.store import Store
from qrelkit.store.rag import Answer
from qrelkit.types import Topic

from .conftest import scripted_client


def answers_of(loaded):
    answers, _ = asyncio.run(agenerate(loaded["runs"], loaded["topics"], loaded["lookup"], scripted_client(), k=2))
    return answers


def grade(answers, topics, client, **kw):
    return asyncio.run(agrade(answers, topics, client, **kw))


def test_grades_follow_the_grader(loaded):
    grades, _ = grade(answers_of(loaded), loaded["topics"], scripted_client())
    got = {(g.system, g.qid): g.correct for g in grades}
    assert got == {("a", "q1"): True, ("a", "q2"): False, ("a", "q3"): True, ("b", "q1"): True,
                   ("b", "q2"): False, ("b", "q3"): False, ("c", "q1"): False, ("c", "q2"): True,
                   ("c", "q3"): False}


def test_identical_answers_to_a_topic_cost_one_call(loaded):
    client = scripted_client()
    grade(answers_of(loaded), loaded["topics"], client)
    assert client.backend.calls == 6


def test_the_grader_sees_the_gold_answers(loaded):
    client = scripted_client()
    grade(answers_of(loaded)[:1], loaded["topics"], client)
    assert "- alpha" in client.backend.requests[0][0][1].content


def test_a_malformed_reply_after_retries_is_an_error_never_a_verdict(loaded):
    grades, summary = grade(answers_of(loaded), loaded["topics"], scripted_client(fn=lambda m, p: "yes, correct"))
    assert {g.correct for g in grades} == {None}
    assert summary.errors == 9
    assert summary.graded == 0


def test_a_reply_without_the_verdict_is_an_error(loaded):
    client = scripted_client(fn=lambda m, p: {"reason": "looks fine"})
    grades, _ = grade(answers_of(loaded)[:1], loaded["topics"], client)
    assert "missing required property 'correct'" in grades[0].error


def test_failed_grades_are_not_written_to_the_correctness_file(loaded, tmp_path):
    answers = answers_of(loaded)
    garbled = [a if a.system != "a" else Answer(a.system, a.qid, a.model, a.k, a.prompt, a.context, "garble")
               for a in answers]
    from .fake_rag_server import reply_for

    def fn(messages, params):
        return reply_for([{"role": m.role, "content": m.content} for m in messages])[1]

    grades, summary = grade(garbled, loaded["topics"], scripted_client(fn=fn))
    write_jsonl(tmp_path / "g.jsonl", (grade_record(g) for g in grades if g.ok))
    assert summary.errors == 3
    assert "\"system\": \"a\"" not in (tmp_path / "g.jsonl").read_text()


def test_topics_without_gold_answers_are_reported_and_skipped(loaded):
    topics = dict(loaded["topics"])
    topics["q3"] = Topic("q3", "third question")
    client = scripted_client()
    grades, summary = grade(answers_of(loaded), topics, client)
    assert summary.no_gold == ("q3",)
    assert {g.qid for g in grades} == {"q1", "q2"}


def test_failed_generations_are_skipped_and_counted(loaded):
    answers = answers_of(loaded)
    failed = (Answer("a", "q1", "m", 2, "p", ("d1",), None, error="timeout"),) + answers[1:]
    _, summary = grade(failed, loaded["topics"], scripted_client())
    assert summary.ungenerated == 1


def test_rerun_on_a_workspace_makes_no_call(loaded, tmp_path):
    answers = answers_of(loaded)
    with Store.create(tmp_path / "ws") as store:
        grade(answers, loaded["topics"], scripted_client(store), store=store)
        again = scripted_client(store)
        _, summary = grade(answers, loaded["topics"], again, store=store)
    assert again.backend.calls == 0
    assert summary.resumed == 9


def test_answers_file_round_trips(loaded, tmp_path):
    answers = answers_of(loaded)
    write_jsonl(tmp_path / "answers.jsonl", (answer_record(a) for a in answers))
    assert read_answers(tmp_path / "answers.jsonl") == answers


@pytest.mark.parametrize("line, problem", [
    ('{"system": "a", "qid": "q1"}', "missing key(s) answer"),
    ('{"system": "a", "qid": "q1", "answer": 3}', "answer must be a string or null"),
    ('{"system": "", "qid": "q1", "answer": "x"}', "system must be a non-empty string"),
    ('{"system": "a", "qid": "q1", "answer": "x", "k": "ten"}', "k must be a number"),
    ('not json', "not valid JSON"),
    ('[1, 2]', "expected a JSON object"),
])
def test_a_bad_answers_line_names_file_and_line(tmp_path, line, problem):
    f = tmp_path / "answers.jsonl"
    f.write_text('{"system": "a", "qid": "q0", "answer": "x"}\n' + line + "\n")
    with pytest.raises(InputError, match=rf"answers.jsonl:2: {re.escape(problem)}"):
        read_answers(f)


def test_a_second_answer_for_one_pair_is_an_error(tmp_path):
    f = tmp_path / "answers.jsonl"
    f.write_text('{"system": "a", "qid": "q1", "answer": "x"}\n{"system": "a", "qid": "q1", "answer": "y"}\n')
    with pytest.raises(InputError, match="answers.jsonl:2: second answer .*first on line 1"):
        read_answers(f)
