"""Regenerate the parts of the docs that the code already knows, so that they cannot drift.

Three pages carry generated blocks between markers (the text around them is written by hand):
``docs/judges.md`` (from ``qrelkit methods --json``), ``docs/commands.md`` (from the typer app:
every command and option) and ``docs/plan-files.md`` (from the plan's option table).

    python scripts/gen_docs.py           # rewrite the generated blocks in place
    python scripts/gen_docs.py --check   # exit 1 and name the stale blocks (tests/test_docs.py runs this)

A generated block looks like this in the page; everything between the two markers is replaced::

    <!-- generated: judges (python scripts/gen_docs.py); do not edit by hand -->
    ...
    <!-- end generated: judges -->
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import typing
from pathlib import Path
from typing import Any, Callable, Iterator

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _cell(text: Any) -> str:
    """One Markdown table cell: no newlines, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


# --- the command tree -------------------------------------------------------------------------

def command_tree() -> Any:
    """The click command behind ``qrelkit`` (typer builds it from ``qrelkit.cli.app``)."""
    import typer

    from qrelkit.cli import app

    return typer.main.get_command(app)


def walk_commands(cmd: Any, path: tuple[str, ...] = ("qrelkit",)) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command and group, depth first, in the order of ``--help``."""
    yield path, cmd
    if hasattr(cmd, "list_commands"):
        ctx = _context(cmd)
        for name in cmd.list_commands(ctx):
            yield from walk_commands(cmd.get_command(ctx, name), (*path, name))


def _context(cmd: Any) -> Any:
    return type(cmd).context_class(cmd) if hasattr(type(cmd), "context_class") else None


def _default(p: Any) -> str:
    if getattr(p, "is_flag", False):
        return "" if p.default is None else ("on" if p.default else "off")
    d = p.default
    if d is None or d == () or d == []:
        return ""
    if isinstance(d, (list, tuple)):
        return " ".join(map(str, d))
    return str(d)


def _type(p: Any) -> str:
    """The option's value type as the user writes it, with its bounds; ``...`` when it takes several."""
    if getattr(p, "is_flag", False):
        return "flag"
    ann = p.type_descriptor.annotation
    many = typing.get_origin(ann) in (list, tuple)
    if many:
        ann = typing.get_args(ann)[0]
    name = {Path: "PATH", int: "INT", float: "FLOAT", str: "TEXT", bool: "BOOL"}.get(ann, getattr(ann, "__name__", str(ann)))
    return name + (f" ({_bounds(p)})" if _bounds(p) else "") + (" ..." if many or p.multiple else "")


def _bounds(p: Any) -> str:
    return ", ".join(f"{k} {v}" for k, v in (("≥", getattr(p, "min", None)), ("≤", getattr(p, "max", None)))
                     if v is not None)


def gen_commands() -> str:
    """Every command: its help, then a table of its arguments and options."""
    out = []
    for path, cmd in walk_commands(command_tree()):
        if len(path) == 1:
            continue
        heading = "#" * min(len(path), 4)
        out.append(f"{heading} `{' '.join(path)}`\n")
        help_text = (cmd.help or "").strip()
        if help_text:
            out.append(_dedent(help_text) + "\n")
        if hasattr(cmd, "list_commands"):
            subs = ", ".join(f"`{n}`" for n in cmd.list_commands(_context(cmd)))
            out.append(f"Subcommands: {subs}.\n")
        rows = []
        for p in cmd.params:
            if p.param_type_name == "argument":
                rows.append((f"`{p.name.upper()}` (argument)", _type(p), "(required)" if p.required else "", p.help or ""))
                continue
            names = " / ".join(f"`{o}`" for o in (*p.opts, *p.secondary_opts))
            rows.append((names, _type(p), _default(p) + (" (required)" if p.required else ""), p.help or ""))
        if rows:
            out.append("| option | type | default | meaning |\n|---|---|---|---|")
            out.extend("| " + " | ".join(_cell(c) if i else c for i, c in enumerate(r)) + " |" for r in rows)
            out.append("")
    return "\n".join(out).rstrip() + "\n"


def _dedent(text: str) -> str:
    return "\n".join(line.strip() for line in text.splitlines())


# --- the judges -------------------------------------------------------------------------------

def methods_json() -> dict:
    """What ``qrelkit methods --json`` prints, by running that command."""
    from typer.testing import CliRunner

    from qrelkit.cli import app

    result = CliRunner().invoke(app, ["methods", "--json"])
    if result.exit_code != 0:
        raise SystemExit(f"qrelkit methods --json failed ({result.exit_code}): {result.output}")
    return json.loads(result.stdout)


def gen_judges() -> str:
    out = []
    for m in methods_json()["methods"]:
        kinds = [k for k, on in (("a prefilter: write it in front of a judge, `NAME+METHOD`", m["prefilter"]),
                                 ("learns from people's labels", m["learns"]),
                                 ("decides in batches, with its own budget for people", m["batch"])) if on]
        out.append(f"### `{m['name']}`\n\n{m['summary']}" + (f" ({'; '.join(kinds)}.)" if kinds else "") + "\n")
        if m["params"]:
            out.append("| parameter | default | meaning |\n|---|---|---|")
            out.extend(f"| `{p['name']}` | `{_cell(p['default'])}` | {_cell(p['help'])} |" for p in m["params"])
        else:
            out.append("No parameters.")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


# --- plan files -------------------------------------------------------------------------------

def plan_options() -> list[Any]:
    """Every plan key, in file order: the option table's entries with a plan section
    (:data:`qrelkit.job.options.OPTIONS`, the one declaration of the job's options)."""
    from qrelkit.job.options import OPTIONS

    return [o for o in OPTIONS if o.section]


def _bounds_text(bounds: Any) -> str:
    """A key's bounds as written: already text, or a (min, max) pair with None for no bound."""
    if not bounds:
        return ""
    if isinstance(bounds, str):
        return bounds
    low, high = (tuple(bounds) + (None, None))[:2]
    return ", ".join(f"{k} {v}" for k, v in (("≥", low), ("≤", high)) if v is not None)


def _plan_default(value: Any) -> str:
    if value is None or value == ():
        return "—"
    return f"`{json.dumps(list(value) if isinstance(value, tuple) else value)}`"


def gen_plan() -> str:
    out = []
    by_section: dict[str, list[Any]] = {}
    for key in plan_options():
        by_section.setdefault(key.section, []).append(key)
    for section, keys in by_section.items():
        out.append(f"### `[{section}]`\n\n| key | type | default | command-line option | meaning |\n|---|---|---|---|---|")
        for k in keys:
            opt = (f"`{k.cli_flag}` ({', '.join(sorted(k.commands))})" if k.commands else "plan only")
            bounds = _bounds_text(getattr(k, "bounds", ""))
            typ = k.type_name + (f" ({bounds})" if bounds else "")
            out.append(f"| `{k.name}` | {_cell(typ)} | {_plan_default(k.default)} | {opt} | {_cell(k.help)} |")
        out.append("")
    out.append("### Example (from `qrelkit/job/plan.py`)\n\n```toml\n" + plan_example() + "```")
    return "\n".join(out).rstrip() + "\n"


def plan_example() -> str:
    """The example plan of ``qrelkit.job.plan``'s docstring (the indented block after ``Example::``)."""
    from qrelkit.job import plan as plan_mod

    doc = plan_mod.__doc__ or ""
    block = doc.split("Example::", 1)[1] if "Example::" in doc else ""
    lines = block.splitlines()
    body = []
    for line in lines[1:]:
        if line and not line.startswith("    "):
            break
        body.append(line[4:])
    return "\n".join(body).strip("\n") + "\n"


# --- the pages --------------------------------------------------------------------------------

GENERATORS: dict[str, tuple[str, Callable[[], str]]] = {
    "judges": ("judges.md", gen_judges),
    "commands": ("commands.md", gen_commands),
    "plan": ("plan-files.md", gen_plan),
}

_BLOCK = re.compile(r"(<!-- generated: (?P<name>[\w-]+) [^\n]*-->\n)(?P<body>.*?)(<!-- end generated: (?P=name) -->)",
                    re.S)


def render(page_text: str, generated: dict[str, str]) -> str:
    """The page with each generated block's body replaced by its freshly generated text."""
    return _BLOCK.sub(lambda m: m.group(1) + "\n" + generated[m.group("name")] + "\n" + m.group(4), page_text)


def stale_pages(docs: Path = DOCS) -> dict[Path, tuple[str, str]]:
    """Pages whose generated blocks differ from what the code generates now: path -> (committed, fresh)."""
    stale = {}
    for page, names in _pages().items():
        path = docs / page
        text = path.read_text(encoding="utf-8")
        missing = [n for n in names if f"<!-- generated: {n} " not in text]
        if missing:
            raise SystemExit(f"{path}: no generated block named {', '.join(missing)}")
        fresh = render(text, {n: GENERATORS[n][1]() for n in names})
        if fresh != text:
            stale[path] = (text, fresh)
    return stale


def _pages() -> dict[str, list[str]]:
    pages: dict[str, list[str]] = {}
    for name, (page, _) in GENERATORS.items():
        pages.setdefault(page, []).append(name)
    return pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say which pages are stale (exit 1)")
    args = parser.parse_args(argv)
    stale = stale_pages()
    for path, (_, fresh) in stale.items():
        if args.check:
            print(f"stale: {path.relative_to(ROOT)} (run python scripts/gen_docs.py)", file=sys.stderr)
        else:
            path.write_text(fresh, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}", file=sys.stderr)
    return 1 if (stale and args.check) else 0


if __name__ == "__main__":
    sys.exit(main())
