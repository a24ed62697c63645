"""`tooldeck sessions list|show ID`: the stored sessions (spec L4, C)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from tooldeck.cli.app import app
from tooldeck.cli.common import ConfigOption, JsonOption, console, fail, load_deck, print_json

if TYPE_CHECKING:
    from tooldeck.agent.sessions import SessionStore

sessions_app = typer.Typer(help="Stored agent sessions: list them, show one.", no_args_is_help=True)
app.add_typer(sessions_app, name="sessions")


def open_store(config: Path | None) -> SessionStore:
    from tooldeck.agent.services import tooldeck_home
    from tooldeck.agent.sessions import SessionStore
    from tooldeck.errors import SessionError

    cfg = load_deck(config).config
    db = cfg.resolve_path(cfg.agent.sessions_db) if cfg.agent.sessions_db else None
    path = db or tooldeck_home(cfg.home, base_dir=cfg.base_dir) / "state.db"
    try:
        return SessionStore(path)
    except SessionError as exc:
        fail(str(exc))


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ts))


@sessions_app.command("list")
def list_command(
    limit: int = typer.Option(50, "--limit", "-n", min=1, help="How many, newest first."),
    all_: bool = typer.Option(False, "--all", help="Include sub-agent sessions."),
    config: Path | None = ConfigOption,
    as_json: bool = JsonOption,
) -> None:
    """Stored sessions, most recently active first."""
    with open_store(config) as store:
        rows = store.list_sessions(limit=limit, include_children=all_)
    if as_json:
        print_json(
            [
                {
                    "id": r.id,
                    "title": r.title,
                    "model": r.model,
                    "status": r.status,
                    "created_at": r.created_at,
                    "updated_at": r.updated_at,
                    "messages": r.message_count,
                    "parent_id": r.parent_id,
                }
                for r in rows
            ]
        )
        return
    from rich.table import Table

    table = Table(title="Sessions")
    for col in ("id", "updated (UTC)", "status", "messages", "model", "title"):
        table.add_column(col)
    for r in rows:
        table.add_row(r.id, _when(r.updated_at), r.status, str(r.message_count), r.model or "", r.title or "")
    console().print(table)


@sessions_app.command("show")
def show_command(
    session_id: str = typer.Argument(..., help="Session id (or a unique prefix)."),
    config: Path | None = ConfigOption,
    as_json: bool = JsonOption,
) -> None:
    """One session: its messages, state and any pending question."""
    from tooldeck.errors import SessionError

    with open_store(config) as store:
        try:
            s = store.load(session_id)
        except SessionError as exc:
            fail(str(exc))
    if as_json:
        print_json(
            {
                "id": s.id,
                "title": s.title,
                "model": s.model,
                "status": s.status,
                "parent_id": s.parent_id,
                "created_at": s.created_at,
                "updated_at": s.updated_at,
                "system": s.system,
                "messages": [m.to_dict() for m in s.messages],
                "state": s.state,
                "interrupt": s.interrupt,
            }
        )
        return
    from rich.markup import escape

    con = console()
    con.print(f"[bold]session {s.id}[/] — {s.status}, model {s.model}, updated {_when(s.updated_at)} UTC")
    for m in s.messages:
        if m.role == "tool":
            style = "red" if m.is_error else "dim"
            con.print(f"[{style}]tool {escape(m.name or '')} ({m.tool_call_id}):[/] {escape(m.content)}")
            continue
        con.print(f"[bold]{m.role}:[/] {escape(m.content)}")
        for c in m.tool_calls:
            con.print(f"  [cyan]→ {escape(c.name)}[/] {escape(str(c.arguments))} ({c.id})")
    if s.interrupt:
        con.print(f"[yellow]waiting for an answer to:[/] {escape(str(s.interrupt.get('question', '')))}")


@sessions_app.command("search")
def search_command(
    query: str = typer.Argument(..., help="Words to find in past messages (any may match; best first)."),
    limit: int = typer.Option(10, "--limit", "-n", min=1, max=50),
    config: Path | None = ConfigOption,
    as_json: bool = JsonOption,
) -> None:
    """Full-text search over the messages of stored sessions (what the session_search tool sees)."""
    with open_store(config) as store:
        hits = store.search(query, limit=limit)
    if as_json:
        print_json(
            [
                {
                    "session_id": h.session_id,
                    "title": h.session_title,
                    "role": h.role,
                    "snippet": h.snippet,
                    "score": h.score,
                }
                for h in hits
            ]
        )
        return
    from rich.markup import escape

    con = console()
    if not hits:
        con.print(f"no past messages match {escape(query)!r}")
    for h in hits:
        con.print(f"[bold]{h.session_id}[/] ({h.role}, {_when(h.created_at)}): {escape(h.snippet)}")
