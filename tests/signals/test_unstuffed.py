"""Signals read on the document minus the query's words stuffed into it (qrelkit.signals.unstuffed)."""
from __future__ import annotations

import asyncio

import numpy as np
import pytest

from qrelkit import signals
from qrelkit.signals.unstuffed import unstuffed
from qrelkit.store import Store
from qrelkit.types import Doc, Topic

Q = "what is physical description of spruce"
TEXT = "Trees of the north have needles. They grow slowly in cold places."


@pytest.mark.parametrize(("text", "expected"), [
    (f"{Q} {TEXT}", TEXT),  # stuffed at the start
    (f"{TEXT} {Q}", TEXT),  # at the end
    (f"{' '.join([Q] * 5)} {TEXT}", TEXT),  # repeated
    (f"{TEXT} spruce spruce spruce physical physical description description spruce spruce spruce spruce "
     "description", TEXT),  # its words repeated, out of order (twice its length)
    (f"{Q.upper()} {TEXT}", TEXT),  # any case
])
def test_stuffed_runs_are_taken_out(text, expected):
    assert unstuffed(text, Q) == expected


@pytest.mark.parametrize("text", [
    TEXT,
    "The physical description of spruce: a tall conifer with needles.",  # not every query word
    f"Foresters ask {Q} when they survey. {TEXT}",  # the whole query, inside a sentence
    "A spruce is physical; its description is short.",  # query words spread over a sentence
])
def test_a_passage_using_the_query_words_in_its_sentences_keeps_them(text):
    assert unstuffed(text, Q) == text


def test_a_one_word_query_opening_a_passage_is_not_stuffing():
    assert unstuffed("Spruce grows in the north.", "spruce") == "Spruce grows in the north."


def test_a_run_stops_at_the_end_of_a_sentence():
    assert unstuffed(f"{Q}? Spruce is tall.", Q) == "Spruce is tall."


@pytest.fixture()
def ctx(tmp_path):
    with Store.create(tmp_path / "ws") as s:
        s.upsert_topics([Topic("q1", Q)])
        s.upsert_docs([Doc("d1", TEXT), Doc("end", f"{TEXT} {Q}"), Doc("start", f"{Q} {TEXT}"),
                       Doc("other", "Spruce wood is light and physical labour fells it.")])
        yield signals.context_from_store(s)


def values(name: str, docids, ctx) -> np.ndarray:
    return asyncio.run(signals.values(signals.build(name), [("q1", d) for d in docids], ctx))


@pytest.mark.parametrize("stuffed", ["end", "start"])
def test_lexical_u_of_a_stuffed_passage_is_lexical_of_the_untouched_one(ctx, stuffed):
    assert values("lexical_u", [stuffed], ctx).tolist() == values("lexical", ["d1"], ctx).tolist()


def test_plain_lexical_is_fooled_by_the_stuffing(ctx):
    assert values("lexical", ["end"], ctx)[0, 0] > values("lexical", ["d1"], ctx)[0, 0]


def test_a_clean_passage_gets_the_wrapped_signals_value(ctx):
    assert values("lexical_u", ["other"], ctx).tolist() == values("lexical", ["other"], ctx).tolist()


def test_a_clean_passage_is_cached_under_the_wrapped_signal_too(ctx):
    values("lexical_u", ["other"], ctx)
    version = signals.build("lexical").version(ctx)
    assert ("q1", "other") in ctx.store.signal_values("lexical", version, [("q1", "other")])


def test_a_stuffed_passage_leaves_no_value_under_the_wrapped_signal(ctx):
    values("lexical_u", ["end"], ctx)
    version = signals.build("lexical").version(ctx)
    assert ctx.store.signal_values("lexical", version, [("q1", "end")]) == {}


def test_the_version_names_the_rule(ctx):
    assert signals.build("lexical_u").version(ctx).endswith("|unstuffed=runs-v2")


def test_dense_u_of_a_stuffed_passage_is_dense_of_the_untouched_one(ctx):
    if signals.build("dense").unavailable(ctx):
        pytest.skip(signals.build("dense").unavailable(ctx))
    got, want = values("dense_u", ["start"], ctx)[0, 0], values("dense", ["d1"], ctx)[0, 0]
    assert got == pytest.approx(want, abs=1e-6)


@pytest.mark.parametrize(("query", "text", "expected"), [
    ("tracheids are part of _____.", "tracheids are part of _____. " * 4 + "Vascular plants carry water.",
     "Vascular plants carry water."),  # a query ending a sentence, repeated
    ("anthropological definition of environment",
     "anthropological definition of environment Definition of environment for learners.",
     "Definition of environment for learners."),  # the passage's own opening words stay
    ("the spruce tree", "Winters are cold for the spruce the spruce tree", "Winters are cold for the spruce"),
])
def test_the_passages_own_query_words_next_to_the_stuffing_stay(query, text, expected):
    assert unstuffed(text, query) == expected
