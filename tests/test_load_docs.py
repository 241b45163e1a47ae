"""Loading documents into a workspace: each id once, repeats counted, conflicts named by line,
whether the docs table finds the repeats (a fresh workspace) or a scratch set does (a reload)."""

from __future__ import annotations

import json

import pytest

from qrelkit.errors import InputError
from qrelkit.store import Store
from qrelkit.types import Doc
from qrelkit.workspace import load_collection


def jsonl(path, docs):
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    return str(path)


@pytest.fixture
def topics(tmp_path):
    p = tmp_path / "topics.tsv"
    p.write_text("q1\tfox\n")
    return str(p)


def load(tmp_path, topics, docs, force=False):
    with Store.create(tmp_path / "ws") as store:
        counts = load_collection(store, topics, docs, force=force)
        return counts, {d.docid: d for d in (store.doc(f"d{i}") for i in range(10)) if d}


@pytest.mark.parametrize("force_reload", [False, True])
def test_identical_repeat_is_kept_once_and_counted(tmp_path, topics, force_reload):
    docs = jsonl(tmp_path / "d.jsonl", [{"docid": "d1", "text": "a"}, {"docid": "d2", "text": "b"},
                                        {"docid": "d1", "text": "a"}])
    if force_reload:
        load(tmp_path, topics, docs)
    counts, stored = load(tmp_path, topics, docs, force=force_reload)
    assert counts["docs"] == 2
    assert counts["duplicates"]["docs"] == 1
    assert stored == {"d1": Doc("d1", "a"), "d2": Doc("d2", "b")}


@pytest.mark.parametrize("force_reload", [False, True])
def test_conflicting_repeat_names_both_lines(tmp_path, topics, force_reload):
    docs = jsonl(tmp_path / "d.jsonl", [{"docid": "d1", "text": "a"}, {"docid": "d2", "text": "b"},
                                        {"docid": "d1", "text": "changed"}])
    if force_reload:
        with Store.create(tmp_path / "ws") as store:
            store.upsert_docs([Doc("d9", "loaded before")])
    with pytest.raises(InputError) as err:
        load(tmp_path, topics, docs)
    assert str(err.value) == f"{docs}:3: duplicate document id d1 with different content: lines 1 and 3"


def test_repeats_across_batches_are_found_by_the_table(tmp_path):
    rows = [(i + 1, Doc(f"d{i % 5}", f"text {i % 5}")) for i in range(12)]
    with Store.create(tmp_path / "ws") as store:
        assert store.insert_docs_once(iter(rows), lambda n, d: pytest.fail("no conflict"), batch=4) == (5, 7)
        assert store.doc_count() == 5


def test_a_conflict_in_a_later_batch_is_reported_with_its_line(tmp_path):
    rows = [(1, Doc("d1", "a")), (2, Doc("d2", "b")), (3, Doc("d3", "c")), (4, Doc("d1", "other"))]
    seen = []

    def conflict(line, doc):
        seen.append((line, doc.docid))
        raise InputError("docs.jsonl", line, "conflict")

    with Store.create(tmp_path / "ws") as store, pytest.raises(InputError):
        store.insert_docs_once(iter(rows), conflict, batch=2)
    assert seen == [(4, "d1")]
