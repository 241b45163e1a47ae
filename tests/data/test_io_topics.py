from __future__ import annotations

import json

import pytest

from qrelkit.data import load_topics, read_topics
from qrelkit.errors import InputError
from qrelkit.types import Topic


def jl(*objs) -> str:
    return "".join(json.dumps(o) + "\n" for o in objs)


def test_tsv_topics(write):
    path = write("topics.tsv", "1\twhat is a qrel\n\n2\t  tabs\tinside text \n")
    assert list(read_topics(path)) == [Topic("1", "what is a qrel"), Topic("2", "tabs\tinside text")]


def test_jsonl_topics_with_alternative_field_names(write):
    path = write("topics.jsonl.gz", jl(
        {"qid": "a", "text": "t1", "answers": ["x", "y"], "narrative": "n", "description": "d"},
        {"query_id": 7, "query": "t2"},
        {"id": "c", "text": "t3", "answers": None},
    ))
    assert load_topics(path) == {
        "a": Topic("a", "t1", ("x", "y"), "n", "d"),
        "7": Topic("7", "t2"),
        "c": Topic("c", "t3"),
    }


@pytest.mark.parametrize("name,text,expected", [
    ("topics", "q1\thello\n", Topic("q1", "hello")),
    ("topics.dat", '\n{"qid": "q1", "text": "hello"}\n', Topic("q1", "hello")),
    ("topics.json", '{"qid": "q1", "text": "hello"}\n', Topic("q1", "hello")),
    ("topics.txt.gz", "q1\thello\n", Topic("q1", "hello")),
])
def test_format_by_extension_or_first_line(write, name, text, expected):
    assert list(read_topics(write(name, text))) == [expected]


@pytest.mark.parametrize("name,text,problem", [
    ("t.jsonl", '{"qid": "1", "text": "a"}\n{"qid": "2", "text": }\n',
     "2: invalid JSON: Expecting value at column 22"),
    ("t.jsonl", '[{"qid": "1", "text": "a"}]\n',
     "1: expected a JSON object, got list"),
    ("t.jsonl", '[{"qid": "1", "text": "a"},\n{"qid": "2"}]\n',
     "1: invalid JSON: Expecting value at column 28 (a JSON array? expected one object per line)"),
    ("t.jsonl", '{"text": "a"}\n', "1: missing topic id field (one of qid, query_id, id)"),
    ("t.jsonl", '{"qid": ["x"], "text": "a"}\n', '1: qid must be a string or integer, got ["x"]'),
    ("t.jsonl", '{"qid": "1"}\n', "1: missing query text field (one of text, query)"),
    ("t.jsonl", '{"qid": "1", "text": "  "}\n', "1: empty query text for topic 1"),
    ("t.jsonl", '{"qid": "1", "text": 5}\n', "1: text must be a string, got 5"),
    ("t.jsonl", '{"qid": "1", "text": "a", "answers": "x"}\n', '1: answers must be a list of strings, got "x"'),
    ("t.jsonl", '{"qid": "1", "text": "a", "narrative": 3}\n', "1: narrative must be a string, got 3"),
    ("t.tsv", "1\tok\n2 no tab here\n", "2: expected 2 tab-separated columns (qid<TAB>text), got 1"),
    ("t.tsv", "1\t \n", "1: empty query text for topic 1"),
    ("t.tsv", " \tquery\n", "1: empty topic id"),
])
def test_malformed_topics(write, name, text, problem):
    path = write(name, text)
    with pytest.raises(InputError) as err:
        load_topics(path)
    assert str(err.value) == f"{path}:{problem}"


def test_empty_topics_file_is_an_error(write):
    path = write("t.tsv", "\n\n")
    with pytest.raises(InputError) as err:
        list(read_topics(path))
    assert str(err.value) == f"{path}: no topics found (the file is empty)"


def test_duplicate_topic_names_both_lines(write):
    path = write("t.tsv", "1\ta\n2\tb\n1\tc\n")
    assert [t.qid for t in read_topics(path)] == ["1", "2", "1"]
    with pytest.raises(InputError) as err:
        load_topics(path)
    assert str(err.value) == f"{path}:3: duplicate topic 1 with different content: lines 1 and 3"


def test_crlf_and_unicode_line_separators(write):
    # U+2028 inside a JSON string must not split the line
    path = write("t.jsonl", '{"qid": "1", "text": "a\u2028b"}\r\n')
    assert list(read_topics(path)) == [Topic("1", "a\u2028b")]
    assert list(read_topics(write("t.tsv", "1\tquery\r\n"))) == [Topic("1", "query")]
