"""Control characters from the data reach the terminal escaped (issue 25).

A topic text with an OSC title sequence (``ESC]0;...BEL``), a clear-screen
(``ESC[2J``), a one-byte CSI (``\\x9b``), a carriage return and rich markup
(``[/]``) is printed by the real commands; their output holds none of those
characters raw and shows each as its escape."""
from __future__ import annotations

import json

import pytest

from qrelkit.cli._shown import escape_controls, shown
from qrelkit.store import Store
from qrelkit.types import Judgment
from tests.integrity.cli import assert_user_error, qk

HOSTILE = "\x1b]0;owned\x07 \x1b[2J \x9b31m over\rwrite [/] [bold]x \u202etxt :smile:"
RAW = ["\x1b", "\x07", "\x9b", "\r", "\u202e"]


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("escapes")
    (tmp / "topics.jsonl").write_text(json.dumps({"qid": "q1", "text": HOSTILE}) + "\n")
    (tmp / "docs.jsonl").write_text(json.dumps({"docid": "d\x1b[2J1", "text": "one"}) + "\n")
    (tmp / "qrels.txt").write_text("q1 0 d\x1b[2J1 1\n")
    (tmp / "a.run").write_text("q1 Q0 d\x1b[2J1 1 3.0 tag\x1b]0;run\x07\n")
    ws = tmp / "ws"
    p = qk("init", "-w", ws, "--topics", tmp / "topics.jsonl", "--docs", tmp / "docs.jsonl",
           "--qrels", tmp / "qrels.txt", "--runs", tmp / "a.run")
    assert p.returncode == 0, p.stderr
    with Store.open(ws) as s:
        s.put_judgments([Judgment("q1", "d\x1b[2J1", "debate", "m", None, None, "escalate",
                                  provenance=json.dumps({"reason": HOSTILE}))])
        s.put_narrative("q1", HOSTILE, instructions=HOSTILE)
    return {"ws": ws, "tmp": tmp}


COMMANDS = {
    "escalations": ["escalations", "-w", "{ws}"],
    "narratives": ["narratives", "-w", "{ws}"],
    "status": ["status", "-w", "{ws}"],
    "evaluate": ["evaluate", "--runs", "{tmp}/a.run", "--qrels", "{tmp}/qrels.txt"],
    "holes": ["holes", "-w", "{ws}"],
}


@pytest.fixture(scope="module")
def printed(ws):
    out = {}
    for name, args in COMMANDS.items():
        out[name] = qk(*[a.format(**ws) for a in args])
    return out


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_command_succeeds(printed, command):
    assert (printed[command].returncode, "Traceback" in printed[command].stderr) == (0, False), printed[command].stderr


@pytest.mark.parametrize("raw", RAW, ids=[repr(c) for c in RAW])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_raw_control_character_reaches_the_terminal(printed, command, raw):
    p = printed[command]
    assert raw not in p.stderr + p.stdout


def _unfolded(table: str) -> str:
    """A table's text without its frame, spaces and line breaks (long cells are folded)."""
    return "".join(ch for ch in table if ch not in " \n│┃║|")


@pytest.mark.parametrize("command", ["escalations", "narratives"])
def test_the_topic_text_is_shown_with_its_escapes(printed, command):
    assert "\\x1b]0;owned\\x07" in _unfolded(printed[command].stderr)


@pytest.mark.parametrize("command", ["escalations", "narratives"])
def test_markup_in_the_data_is_shown_as_typed(printed, command):
    assert "[bold]x" in printed[command].stderr


@pytest.mark.parametrize("command", ["escalations", "narratives"])
def test_emoji_codes_in_the_data_are_shown_as_typed(printed, command):
    # the console does not turn ``:smile:`` into an emoji (SafeConsole: emoji=False)
    shown_text = _unfolded(printed[command].stderr)
    assert ":smile:" in shown_text and "\U0001f604" not in shown_text


def test_an_error_message_with_a_control_character_is_escaped(ws):
    (ws["tmp"] / "bad.tsv").write_text("q\x1b[2J1\tfirst\nq\x1b[2J1\tsecond\n")
    msg = assert_user_error(qk("init", "-w", ws["tmp"] / "ws2", "--topics", ws["tmp"] / "bad.tsv",
                               "--docs", ws["tmp"] / "docs.jsonl"), "bad.tsv:2")
    assert "q\\x1b[2J1" in msg


def test_json_output_keeps_the_text_exactly(ws):
    p = qk("escalations", "-w", ws["ws"], "--json")
    assert json.loads(p.stdout)["escalations"][0]["query"] == HOSTILE


@pytest.mark.parametrize("text,expected", [
    ("a\x1bb", "a\\x1bb"),
    ("bell\x07", "bell\\x07"),
    ("c1\x9b", "c1\\x9b"),
    ("del\x7f", "del\\x7f"),
    ("cr\r", "cr\\x0d"),
    ("bidi\u202e", "bidi\\u202e"),
    ("line\nnext\ttab", "line\nnext\ttab"),
    ("plain ünïcode 字", "plain ünïcode 字"),
])
def test_escape_controls(text, expected):
    assert escape_controls(text) == expected


def test_shown_escapes_markup():
    assert shown("[/] [bold]") == "\\[/] \\[bold]"
