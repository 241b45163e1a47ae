"""Spec strings: the one syntax in which a configured thing is named.

    NAME                        debate
    NAME(key=value, ...)        debate(rounds=2, adjudicator=llm)
    NAME(...)+NAME(...)         prefilter(keep=0.9)+debate            (a chain)

Parsed the ir_measures way, by Python's own parser (:mod:`ast`), so quoting,
nesting and error positions come for free instead of from a hand-written
scanner. Two things a spec may hold that Python's expression grammar does not
are rewritten first, by one regular expression that leaves quoted text alone:
a bare value that is not a Python literal (``budget=12.5%``,
``instructor=openai:m@http://h/v1``, which is how canonical ids write them)
becomes a string literal, and a hyphen inside a name (``zero-shot``) becomes
``__``. Every value therefore reaches its parameter as the text the user wrote
(quotes removed), and a parameter table (:class:`Param`) turns it into a value:
the same table validates, fills defaults and documents.

The canonical text of a spec (:func:`canonical_text`) sorts parameters and
writes numbers with ``%g``: it is what stored method ids are made of, so it
must not change.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional

from qrelkit.errors import UsageError


@dataclass(frozen=True)
class Param:
    """One spec parameter: its default and how its text becomes a value.

    ``omit_default``: a parameter added to a method after judgments were stored
    under its id is left out of the canonical id while it has its default, so
    those ids (and the resumes and merges keyed on them) stay valid."""

    default: Any
    parse: Callable[[str], Any]
    help: str = ""
    omit_default: bool = False
    # The value the method behaved with before this parameter existed or its default changed,
    # or a tuple of them, oldest first, when the default changed more than once (a parameter whose
    # values are tuples declares one earlier value as a 1-tuple of it). A spec that does not give
    # the parameter resumes a workspace judged under any of them (see
    # qrelkit.judges.spec.JudgeSpec.earlier): a new default never re-judges old work.
    legacy: Any = None
    # A value the canonical id leaves out, so that ids stored before the parameter existed
    # keep meaning what they meant (``prompt=v1``: the id without ``prompt``).
    absent: Any = None

    @property
    def previous(self) -> tuple:
        """The defaults this parameter had before today's, the most recent first (``legacy``)."""
        if self.legacy is None:
            return ()
        return tuple(reversed(self.legacy if isinstance(self.legacy, tuple) else (self.legacy,)))


def integer(lo: int = 0, hi: Optional[int] = None) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise ValueError(f"expected an integer, got {text!r}") from None
        if v < lo or (hi is not None and v > hi):
            raise ValueError(f"{v} is out of range [{lo}, {hi if hi is not None else '...'}]")
        return v

    return parse


def number(lo: float = float("-inf"), hi: float = float("inf"), auto: bool = False) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        if auto and text == "auto":
            return "auto"
        try:
            v = float(text)
        except ValueError:
            raise ValueError(f"expected a number{' or auto' if auto else ''}, got {text!r}") from None
        if not lo <= v <= hi:
            raise ValueError(f"{v:g} is out of range [{lo:g}, {hi:g}]")
        return v

    return parse


def choice(*options: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in options:
            raise ValueError(f"{text!r} is not one of {', '.join(options)}")
        return text

    return parse


def boolean(text: str) -> bool:
    t = text.strip().lower()
    if t in ("true", "yes", "1", "on"):
        return True
    if t in ("false", "no", "0", "off"):
        return False
    raise ValueError(f"expected true or false, got {text!r}")


def fmt(v: Any) -> str:
    """A value as a canonical id writes it."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, tuple):
        return "[" + ",".join(fmt(x) for x in v) + "]"
    return str(v)


def canonical_text(name: str, params: tuple[tuple[str, Any], ...]) -> str:
    """``name(k=v,...)`` with the parameters in the given (sorted) order; just ``name`` without any."""
    return name + ("(" + ",".join(f"{k}={fmt(v)}" for k, v in params) + ")" if params else "")


@dataclass(frozen=True)
class Call:
    """One part of a spec as written: a name and its ``key=value`` texts, in order."""

    name: str
    args: tuple[tuple[str, str], ...] = ()


# A quoted string (kept), a bracketed list after '=' (quoted whole: its parameter splits it),
# a bare value after '=' (quoted), or a hyphenated name ('-' -> '__').
_LEX = re.compile(
    r"""(?P<str>"[^"]*"|'[^']*')
      | (?P<leq>=\s*)(?P<list>\[[^\]]*\])
      | (?P<eq>=\s*)(?P<bare>[^\s'",()][^,()]*?)(?=\s*[,)])
      | (?P<name>[A-Za-z_]\w*(?:-\w+)+)""",
    re.X,
)


def _as_python(text: str) -> str:
    def sub(m: re.Match) -> str:
        if m["str"]:
            return m["str"]
        if m["list"]:
            return m["leq"] + repr(m["list"])
        if m["bare"]:
            return m["eq"] + repr(m["bare"])
        return m["name"].replace("-", "__")

    return _LEX.sub(sub, text)


def parse_chain(text: str, what: str = "spec") -> tuple[Call, ...]:
    """``"a(k=1)+b"`` -> ``(Call('a', (('k', '1'),)), Call('b'))``; names lower-cased, keys too.

    ``what`` names the spec in error messages (``method spec``, ``model option``)."""
    if not text or not text.strip():
        raise UsageError(f"empty {what}")
    try:
        tree = ast.parse(_as_python(text.strip()), mode="eval").body
    except SyntaxError as e:
        raise UsageError(f"{what} {text!r}: cannot read it ({e.msg}); expected NAME or NAME(key=value, ...)") from None
    return tuple(_call(node, text, what) for node in _links(tree))


def _links(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _links(node.left) + _links(node.right)
    return [node]


def _call(node: ast.AST, whole: str, what: str) -> Call:
    if isinstance(node, ast.Name):
        return Call(_name(node.id))
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        raise UsageError(f"{what} {whole!r}: cannot read {ast.unparse(node)!r}; expected NAME or NAME(key=value, ...)")
    if node.args:
        raise UsageError(f"{what} {whole!r}: {ast.unparse(node.args[0])!r} is not key=value")
    args = []
    for kw in node.keywords:
        if kw.arg is None or not (isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str)):
            raise UsageError(f"{what} {whole!r}: {ast.unparse(kw)!r} is not key=value")
        args.append((kw.arg.lower(), kw.value.value.strip()))
    return Call(_name(node.func.id), tuple(args))


def _name(identifier: str) -> str:
    return identifier.replace("__", "-").lower()


def bind(declared: Mapping[str, Param], args: tuple[tuple[str, str], ...], where: str) -> dict[str, Any]:
    """Every declared parameter's value: the given text parsed, else the default.

    ``where`` prefixes error messages (``method spec 'x': debate``)."""
    given: dict[str, Any] = {}
    for key, text in args:
        if key not in declared:
            known = ", ".join(sorted(declared)) or "none"
            raise UsageError(f"{where} has no parameter {key!r} (parameters: {known})")
        if key in given:
            raise UsageError(f"{where}: {key!r} given twice")
        try:
            given[key] = declared[key].parse(text)
        except ValueError as e:
            raise UsageError(f"{where}: {key}: {e}") from None
    return {k: given.get(k, p.default) for k, p in sorted(declared.items())}


def listing(item: Callable[[str], Any], lo: int = 1, hi: int = 16) -> Callable[[str], tuple]:
    """A parameter holding one value or ``[v1,v2,...]`` (each read by ``item``) -> a tuple."""

    def parse(text: str) -> tuple:
        inner = text[1:-1] if text.startswith("[") and text.endswith("]") else text
        items = tuple(item(x.strip("'\"")) for x in split_list(inner))
        if not lo <= len(items) <= hi:
            raise ValueError(f"expected {lo} to {hi} values, got {len(items)}")
        return items

    return parse


def split_list(text: str) -> list[str]:
    """A comma-separated list whose items may hold commas inside brackets or
    quotes (``P(rel=2)@10,nDCG@10``): the items, stripped, empty ones dropped."""
    items, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    items.append("".join(cur))
    return [i.strip() for i in items if i.strip()]
