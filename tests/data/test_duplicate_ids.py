"""Duplicate topic and document ids: an identical repeat is kept once and
counted, a conflicting one is an error naming both lines (issue 17, item 1)."""
from __future__ import annotations

import json

import pytest

from qrelkit.data import DocIndex, load_topics, unique_docs, unique_topics
from qrelkit.errors import InputError
from qrelkit.types import Doc, Topic


def jl(*objs) -> str:
    return "".join(json.dumps(o) + "\n" for o in objs)


def test_identical_repeated_topic_is_kept_once(write):
    path = write("t.tsv", "1\ta\n2\tb\n1\ta\n")
    assert list(unique_topics(path)) == [Topic("1", "a"), Topic("2", "b")]


def test_identical_repeated_topic_is_counted(write):
    topics = unique_topics(write("t.tsv", "1\ta\n2\tb\n1\ta\n1\ta\n"))
    list(topics)
    assert topics.duplicates == 2


def test_topic_repeated_with_another_narrative_is_an_error(write):
    path = write("t.jsonl", jl({"qid": "1", "text": "a"}, {"qid": "1", "text": "a", "narrative": "n"}))
    with pytest.raises(InputError) as err:
        load_topics(path)
    assert str(err.value) == f"{path}:2: duplicate topic 1 with different content: lines 1 and 2"


def test_identical_repeated_doc_is_kept_once(write):
    path = write("d.jsonl", jl({"docid": "a", "text": "x"}, {"docid": "b", "text": "y"}, {"docid": "a", "text": "x"}))
    assert list(unique_docs(path)) == [Doc("a", "x"), Doc("b", "y")]


def test_repeats_beyond_one_batch_are_found(write):
    lines = [f"d{i}\ttext {i}" for i in range(2500)] + ["d7\ttext 7", "d2400\ttext 2400"]
    docs = unique_docs(write("d.tsv", "\n".join(lines) + "\n"))
    assert len(list(docs)) == 2500
    assert docs.duplicates == 2


def test_doc_repeated_with_another_text_is_an_error(write):
    path = write("d.tsv", "a\tx\nb\ty\na\tz\n")
    with pytest.raises(InputError) as err:
        list(unique_docs(path))
    assert str(err.value) == f"{path}:3: duplicate document id a with different content: lines 1 and 3"


@pytest.mark.parametrize("name", ["d.tsv", "d.tsv.gz"])
def test_doc_index_keeps_an_identical_repeat_once(write, tmp_path, name):
    path = write(name, "a\tx\nb\t\na\tx\nb\t\n")
    with DocIndex.open(path, cache_dir=tmp_path / "cache") as index:
        assert (len(index), index.empty, index.get("a")) == (2, 1, Doc("a", "x"))


@pytest.mark.parametrize("name", ["d.tsv", "d.tsv.gz"])
def test_doc_index_refuses_a_conflicting_repeat(write, tmp_path, name):
    path = write(name, "a\tx\na\tT\tx\n")
    with pytest.raises(InputError) as err:
        DocIndex.open(path, cache_dir=tmp_path / "cache")
    assert str(err.value) == f"{path}:2: duplicate document id a with different content: lines 1 and 2"
