"""``qrelkit narratives``: list, edit and (re)generate relevance narratives.

Narratives are induced from people's labels by the ``narrative`` judge (and
``debate(narrative=true)``); people read and correct them here. An edited
narrative is never replaced by a judge, only by ``generate --force``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Optional

import typer
from rich.table import Table

from qrelkit.cli._app import JsonOpt, WorkspaceOpt, app, console, print_json, require_workspace
from qrelkit.cli._shown import shown

narratives_app = typer.Typer(
    help="Relevance narratives induced from people's labels: list (default), edit, generate.",
    invoke_without_command=True,
)
app.add_typer(narratives_app, name="narratives")


def _row(qid: str, query: str, row: dict) -> dict:
    return {
        "qid": qid,
        "query": query,
        "narrative": row["narrative"],
        "instructions": row["instructions"],
        "variant": row["variant"],
        "model": row["model"],
        "edited": row["edited"],
        "provenance": row["provenance"],
    }


@narratives_app.callback()
def narratives(ctx: typer.Context, workspace: Optional[Path] = WorkspaceOpt, as_json: bool = JsonOpt) -> None:
    """List the workspace's narratives (with a subcommand: edit or generate them)."""
    if ctx.invoked_subcommand is not None:
        return
    from qrelkit.store import Store

    ws = require_workspace(workspace)
    with Store.open(ws) as store:
        topics = store.topics()
        items = [_row(q, topics[q].text if q in topics else "", r) for q, r in store.narratives().items()]
    if as_json:
        print_json({"narratives": items, "count": len(items)})
        return
    table = Table(title=f"{len(items)} narrative(s)")
    for col in ("qid", "query", "variant", "model", "edited", "narrative", "instructions"):
        table.add_column(col, overflow="fold")
    for it in items:
        table.add_row(
            shown(it["qid"]),
            shown(it["query"]),
            shown(it["variant"]),
            shown(it["model"]),
            "yes" if it["edited"] else "no",
            shown(it["narrative"]),
            shown(it["instructions"]),
        )
    console.print(table)


@narratives_app.command("edit")
def edit(
    qid: str = typer.Argument(..., help="Topic id."),
    workspace: Optional[Path] = WorkspaceOpt,
    text: Optional[str] = typer.Option(None, "--text", help="The new narrative (no editor)."),
    instructions: Optional[str] = typer.Option(
        None, "--instructions", help="The new judging instructions (no editor; kept when not given)."
    ),
    file: Optional[Path] = typer.Option(
        None, "--file", help="Read the narrative from a file (plain text, or the editor's format)."
    ),
    as_json: bool = JsonOpt,
) -> None:
    """Edit a topic's narrative in $EDITOR (or with --text/--file); it is then kept as edited."""
    import click

    from qrelkit.errors import UsageError
    from qrelkit.judges.narrative_edits import edit_text, parse_edit, save_edit
    from qrelkit.store import Store

    ws = require_workspace(workspace)
    if text is not None and file is not None:
        raise UsageError("give --text or --file, not both")
    with Store.open(ws) as store:
        topic = store.topics().get(qid)
        if topic is None:
            raise UsageError(f"no topic {qid!r} in {ws}")
        row = store.narratives().get(qid)
        if file is not None:
            from qrelkit.data._open import read_text

            narrative, instr = parse_edit(read_text(file))  # a FIFO, a device, binary: one line naming it
            via = "file"
        elif text is not None or instructions is not None:
            narrative, instr, via = (
                (text if text is not None else (row or {}).get("narrative", "")),
                None,
                "text",
            )
        else:
            edited = click.edit(edit_text(qid, topic.text, row), extension=".md", require_save=True)
            if edited is None:
                console.print("no change (the editor closed without saving)")
                if as_json:
                    print_json({"qid": qid, "changed": False})
                return
            narrative, instr = parse_edit(edited)
            via = "editor"
        if instructions is not None:
            instr = instructions
        saved = save_edit(store, qid, narrative, instr, via=via)
    if as_json:
        print_json({"changed": True, **_row(qid, topic.text, saved)})
        return
    console.print(f"narrative of topic {qid} saved (edited: kept when narratives are regenerated)")


@narratives_app.command("generate")
def generate(
    workspace: Optional[Path] = WorkspaceOpt,
    model: str = typer.Option("local", "--model", help="Instructor model spec: local, openai:MODEL@URL."),
    qids: Optional[list[str]] = typer.Option(None, "--qid", help="Only these topics (repeatable)."),
    variant: str = typer.Option("all", "--variant", help="all | relevant | nonrelevant judged documents."),
    task: str = typer.Option("auto", "--task", help="auto|answer|graded: how people's labels are read."),
    threshold: int = typer.Option(2, "--threshold", min=1, max=3, help="Binary threshold on grades."),
    docs: str = typer.Option("all", "--docs", help="all: every judged document (in batches that fit --budget); "
                             "N (1-20): a seeded sample of N, as before."),
    budget: str = typer.Option("auto", "--budget", help="With --docs all: tokens of one instructor prompt "
                               "(auto: 1400 for the embedded model, 6000 for others)."),
    seed: int = typer.Option(0, "--seed", min=0, help="Order (all) or sampling (N) of those documents."),
    force: bool = typer.Option(
        False, "--force", help="Regenerate every chosen topic, edited narratives too."
    ),
    as_json: bool = JsonOpt,
) -> None:
    """Induce narratives from people's labels now (judges do this on demand)."""
    from qrelkit.errors import UsageError
    from qrelkit.judges.narrative import VARIANTS, Reading, budget_value, docs_count, induce_narratives
    from qrelkit.judging.selection import resolve_task
    from qrelkit.llm import make_client
    from qrelkit.store import Store

    ws = require_workspace(workspace)
    if variant not in VARIANTS:
        raise UsageError(f"--variant {variant!r}: choose from {', '.join(VARIANTS)}")
    try:
        reading = Reading(docs_count(docs), seed=seed, budget=budget_value(budget))
    except ValueError as e:
        raise UsageError(f"--docs {docs} --budget {budget}: {e}") from None
    with Store.open(ws) as store:
        tsk = resolve_task(store, task, threshold)
        client = make_client(model, store=store)

        async def go():
            try:
                return await induce_narratives(
                    store, client, tsk, qids or None, variant, force=force, reading=reading
                )
            finally:
                await client.aclose()

        out = asyncio.run(go())
    if as_json:
        print_json(out)
        return
    console.print(
        f"generated {len(out['generated'])}, reused {len(out['reused'])}, "
        f"fallback to the topic's own text {len(out['fallback'])}, failed {len(out['failed'])} "
        f"({out['calls']} calls, ${out['cost_usd']:.4f})"
    )
    for q, why in out["failed"].items():
        console.print(f"  {q}: {why}")
