from __future__ import annotations

import json
import os
import tracemalloc

import pytest

from qrelkit.data import DocIndex, read_docs
from qrelkit.errors import InputError
from qrelkit.types import Doc


def jl(*objs) -> str:
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objs)


DOCS_JSONL = jl(
    {"docid": "d1", "text": "first text", "title": "T1"},
    {"doc_id": "d2", "doc": "second"},
    {"id": 3, "contents": ""},
    {"_id": "d4", "body": "fourth – ünïcode"},
)
EXPECTED = [Doc("d1", "first text", "T1"), Doc("d2", "second"), Doc("3", ""), Doc("d4", "fourth – ünïcode")]


def test_read_jsonl_docs_field_variants(write):
    assert list(read_docs(write("docs.jsonl", DOCS_JSONL))) == EXPECTED


def test_read_tsv_docs_two_and_three_columns(write):
    path = write("docs.tsv.gz", "d1\tplain text\nd2\tA title\tbody text\nd3\t\n")
    assert list(read_docs(path)) == [Doc("d1", "plain text"), Doc("d2", "body text", "A title"), Doc("d3", "")]


@pytest.mark.parametrize("name,text,problem", [
    ("d.jsonl", '{"docid": "a", "text": "x"}\n{"docid": "b", "text": "y"\n',
     "2: invalid JSON: Expecting ',' delimiter at column 27"),
    ("d.jsonl", '{"text": "x"}\n', "1: missing document id field (one of docid, doc_id, id, _id)"),
    ("d.jsonl", '{"docid": "a", "title": "x"}\n', "1: missing text field (one of text, doc, contents, body)"),
    ("d.jsonl", '{"docid": "a", "text": null}\n', "1: text must be a string, got NoneType"),
    ("d.jsonl", '{"docid": "", "text": "x"}\n', "1: docid is empty"),
    ("d.jsonl", '{"docid": "a", "text": "x", "title": 1}\n', "1: title must be a string, got int"),
    ("d.tsv", "a\tx\nb\n", ("2: expected 2 or 3 tab-separated columns (docid<TAB>text or "
                            "docid<TAB>title<TAB>text), got 1")),
    ("d.tsv", "a\tb\tc\td\n", ("1: expected 2 or 3 tab-separated columns (docid<TAB>text or "
                               "docid<TAB>title<TAB>text), got 4")),
])
def test_malformed_docs(write, name, text, problem):
    path = write(name, text)
    with pytest.raises(InputError) as err:
        list(read_docs(path))
    assert str(err.value) == f"{path}:{problem}"


def test_empty_docs_file_is_an_error(write):
    path = write("d.jsonl", "")
    with pytest.raises(InputError) as err:
        list(read_docs(path))
    assert str(err.value) == f"{path}: no documents found (the file is empty)"
    with pytest.raises(InputError) as err:
        DocIndex.open(path, cache_dir=path.parent / "cache")
    assert str(err.value) == f"{path}: no documents found (the file is empty)"


@pytest.mark.parametrize("name", ["docs.jsonl", "docs.jsonl.gz"])
def test_doc_index_lookups(write, tmp_path, name):
    path = write(name, "\ufeff" + DOCS_JSONL)
    with DocIndex.open(path, cache_dir=tmp_path / "cache") as index:
        assert index.stores_text == name.endswith(".gz")
        assert len(index) == 4
        assert index.empty == 1
        for doc in EXPECTED:
            assert index.get(doc.docid) == doc
            assert doc.docid in index
        assert index.get("nope") is None
        assert "nope" not in index and 3 not in index
        assert list(index.docids()) == ["3", "d1", "d2", "d4"]


def test_doc_index_is_reused_and_rebuilt_when_the_file_changes(write, tmp_path):
    path = write("docs.tsv", "a\tone\n")
    cache = tmp_path / "cache"
    first = DocIndex.open(path, cache_dir=cache)
    built = first.index_path.stat().st_mtime_ns
    first.close()
    second = DocIndex.open(path, cache_dir=cache)
    assert second.index_path == first.index_path
    assert second.index_path.stat().st_mtime_ns == built
    second.close()
    path.write_text("a\tone\nb\ttwo\n")
    os.utime(path, ns=(built + 10**9, built + 10**9))
    with DocIndex.open(path, cache_dir=cache) as third:
        assert third.index_path != first.index_path
        assert third.get("b") == Doc("b", "two")
    assert [p.name.endswith(".docindex.sqlite") for p in cache.iterdir()] == [True, True]


def test_doc_index_duplicate_ids_name_both_lines(write, tmp_path):
    lines = [f"d{i}\ttext {i}" for i in range(2500)] + ["d7\tagain"]
    path = write("dup.tsv", "\n".join(lines) + "\n")
    cache = tmp_path / "cache"
    with pytest.raises(InputError) as err:
        DocIndex.open(path, cache_dir=cache)
    assert str(err.value) == f"{path}:2501: duplicate document id d7 with different content: lines 8 and 2501"
    assert list(cache.iterdir()) == []  # no half-built index left behind


def test_doc_index_reports_malformed_lines(write, tmp_path):
    path = write("bad.jsonl", '{"docid": "a", "text": "x"}\n{"docid": "b"}\n')
    with pytest.raises(InputError) as err:
        DocIndex.open(path, cache_dir=tmp_path / "cache")
    assert str(err.value) == f"{path}:2: missing text field (one of text, doc, contents, body)"


def test_doc_index_missing_file(tmp_path):
    with pytest.raises(InputError) as err:
        DocIndex.open(tmp_path / "none.jsonl", cache_dir=tmp_path)
    assert str(err.value) == f"{tmp_path / 'none.jsonl'}: no such file"


# -- real data --------------------------------------------------------------------------------

def test_doc_index_on_trec_dl_passages(dl19, tmp_path):
    path = dl19 / "passages.jsonl"
    wanted = {}
    with open(path, encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            if i in (0, 1, 777, 5000, 10817):
                obj = json.loads(line)
                wanted[obj["docid"]] = obj["doc"]
    assert len(wanted) == 5
    tracemalloc.start()
    try:
        index = DocIndex.open(path, cache_dir=tmp_path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    size = path.stat().st_size
    assert peak < size / 10, f"indexing peaked at {peak} bytes for a {size}-byte file"
    with index:
        assert len(index) == 10818
        for docid, text in wanted.items():
            assert index.get(docid) == Doc(docid, text)
        assert index.get("not-a-passage") is None


@pytest.mark.parametrize("raw,expected", [
    (b'\xef\xbb\xbf{"docid": "d1", "text": "bom on line 1"}\n', [Doc("d1", "bom on line 1")]),
    (b'\n{"docid": "d1", "text": "x"}\n   \n{"docid": "d2", "text": "y"}\n', [Doc("d1", "x"), Doc("d2", "y")]),
    (b'{"docid": " d1 ", "text": "spaces around the id are stripped"}\n',
     [Doc("d1", "spaces around the id are stripped")]),
    (b'{"docid": "d1", "text": "x", "title": ""}\n', [Doc("d1", "x")]),
    (b'{"docid": "d1", "id": "other", "text": "docid wins"}\n', [Doc("d1", "docid wins")]),
    (b'{"docid": "d1", "text": "first", "text": "the last repeat of a key wins"}\n',
     [Doc("d1", "the last repeat of a key wins")]),
])
def test_jsonl_fast_path_reads_what_the_careful_parser_reads(tmp_path, raw, expected):
    path = tmp_path / "d.jsonl"
    path.write_bytes(raw)
    assert list(read_docs(path)) == expected


def test_jsonl_invalid_utf8_names_its_line(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'{"docid": "d1", "text": "x"}\n{"docid": "d2", "text": "\xff"}\n')
    with pytest.raises(InputError) as err:
        list(read_docs(path))
    assert str(err.value).startswith(f"{path}:2: not valid UTF-8")
