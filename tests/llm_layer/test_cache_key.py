"""The call cache's key is the sha256 of one JSON definition (qrelkit.llm.cache.signed_request):
``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)``. msgspec now writes it
where it writes the same bytes; a key that changed would pay again for every cached answer of
every workspace, so the two are compared here on generated requests, floats and text of every kind."""
from __future__ import annotations

import hashlib
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from qrelkit.jsontext import msgspec_safe
from qrelkit.llm.cache import signed_request


def reference(kind: str, model: str, payload: dict) -> tuple[str, str]:
    blob = json.dumps({"kind": kind, "model": model, **payload}, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest(), blob


def outcome(f, *args):
    try:
        return f(*args)
    except (UnicodeEncodeError, ValueError, TypeError, RecursionError) as e:
        return type(e).__name__


scalars = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
           | st.floats(allow_nan=True, allow_infinity=True) | st.text())
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                      | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=20)


@settings(max_examples=600, deadline=None)
@given(kind=st.text(max_size=8), model=st.text(max_size=12), payload=st.dictionaries(st.text(max_size=8), values, max_size=5))
def test_the_key_and_its_text_are_those_of_the_json_definition(kind, model, payload):
    assert outcome(signed_request, kind, model, payload) == outcome(reference, kind, model, payload)


def test_floats_json_writes_otherwise_than_msgspec_keep_their_json_text():
    for x in (1e-05, 1e16, 1.5e300, -2.5e-07, float("inf"), 1e-4, 0.1, 0.0, -0.0):
        payload = {"params": {"temperature": x}}
        if x == x and abs(x) != float("inf"):
            assert signed_request("chat", "m", payload) == reference("chat", "m", payload)
    assert signed_request("chat", "m", {"t": float("nan")})[1].endswith('"t":NaN}')


def test_a_judges_requests_take_msgspec(monkeypatch):
    """The speed-up is real only if a judge's requests pass the check: the zero-shot judge's and
    the debate's, as the client signs them."""
    import asyncio

    import qrelkit.llm.client as client_module
    from qrelkit.judges import JudgeInput, Task, build, parse_spec
    from qrelkit.llm import Client, ScriptedBackend
    from qrelkit.types import Case, Doc, Topic

    signed = []

    def recording(kind, model, payload):
        signed.append((kind, model, dict(payload)))
        return signed_request(kind, model, payload)

    monkeypatch.setattr(client_module, "signed_request", recording)
    client = Client(ScriptedBackend(lambda m, p: {"reason": "r", "grade": 1, "label": 1, "confidence": 0.9}))
    inp = JudgeInput(Case("q1", "d1"), Topic("q1", "what does the fox do"),
                     Doc("d1", "The quick brown fox — «jumps» over the lazy dog.\n\tTwice."), Task("graded", 2))
    for spec in ("zero-shot", "debate(rounds=1)"):
        asyncio.run(build(parse_spec(spec))(inp, client))
    assert len(signed) >= 3
    for kind, model, payload in signed:
        assert msgspec_safe({"kind": kind, "model": model, **payload})
        assert signed_request(kind, model, payload) == reference(kind, model, payload)


@settings(max_examples=300, deadline=None)
@given(response=st.dictionaries(st.text(max_size=8), values, max_size=5))
def test_a_stored_response_reads_back_as_json_wrote_it(response):
    from qrelkit.jsontext import sorted_json

    text = outcome(sorted_json, response)
    if text in ("UnicodeEncodeError", "ValueError", "TypeError", "RecursionError"):
        return
    again = json.loads(text)
    assert json.dumps(again, sort_keys=True) == json.dumps(json.loads(json.dumps(response, sort_keys=True)), sort_keys=True)
