"""narrative (Relevance Context Learning), narrative-guided debate, and `qrelkit narratives`."""

from __future__ import annotations

import json
import re
import sys

import pytest
from typer.testing import CliRunner

from qrelkit.cli import app
from qrelkit.errors import UsageError
from qrelkit.judges import canonical
from qrelkit.judges.narrative import read_reply
from qrelkit.judges.narrative_edits import parse_edit, save_edit
from qrelkit.judging.runner import run_judging
from qrelkit.llm import Client, ScriptedBackend
from qrelkit.store import Store
from qrelkit.types import Case, Doc, Qrel, Topic

from .conftest import agent, make_client, stance_of

INSTRUCTOR = "You write guidance"


def is_instructor(messages) -> bool:
    return INSTRUCTOR in messages[0].content


def topic_of(messages) -> str:
    return re.search(r"Search query: (\w+)", messages[-1].content).group(1)


def fn(messages, params):
    if is_instructor(messages):
        q = topic_of(messages)
        return f"Narrative: NARRATIVE-{q}: relevant documents describe the {q}.\nInstructions: INSTR-{q}"
    s = stance_of(messages)
    if s in ("relevant", "irrelevant"):
        return agent(grade=2)
    return {"reason": "per the narrative", "grade": 2}


def instructor_calls(client) -> list:
    return [m for m, _ in client.backend.requests if is_instructor(m)]


@pytest.fixture
def ws(tmp_path):
    store = Store.create(tmp_path / "ws")
    store.upsert_topics([Topic("q1", "q1 fox"), Topic("q2", "q2 dog")])
    labelled = [(f"q{1 + i % 2}", f"l{i}", 3 if i % 3 == 0 else 0) for i in range(12)]
    store.upsert_docs([Doc(d, f"labelled {d} grade {g}") for _, d, g in labelled])
    store.upsert_docs([Doc(f"h{i}", f"hole {i}") for i in range(6)])
    store.upsert_qrels([Qrel(q, d, g) for q, d, g in labelled])
    store.upsert_cases([Case(f"q{1 + i % 2}", f"h{i}", "llm", i + 1) for i in range(6)])
    yield store
    store.close()


def test_one_instructor_call_per_topic_reused_across_cases_and_runs(ws):
    client = make_client(fn, store=ws)
    s = run_judging(ws, "narrative", client)
    assert s.judged == 6 and s.errors == 0
    assert len(instructor_calls(client)) == 2 and client.backend.calls == 2 + 6
    assert s.narrative_calls == 2 and s.calls == 8 and s.narrative_cost == 0.0
    stored = ws.narratives()
    assert set(stored) == {"q1", "q2"} and stored["q1"]["narrative"].startswith("NARRATIVE-q1")
    prov = stored["q1"]["provenance"]
    assert prov["calls"] == 1 and prov["variant"] == "all" and prov["instructor"] == "scripted"
    assert prov["template"].startswith("narrative_instructor.v1+")
    assert {d["docid"] for d in prov["docs"]} <= {d for q, d in ws.qrels() if q == "q1"}
    assert {d["label"] for d in prov["docs"]} == {0, 1}  # variant all: both kinds
    # stage 2: the assessor sees its topic's narrative and instructions
    for msgs, _ in client.backend.requests:
        if not is_instructor(msgs):
            q = topic_of(msgs)
            assert f"NARRATIVE-{q}" in msgs[-1].content and f"INSTR-{q}" in msgs[-1].content
    j = ws.judgments(method=s.method)[0]
    jp = json.loads(j.provenance)
    assert jp["narrative"]["source"] == "induced" and len(jp["narrative"]["digest"]) == 12
    assert set(jp["templates"]) == {"narrative_judge", "narrative_guide", "task_graded"}
    assert s.calibration["narratives"]["generated"] == ["q1", "q2"]
    # another run (another method using the narratives) pays no instructor call
    c2 = make_client(fn, store=ws)
    s2 = run_judging(ws, "narrative(icl=1)", c2)
    assert instructor_calls(c2) == [] and c2.backend.calls == 6 and s2.narrative_calls == 0
    assert all(
        len(json.loads(j.provenance)["examples"]["docids"]) == 1 for j in ws.judgments(method=s2.method)
    )
    assert s2.calibration["narratives"]["reused"] == ["q1", "q2"]
    # and a re-run of a finished method makes no call at all
    c3 = make_client(fn, store=ws)
    assert run_judging(ws, "narrative", c3).new == 0 and c3.backend.calls == 0


def test_variants_and_edits(ws):
    save_edit(ws, "q1", "A PERSON'S NARRATIVE", "look for foxes", via="test")
    client = make_client(fn, store=ws)
    s = run_judging(ws, "narrative(variant=relevant)", client)
    calls = instructor_calls(client)
    assert len(calls) == 1 and topic_of(calls[0]) == "q2"  # the edited q1 is kept
    text = calls[0][-1].content
    assert "judged relevant for this query" in text and "(not relevant)" not in text
    stored = ws.narratives()
    assert stored["q1"]["narrative"] == "A PERSON'S NARRATIVE" and stored["q1"]["edited"]
    assert stored["q2"]["variant"] == "relevant"
    assert all(d["label"] == 1 for d in stored["q2"]["provenance"]["docs"])
    q1 = [j for j in ws.judgments(method=s.method) if j.qid == "q1"][0]
    assert json.loads(q1.provenance)["narrative"]["source"] == "edited"


def test_fallbacks_and_errors_never_invent(ws):
    ws.upsert_topics([Topic("q3", "q3 cat", narrative="Documents about cats."), Topic("q4", "q4 eel")])
    ws.upsert_docs([Doc("c3", "hole cat"), Doc("c4", "hole eel")])
    ws.upsert_cases([Case("q3", "c3"), Case("q4", "c4")])
    client = make_client(fn, store=ws)
    s = run_judging(ws, "narrative", client)
    assert {topic_of(m) for m in instructor_calls(client)} == {"q1", "q2"}
    by = {j.qid: j for j in ws.judgments(method=s.method) if j.qid in ("q3", "q4")}
    assert by["q3"].status == "auto" and json.loads(by["q3"].provenance)["narrative"]["source"] == "topic"
    assert by["q4"].status == "error" and by["q4"].label is None
    assert "no human-judged documents" in json.loads(by["q4"].provenance)["reason"]
    assert "q3" not in ws.narratives() and "q4" not in ws.narratives()  # fallbacks are not stored
    assert s.calibration["narratives"]["fallback"] == ["q3"] and "q4" in s.calibration["narratives"]["failed"]


def test_failed_instructor_leaves_errors_and_is_retried(ws):
    def broken(messages, params):
        if is_instructor(messages):
            raise RuntimeError("instructor down")
        return fn(messages, params)

    s = run_judging(ws, "narrative", make_client(broken, store=ws, max_attempts=1))
    assert s.errors == 6 and ws.narratives() == {}
    reason = json.loads(ws.judgments(method=s.method)[0].provenance)["reason"]
    assert "instructor call failed" in reason
    client = make_client(fn, store=ws)
    s2 = run_judging(ws, "narrative", client)
    assert s2.errors == 0 and s2.judged == 6 and len(instructor_calls(client)) == 2


def test_a_separate_instructor_model(ws, monkeypatch):
    big = Client(ScriptedBackend(fn, model_id="openai:big"), backoff_base=0.0)
    made = []

    def fake_make_client(spec, store=None, **kw):
        made.append((spec, store))
        return big

    monkeypatch.setattr("qrelkit.llm.spec.make_client", fake_make_client)
    small = make_client(fn, store=ws)
    s = run_judging(
        ws, 'narrative(instructor="openai:big@http://127.0.0.1:9/v1,http://127.0.0.1:10/v1")', small
    )
    assert made == [("openai:big@http://127.0.0.1:9/v1,http://127.0.0.1:10/v1", ws)]
    assert "instructor=openai:big," in s.method  # endpoint URLs stay out of the method id
    assert instructor_calls(small) == [] and len(instructor_calls(big)) == 2
    assert s.narrative_calls == 2 and s.calls == 6 + 2  # the instructor's calls join the totals
    assert {r["model"] for r in ws.narratives().values()} == {"openai:big"}


def test_narrative_guided_debate(ws):
    assert canonical("debate") == "debate(adjudicator=human,doc_tokens=1024,first=relevant,prompt=v2,rounds=2)"
    client = make_client(fn, store=ws)
    s = run_judging(ws, "debate(narrative=true)", client)
    assert "narrative=true" in s.method and s.judged == 6
    assert len(instructor_calls(client)) == 2 and s.narrative_calls == 2
    agents = [m for m, _ in client.backend.requests if not is_instructor(m)]
    assert len(agents) == 12 and all("NARRATIVE-" in m[-1].content for m in agents)
    prov = json.loads(ws.judgments(method=s.method)[0].provenance)
    assert prov["narrative"]["source"] == "induced" and "narrative_guide" in prov["templates"]
    # plain debate sees no narrative; the sampled reading (docs=6, as debate reads) reuses the
    # debate's narratives, while the default (docs=all) reads every judged document anew
    plain = make_client(fn, store=ws)
    run_judging(ws, "debate", plain)
    assert not any("NARRATIVE-" in m[-1].content for m, _ in plain.backend.requests)
    nar = make_client(fn, store=ws)
    run_judging(ws, "narrative(docs=6)", nar)
    assert instructor_calls(nar) == []
    every = make_client(fn, store=ws)
    run_judging(ws, "narrative(docs=all)", every)
    assert len(instructor_calls(every)) == 2


# ---- the command line ----------------------------------------------------------------------------
runner = CliRunner()


def cli(*args, env=None):
    return runner.invoke(app, list(args), env=env, catch_exceptions=True)


def test_cli_lists_and_edits(ws):
    run_judging(ws, "narrative", make_client(fn, store=ws))
    w = str(ws.workspace)
    r = cli("narratives", "-w", w, "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["count"] == 2 and out["narratives"][0]["qid"] == "q1" and not out["narratives"][0]["edited"]
    assert out["narratives"][0]["query"] == "q1 fox" and out["narratives"][0]["provenance"]["calls"] == 1
    r = cli("narratives", "-w", w)
    assert r.exit_code == 0 and "NARRATIVE-q1" in r.output

    r = cli("narratives", "edit", "q1", "-w", w, "--text", "Only foxes that jump.", "--json")
    assert r.exit_code == 0, r.output
    row = ws.narratives()["q1"]
    assert row["narrative"] == "Only foxes that jump." and row["edited"] and row["instructions"] == "INSTR-q1"
    assert row["provenance"]["edits"][-1]["via"] == "text" and row["provenance"]["calls"] == 1

    edit_file = ws.workspace / "q2.md"
    edit_file.write_text("## narrative\nDogs, barking.\n\n## instructions\nIgnore cats.\n")
    assert cli("narratives", "edit", "q2", "-w", w, "--file", str(edit_file)).exit_code == 0
    assert ws.narratives()["q2"]["instructions"] == "Ignore cats."

    # interactive: $EDITOR edits a temp file holding the current text
    script = ws.workspace / "editor.py"
    script.write_text(
        "import sys\np = sys.argv[1]\nt = open(p).read()\n"
        "open(p, 'w').write(t.replace('Dogs, barking.', 'Dogs that bark at night.'))\n"
    )
    r = cli("narratives", "edit", "q2", "-w", w, env={"EDITOR": f"{sys.executable} {script}", "VISUAL": ""})
    assert r.exit_code == 0, r.output
    assert ws.narratives()["q2"]["narrative"] == "Dogs that bark at night."
    assert [e["via"] for e in ws.narratives()["q2"]["provenance"]["edits"]] == ["file", "editor"]

    # edited narratives survive regeneration, unless forced
    client = make_client(fn, store=ws)
    monkey = pytest.MonkeyPatch()
    monkey.setattr("qrelkit.llm.make_client", lambda spec, store=None, **kw: client)
    try:
        r = cli("narratives", "generate", "-w", w, "--json")
        assert r.exit_code == 0, r.output
        assert json.loads(r.stdout)["reused"] == ["q1", "q2"] and client.usage.calls == 0
        r = cli("narratives", "generate", "-w", w, "--qid", "q1", "--force", "--json")
        # the same prompt as the judge's first run: answered from the LLM cache, not paid again
        assert json.loads(r.stdout)["generated"] == ["q1"] and client.usage.calls == 1
        assert client.usage.cache_hits == 1 and client.backend.calls == 0
    finally:
        monkey.undo()
    row = ws.narratives()["q1"]
    assert row["narrative"].startswith("NARRATIVE-q1") and not row["edited"]


def test_cli_errors(ws):
    w = str(ws.workspace)
    r = cli("narratives", "edit", "nope", "-w", w, "--text", "x")
    assert isinstance(r.exception, UsageError) and "no topic" in str(r.exception)
    r = cli("narratives", "edit", "q1", "-w", w, "--text", "   ")
    assert isinstance(r.exception, UsageError) and "empty" in str(r.exception)
    r = cli("narratives")
    assert isinstance(r.exception, UsageError) and "workspace" in str(r.exception)
    assert parse_edit("# comment\nplain text\n") == ("plain text", None)


def test_the_instructor_reply_is_read_leniently():
    assert read_reply("Narrative: A fox.\nInstructions: Look.") == ("A fox.", "Look.")
    assert read_reply("**Narrative:** A fox\nis quick.\n\n**Judging instructions:** Look\ncarefully.") == (
        "A fox\nis quick.",
        "Look\ncarefully.",
    )
    assert read_reply("just some prose") == ("just some prose", "")
    assert read_reply("  ") == ("", "")


def test_a_long_narrative_is_clipped_in_prompts_not_in_the_store(ws):
    long = "Foxes jump. " * 200
    save_edit(ws, "q1", long, "", via="test")
    client = make_client(fn, store=ws)
    s = run_judging(ws, "narrative", client)
    q1 = [m for m, _ in client.backend.requests if not is_instructor(m) and topic_of(m) == "q1"]
    assert q1 and all(m[-1].content.count("Foxes jump.") < 70 for m in q1)
    prov = json.loads([j for j in ws.judgments(method=s.method) if j.qid == "q1"][0].provenance)
    assert prov["narrative"]["clipped"] and ws.narratives()["q1"]["narrative"] == long.strip()


@pytest.mark.parametrize("reply", [
    "Narrative: <<<EXAMPLE 3f2a9c01b2d4>>>\nA relevant passage names the cause of tides.\n<<<END EXAMPLE 3f2a9c01b2d4>>>\n"
    "Instructions: Look for the Moon.",
    "<<<EXAMPLE ...>>> Narrative: A relevant passage names the cause of tides.\nInstructions: Look for the Moon.",
    "Narrative: A relevant passage names the cause of tides.<<<END EXAMPLE>>>\nInstructions: Look for the Moon.",
])
def test_an_echoed_example_delimiter_is_not_kept_in_the_narrative(reply):
    """Issue 45, point 10: the embedded instructor copied `<<<EXAMPLE …>>>` into the narrative people see."""
    assert read_reply(reply) == ("A relevant passage names the cause of tides.", "Look for the Moon.")


def test_text_without_a_delimiter_is_kept_as_written():
    from qrelkit.prompts import strip_markers

    text = "Angle brackets << and >> and a <<<< run >>>> stay;\n\n\nso do blank lines."
    assert strip_markers(text) == text
