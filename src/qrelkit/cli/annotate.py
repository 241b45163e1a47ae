"""``qrelkit annotate ...``: serve the annotation app, manage annotators, export votes."""
from __future__ import annotations

import socket
from pathlib import Path
from typing import Optional

import typer

from qrelkit.cli._app import JsonOpt, WorkspaceOpt, app, console, print_json, require_workspace, writing
from qrelkit.cli._shown import shown

annotate_app = typer.Typer(
    help="Let people judge escalations and the people's share in a small web app.", no_args_is_help=True
)
users_app = typer.Typer(help="Annotators and their one-time login links.", no_args_is_help=True)
annotate_app.add_typer(users_app, name="users")
app.add_typer(annotate_app, name="annotate")

HostOpt = typer.Option("127.0.0.1", "--host", help="Address the server listens on (and login links point to).")
PortOpt = typer.Option(8000, "--port", help="Port the server listens on (and login links point to).")


def _open(workspace: Optional[Path]):
    from qrelkit.store import Store

    return Store.open(require_workspace(workspace))


def _sync_summary(r) -> str:
    s = f"tasks: {r.escalations} escalations, {r.people} people's share, {r.attention} attention checks ({r.added} new)"
    if r.missing:
        s += f"; {r.missing} cases skipped (topic or document missing from the workspace)"
    return s


@annotate_app.command("serve")
def serve(
    workspace: Optional[Path] = WorkspaceOpt,
    host: str = HostOpt,
    port: int = PortOpt,
    votes: Optional[int] = typer.Option(None, "--votes", help="Votes per case (saved in the project settings)."),
    attention: Optional[float] = typer.Option(
        None, "--attention", help="Share of attention-check items (saved in the project settings)."
    ),
) -> None:
    """Sync the task queue from the workspace, then serve the app until Ctrl-C."""
    import uvicorn

    from qrelkit.annotate import create_app, load_settings, save_settings, sync_tasks
    from qrelkit.errors import UsageError

    ws = require_workspace(workspace)
    if not 0 <= port <= 65535:
        raise UsageError(f"--port {port} is out of range (0 to 65535)")
    with _open(ws) as store:
        s = load_settings(store)
        if votes is not None or attention is not None:
            s = s.updated(votes=votes, attention=attention)
            save_settings(store, s)
        r = sync_tasks(store, votes_needed=s.votes, attention_share=s.attention, seed=s.seed)
        n_users = store.active_annotator_count()
    console.print(_sync_summary(r))
    if not n_users:
        console.print(f"no annotators yet: `qrelkit annotate users add NAME [--admin] -w {ws}` prints a login link")
    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
    except OSError as e:
        raise UsageError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    console.print(f"serving http://{host}:{port}/ (Ctrl-C stops)")
    from qrelkit.annotate.app import uvicorn_config

    uvicorn.Server(uvicorn_config(create_app(ws), host, port)).run()


@annotate_app.command("sync")
def sync(workspace: Optional[Path] = WorkspaceOpt, json_out: bool = JsonOpt) -> None:
    """Create tasks for new escalations / people's cases and re-derive decisions (serve does this too)."""
    from qrelkit.annotate import load_settings, sync_tasks

    with _open(workspace) as store:
        s = load_settings(store)
        r = sync_tasks(store, votes_needed=s.votes, attention_share=s.attention, seed=s.seed)
    if json_out:
        print_json(r.__dict__)
    else:
        console.print(_sync_summary(r))


@users_app.command("add")
def users_add(
    name: str = typer.Argument(..., help="The annotator's name (unique)."),
    admin: bool = typer.Option(False, "--admin", help="May see the admin pages (progress, agreement, attention)."),
    workspace: Optional[Path] = WorkspaceOpt,
    host: str = HostOpt,
    port: int = PortOpt,
    json_out: bool = JsonOpt,
) -> None:
    """Add an annotator and print their one-time login link."""
    from qrelkit.annotate.auth import add_user

    with _open(workspace) as store:
        link = add_user(store, name, admin=admin)
        _print_link(store, link, host, port, json_out)


@users_app.command("link")
def users_link(
    name: str = typer.Argument(..., help="An existing annotator."),
    workspace: Optional[Path] = WorkspaceOpt,
    host: str = HostOpt,
    port: int = PortOpt,
    json_out: bool = JsonOpt,
) -> None:
    """Issue a new one-time login link for an existing annotator (the old unused one stops working)."""
    from qrelkit.annotate.auth import new_link

    with _open(workspace) as store:
        link = new_link(store, name)
        _print_link(store, link, host, port, json_out)


@users_app.command("restore")
def users_restore(
    name: str = typer.Argument(..., help="A revoked annotator."),
    workspace: Optional[Path] = WorkspaceOpt,
    host: str = HostOpt,
    port: int = PortOpt,
    json_out: bool = JsonOpt,
) -> None:
    """Reinstate a revoked annotator and print a new one-time login link (their votes never left)."""
    from qrelkit.annotate.auth import restore_user

    with _open(workspace) as store:
        link = restore_user(store, name)
        _print_link(store, link, host, port, json_out)


def _print_link(store, link, host: str, port: int, json_out: bool) -> None:
    from qrelkit.annotate import load_settings

    s = load_settings(store)
    url = link.url(host, port, public_url=s.public_url)
    if json_out:
        print_json({"name": link.name, "login_url": url, "token": link.token, "expires_days": s.link_days})
    else:
        console.print(f"login link for {link.name} (works once, within {s.link_days:g} days; send it privately):")
        typer.echo(url)


@users_app.command("revoke")
def users_revoke(
    name: str = typer.Argument(...), workspace: Optional[Path] = WorkspaceOpt, json_out: bool = JsonOpt
) -> None:
    """Revoke an annotator: their link and sessions stop working; their votes stay."""
    from qrelkit.annotate.auth import revoke_user

    with _open(workspace) as store:
        revoke_user(store, name)
    if json_out:
        print_json({"name": name, "revoked": True})
    else:
        console.print(f"revoked {name}")


@users_app.command("list")
def users_list(workspace: Optional[Path] = WorkspaceOpt, json_out: bool = JsonOpt) -> None:
    """List annotators with their vote counts."""
    from rich.table import Table

    from qrelkit.annotate.auth import list_users

    with _open(workspace) as store:
        users = list_users(store)
        votes = store.votes_per_user()
    rows = [
        {"name": u.name, "is_admin": u.is_admin, "revoked": u.revoked, "link_pending": u.link_pending,
         "votes": votes.get(u.id, 0)}
        for u in users
    ]
    if json_out:
        print_json({"users": rows})
        return
    t = Table("name", "admin", "revoked", "link pending", "votes")
    for r in rows:
        t.add_row(shown(r["name"]), "yes" if r["is_admin"] else "", "yes" if r["revoked"] else "",
                  "yes" if r["link_pending"] else "", str(r["votes"]))
    console.print(t)


@annotate_app.command("export")
def export(
    workspace: Optional[Path] = WorkspaceOpt,
    out: Path = typer.Option(..., "--out", help="Folder for votes.jsonl and decided.qrels."),
    json_out: bool = JsonOpt,
) -> None:
    """Write every vote (votes.jsonl) and the decided labels (decided.qrels, TREC format)."""
    from qrelkit.annotate.export import export_annotations

    with _open(workspace) as store, writing(out, folder=True):
        r = export_annotations(store, out)
    if json_out:
        print_json(r.to_json())
    else:
        console.print(
            f"{r.votes} votes ({r.attention_votes} attention checks, {r.excluded_votes} excluded) -> {r.votes_path}\n"
            f"{r.decided} decided labels -> {r.qrels_path}"
        )


@annotate_app.command("settings")
def settings_cmd(
    workspace: Optional[Path] = WorkspaceOpt,
    hide_history: Optional[bool] = typer.Option(
        None, "--hide-history/--show-history", help="Hide the AI debate from annotators (for comparisons)."
    ),
    votes: Optional[int] = typer.Option(None, "--votes", help="Votes per case."),
    attention: Optional[float] = typer.Option(None, "--attention", help="Share of attention-check items."),
    exclude_failed: Optional[bool] = typer.Option(
        None, "--exclude-failed/--keep-failed", help="Drop the votes of annotators who fail attention checks."
    ),
    min_pass_rate: Optional[float] = typer.Option(None, "--min-pass-rate", help="Attention pass rate below which an annotator fails."),
    min_checks: Optional[int] = typer.Option(None, "--min-checks", help="Checks needed before an annotator can fail."),
    attention_labels: Optional[str] = typer.Option(
        None, "--attention-labels", help="Known labels attention checks use: relevant (default, as in DREAM) | both."
    ),
    history_ab: Optional[str] = typer.Option(
        None, "--history-ab", help="A/B: off | case (half the escalations with history) | annotator (half the people)."
    ),
    task: Optional[str] = typer.Option(None, "--task", help="auto | answer | graded."),
    threshold: Optional[int] = typer.Option(None, "--threshold", help="Graded task: relevant = grade >= threshold."),
    secure_cookie: Optional[bool] = typer.Option(
        None, "--secure-cookie/--no-secure-cookie", help="Secure flag on the session cookie."
    ),
    link_days: Optional[float] = typer.Option(None, "--link-days", help="Days a login link stays usable."),
    public_url: Optional[str] = typer.Option(
        None, "--public-url", help="Where people reach the app behind a proxy (https://host[:port]); '' clears it."
    ),
    trust_proxy: Optional[bool] = typer.Option(
        None, "--trust-proxy/--no-trust-proxy", help="Take scheme and host from X-Forwarded-Proto/-Host."
    ),
    json_out: bool = JsonOpt,
) -> None:
    """Show or change the project's annotation settings (a running server picks them up)."""
    from qrelkit.annotate import load_settings, save_settings, sync_tasks

    changes = dict(
        hide_history=hide_history, votes=votes, attention=attention, exclude_failed=exclude_failed,
        min_pass_rate=min_pass_rate, min_checks=min_checks, task=task, threshold=threshold,
        attention_labels=attention_labels, history_ab=history_ab,
        secure_cookie=secure_cookie, link_days=link_days, public_url=public_url, trust_proxy=trust_proxy,
    )
    with _open(workspace) as store:
        s = load_settings(store)
        if any(v is not None for v in changes.values()):
            s = s.updated(**changes)
            save_settings(store, s)
            if store.task_count():
                # votes, exclusion and task rules change which labels the votes imply
                sync_tasks(store, votes_needed=s.votes, attention_share=s.attention, seed=s.seed)
    if json_out:
        print_json(s.to_dict())
    else:
        for k, v in s.to_dict().items():
            console.print(f"{k} = {v}")


@annotate_app.command("ab")
def ab_cmd(workspace: Optional[Path] = WorkspaceOpt, json_out: bool = JsonOpt) -> None:
    """People with vs without the debate history: Fleiss' kappa and agreement with the original qrels per arm."""
    from rich.table import Table

    from qrelkit.annotate.ab import ab_report
    from qrelkit.annotate.settings import load_settings

    with _open(workspace) as store:
        arms = [a.to_dict() for a in ab_report(store, load_settings(store))]
    if json_out:
        print_json({"arms": arms})
        return
    table = Table(title="escalations: history shown vs not (valid votes)")
    cols = ["cases", "votes", "fleiss_kappa", "vote_agreement", "majority_agreement"]
    table.add_column("history")
    for c in cols:
        table.add_column(c.replace("_", " "), justify="right")
    for a in arms:
        table.add_row("shown" if a["history_shown"] else "hidden", *("-" if a[c] is None else str(a[c]) for c in cols))
    console.print(table)
