"""Data on the terminal: control characters escaped, markup shown as typed.

Topic texts, document ids, run tags and narratives come from files that anyone
may have written. Printed raw, an ``ESC]0;...`` sequence retitles the terminal,
``ESC[2J`` clears it and a carriage return overwrites what was printed; a ``[/]`` in a topic is rich markup and used to end `escalations` in a
MarkupError traceback. So a value from the data goes through :func:`shown`
before it reaches a table or a message, and the console itself
(:class:`SafeConsole`) escapes control characters in every string it renders,
so that a printer that forgets :func:`shown` still cannot write one.

Escaped are the C0 controls but newline and tab (which the tables lay out),
DEL, the C1 controls (``\\x9b`` is a one-byte CSI) and the Unicode bidirectional
overrides and isolates (they reorder what the terminal shows); each is written
as its Python escape (``\\x1b``, ``\\u202e``), so the value can still be read.
"""
from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.text import Text

_KEPT = frozenset("\n\t")
_BIDI = frozenset(range(0x202A, 0x202F)) | frozenset(range(0x2066, 0x206A))
_ESCAPES = {
    c: (f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}")
    for c in (*range(0x20), *range(0x7F, 0xA0), *_BIDI)
    if chr(c) not in _KEPT
}


def escape_controls(text: str) -> str:
    """``text`` with its control characters written as escapes (see module doc)."""
    return text.translate(_ESCAPES) if not text.isprintable() else text


def shown(value: object) -> str:
    """A value from the data, ready for rich: controls escaped and ``[`` not taken as markup."""
    return escape(escape_controls(str(value)))


def shown_text(value: object, style: str = "") -> Text:
    """The same as a :class:`rich.text.Text` (never parsed as markup)."""
    return Text(escape_controls(str(value)), style=style)


class SafeConsole(Console):
    """A rich console whose every rendered string has its control characters escaped:
    markup and styles still work (they are not control characters; rich adds the
    terminal's own escape sequences after this point)."""

    def __init__(self, *args, **kwargs) -> None:
        # ``:name:`` is text, not an emoji code: a topic or narrative is shown as typed (and
        # rich's emoji table is not loaded at the first message of every command)
        kwargs.setdefault("emoji", False)
        super().__init__(*args, **kwargs)

    def render_str(self, text: str, **kwargs) -> Text:  # type: ignore[override]
        return super().render_str(escape_controls(text), **kwargs)
