"""Long maxLength bounds crash llama.cpp's grammar sampler; the local backend caps them for the grammar only."""

from __future__ import annotations

from qrelkit.llm.local import GRAMMAR_MAX_LENGTH, _cap_lengths

SCHEMA = {
    "type": "object",
    "properties": {
        "reasoning": {"type": "string", "maxLength": 1200},
        "evidence": {"type": "array", "items": {"type": "string", "maxLength": 300}, "maxItems": 5},
    },
}


def test_a_long_string_bound_is_capped():
    assert _cap_lengths(SCHEMA)["properties"]["reasoning"]["maxLength"] == GRAMMAR_MAX_LENGTH


def test_a_short_bound_inside_an_array_is_kept():
    assert _cap_lengths(SCHEMA)["properties"]["evidence"]["items"]["maxLength"] == 300


def test_item_counts_are_not_string_lengths():
    assert _cap_lengths(SCHEMA)["properties"]["evidence"]["maxItems"] == 5


def test_the_requests_own_schema_is_left_alone():
    _cap_lengths(SCHEMA)
    assert SCHEMA["properties"]["reasoning"]["maxLength"] == 1200
