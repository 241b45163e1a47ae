from __future__ import annotations

import sys
import types
from collections import namedtuple

import pytest

from qrelkit.data import DocIndex, load_qrels, load_topics, read_docs, read_qrels, read_topics
from qrelkit.errors import InputError
from qrelkit.types import Doc, Qrel, Topic

SOURCE = "irds:msmarco-passage/trec-dl-2019/judged"


@pytest.mark.parametrize("reader", [
    lambda s: list(read_topics(s)),
    lambda s: load_topics(s),
    lambda s: list(read_qrels(s)),
    lambda s: load_qrels(s),
    lambda s: list(read_docs(s)),
    lambda s: DocIndex.open(s),
])
def test_missing_ir_datasets_gives_install_hint(monkeypatch, reader):
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # makes the import fail
    with pytest.raises(InputError) as err:
        reader(SOURCE)
    assert str(err.value) == (
        f"{SOURCE}: reading irds: sources needs the ir_datasets package, which is not installed; "
        "install it with: pip install qrelkit[irds]"
    )


Query = namedtuple("Query", "query_id text narrative")
TitleQuery = namedtuple("TitleQuery", "query_id title description")
QrelRec = namedtuple("QrelRec", "query_id doc_id relevance iteration")
DocRec = namedtuple("DocRec", "doc_id title body")


class FakeDataset:
    def __init__(self, queries, qrels=(), docs=()):
        self._q, self._r, self._d = list(queries), list(qrels), list(docs)

    def has_queries(self):
        return bool(self._q)

    def has_qrels(self):
        return bool(self._r)

    def has_docs(self):
        return bool(self._d)

    def queries_iter(self):
        return iter(self._q)

    def qrels_iter(self):
        return iter(self._r)

    def docs_iter(self):
        return iter(self._d)

    def docs_count(self):
        return len(self._d)

    def docs_store(self):
        by_id = {d.doc_id: d for d in self._d}
        return types.SimpleNamespace(get=lambda docid: by_id[docid])


@pytest.fixture
def fake_irds(monkeypatch):
    datasets = {
        "toy/a": FakeDataset(
            [Query("1", "first query", "narr"), Query(2, "second", None)],
            [QrelRec("1", "d1", 2, "0"), QrelRec("1", "d2", 0, "0"), QrelRec("1", "d1", 2, "0")],
            [DocRec("d1", "Title", "body one"), DocRec("d2", None, "body two")],
        ),
        "toy/titles": FakeDataset([TitleQuery("7", "title text", "desc")]),
    }

    def load(ds_id):
        return datasets[ds_id]

    monkeypatch.setitem(sys.modules, "ir_datasets", types.SimpleNamespace(load=load))


def test_irds_records_map_to_qrelkit_types(fake_irds):
    assert list(read_topics("irds:toy/a")) == [Topic("1", "first query", narrative="narr"), Topic("2", "second")]
    assert load_topics("irds:toy/titles") == {"7": Topic("7", "title text", description="desc")}
    assert load_qrels("irds:toy/a").pairs == {("1", "d1"): 2, ("1", "d2"): 0}
    assert load_qrels("irds:toy/a").duplicates == 1
    assert list(read_qrels("irds:toy/a", allow_conflicts=True))[2] == Qrel("1", "d1", 2)
    assert list(read_docs("irds:toy/a")) == [Doc("d1", "body one", "Title"), Doc("d2", "body two")]
    index = DocIndex.open("irds:toy/a")
    assert len(index) == 2
    assert index.get("d2") == Doc("d2", "body two")
    assert index.get("zz") is None and "d1" in index


def test_irds_errors(fake_irds):
    with pytest.raises(InputError) as err:
        list(read_topics("irds:toy/unknown"))
    assert str(err.value) == "irds:toy/unknown: unknown ir_datasets id 'toy/unknown'"
    with pytest.raises(InputError) as err:
        load_qrels("irds:toy/titles")
    assert str(err.value) == "irds:toy/titles: ir_datasets dataset 'toy/titles' provides no qrels"
    with pytest.raises(InputError) as err:
        list(read_docs("irds:"))
    assert str(err.value).startswith("irds:: empty ir_datasets id")
