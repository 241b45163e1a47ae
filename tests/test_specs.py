"""The one spec syntax (qrelkit.specs) and the qrels version names the measure commands print."""

from __future__ import annotations

import pytest

from qrelkit.data.qrels import unique_names, version_name
from qrelkit.errors import UsageError
from qrelkit.specs import Call, Param, bind, choice, integer, parse_chain, split_list


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("debate", (Call("debate"),)),
        ("Zero-Shot", (Call("zero-shot"),)),
        ("debate(rounds=2, first = relevant)", (Call("debate", (("rounds", "2"), ("first", "relevant"))),)),
        ("a(k=1)+b", (Call("a", (("k", "1"),)), Call("b"))),
        ("c(budget=12.5%)", (Call("c", (("budget", "12.5%"),)),)),
        ("c(features=score+pool)", (Call("c", (("features", "score+pool"),)),)),
        ("n(m=openai:x@http://h:1/v1)", (Call("n", (("m", "openai:x@http://h:1/v1"),)),)),
        ('n(m="openai:x@http://a/v1,http://b/v1")', (Call("n", (("m", "openai:x@http://a/v1,http://b/v1"),)),)),
        ("n(m='a=b,c')", (Call("n", (("m", "a=b,c"),)),)),
        ("i(select=relevant-only)", (Call("i", (("select", "relevant-only"),)),)),
        ("l(threshold=-1.5)", (Call("l", (("threshold", "-1.5"),)),)),
        ("D(Rounds=1)", (Call("d", (("rounds", "1"),)),)),
    ],
)
def test_parse_chain_reads_names_and_value_texts(text, expected):
    assert parse_chain(text) == expected


@pytest.mark.parametrize("bad", ["", "  ", "a(", "a(k)", "a(k=1", "a b", "a(k='x)", "1+2", "a.b"])
def test_parse_chain_refuses_what_it_cannot_read(bad):
    with pytest.raises(UsageError):
        parse_chain(bad)


DECLARED = {"k": Param(2, integer(1, 3)), "mode": Param("a", choice("a", "b"))}


def test_bind_fills_defaults_in_sorted_order():
    assert bind(DECLARED, (("mode", "b"),), "x") == {"k": 2, "mode": "b"}


@pytest.mark.parametrize(
    ("args", "message"),
    [((("q", "1"),), "no parameter 'q'"), ((("k", "9"),), "out of range"), ((("k", "1"), ("k", "2")), "twice")],
)
def test_bind_says_what_is_wrong(args, message):
    with pytest.raises(UsageError, match=message):
        bind(DECLARED, args, "x")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("nDCG@10,P@10", ["nDCG@10", "P@10"]),
        ("P(rel=2)@10, nDCG@10", ["P(rel=2)@10", "nDCG@10"]),
        ("AP,,", ["AP"]),
        ("'a,b',c", ["'a,b'", "c"]),
    ],
)
def test_split_list_keeps_bracketed_commas(text, expected):
    assert split_list(text) == expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("x/qrels.merged.txt.gz", "qrels.merged"),
        ("dl19.qrels", "dl19"),
        ("a/b/people.tsv", "people"),
        (".txt", ".txt"),
    ],
)
def test_version_name_drops_file_suffixes(path, expected):
    assert version_name(path) == expected


def test_unique_names_numbers_repeats():
    assert unique_names(["a", "b", "a", "a"]) == ["a", "b", "a-2", "a-3"]
