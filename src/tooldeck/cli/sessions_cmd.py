"""`tooldeck sessions list|show ID|search QUERY`: the stored sessions."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tooldeck._utils.text import for_terminal
from tooldeck.cli.common import add_config, add_json, console, fail, print_json

if TYPE_CHECKING:
    from tooldeck import Config
    from tooldeck.agent.sessions import SessionStore, StoredSession
    from tooldeck.core import Checkpoint


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    p = sub.add_parser("list", help="stored sessions, most recently active first")
    p.add_argument("--limit", "-n", type=int, default=50, help="how many, newest first")
    p.add_argument("--all", dest="all_", action="store_true", help="include sub-agent sessions")
    p.add_argument("--pending", action="store_true", help="only sessions with calls waiting for approval")
    p = sub.add_parser("show", help="one session: its messages, state and any pending question")
    p.add_argument("session_id", metavar="ID", help="session id (or a unique prefix)")
    p = sub.add_parser("search", help="full-text search over the messages of stored sessions")
    p.add_argument("query", metavar="QUERY", help="words to find (any may match; best first)")
    p.add_argument("--limit", "-n", type=int, default=10)
    for p in sub.choices.values():
        add_config(p)
        add_json(p)


def run(args: argparse.Namespace) -> int:
    if getattr(args, "limit", 1) < 1:
        fail("--limit must be >= 1")
    if args.action == "list":
        list_command(args.limit, args.all_, args.config, args.as_json, pending=args.pending)
    elif args.action == "show":
        show_command(args.session_id, args.config, args.as_json)
    else:
        search_command(args.query, min(args.limit, 50), args.config, args.as_json)
    return 0


def _load(config: Path | None) -> Config:
    from tooldeck import load_config
    from tooldeck.errors import ConfigError

    try:
        return load_config(config)
    except ConfigError as exc:
        fail(f"config error: {exc}")


def open_store(config: Path | None) -> SessionStore:
    from tooldeck._utils.home import tooldeck_home
    from tooldeck.agent.sessions import SessionStore
    from tooldeck.errors import SessionError

    cfg = _load(config)
    db = cfg.resolve_path(cfg.agent.sessions_db) if cfg.agent.sessions_db else None
    path = db or tooldeck_home(cfg.home, base_dir=cfg.base_dir) / "state.db"
    try:
        return SessionStore(path)
    except SessionError as exc:
        fail(f"session error: {exc}")


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ts))


def list_command(
    limit: int, all_: bool, config: Path | None, as_json: bool, *, pending: bool = False
) -> None:
    with open_store(config) as store:
        rows = store.list_sessions(limit=limit, include_children=all_, pending=pending)
    if as_json:
        from tooldeck.inspect.records import session_summary_record

        print_json([session_summary_record(r) for r in rows])
        return
    from rich.table import Table

    table = Table(title="Sessions")
    for col in ("id", "updated (UTC)", "status", "messages", "pending", "model", "title"):
        table.add_column(col)
    for r in rows:
        table.add_row(
            r.id,
            _when(r.updated_at),
            r.status,
            str(r.message_count),
            str(r.pending or ""),
            r.model or "",
            r.title or "",
        )
    console().print(table)


def show_command(session_id: str, config: Path | None, as_json: bool) -> None:
    from tooldeck.errors import SessionError

    with open_store(config) as store:
        try:
            s = store.load(session_id)
        except SessionError as exc:
            fail(f"session error: {exc}")
    turns = _turn_checkpoints(s, config)
    if as_json:
        from tooldeck.inspect.records import session_record

        print_json(session_record(s, turns))
        return

    from tooldeck.inspect.records import shown_interrupt

    con = console()
    con.print(f"[bold]session {s.id}[/] — {s.status}, model {s.model}, updated {_when(s.updated_at)} UTC")
    by_call = {c.call_id: c for found in turns for c in found}
    for m in s.messages:
        if m.role == "tool":
            style = "red" if m.is_error else "dim"
            con.print(f"[{style}]tool {_shown(m.name or '')} ({m.tool_call_id}):[/] {_shown(m.content)}")
            if (checkpoint := by_call.get(m.tool_call_id or "")) is not None:
                con.print(f"  [yellow]checkpoint {_checkpoint_line(checkpoint)}[/]")
            continue
        if m.reasoning:
            con.print(f"[dim italic]{m.role} (reasoning): {_shown(m.reasoning)}[/]")
        con.print(f"[bold]{m.role}:[/] {_shown(m.content)}")
        for c in m.tool_calls:
            con.print(f"  [cyan]→ {_shown(c.name)}[/] {_shown(str(c.arguments))} ({c.id})")
    _print_usage(s)
    if by_call:
        oldest = min(by_call.values(), key=lambda c: c.id)
        con.print(f"undo this session's changes to the workspace: tooldeck undo {oldest.id}")
    shown = shown_interrupt(s.interrupt)
    if shown and shown.get("kind") == "approval":
        _print_pending(s.id, shown["pending"])
    elif s.interrupt:
        con.print(f"[yellow]waiting for an answer to:[/] {_shown(str(s.interrupt.get('question', '')))}")
    elif s.status == "cancelled":
        con.print(f"[yellow]stopped before the turn ended; continue it with:[/] tooldeck run --resume {s.id}")
    elif s.status == "no_answer":
        con.print(
            f"[yellow]the model ended the turn without an answer; ask again with:[/] tooldeck run --resume {s.id}"
        )


def _print_usage(session: StoredSession) -> None:
    """What each turn cost and the total: input tokens (cache reads and writes among them), output."""
    from tooldeck.inspect.records import turn_usages

    usages = turn_usages(session)
    if not any(usages):
        return
    con = console()
    for n, usage in enumerate(usages, 1):
        con.print(f"[dim]turn {n}: {_usage_line(usage.to_dict())}[/]")
    con.print(f"[bold]tokens:[/] {_usage_line(sum(usages[1:], usages[0]).to_dict())}")


def _usage_line(usage: dict[str, int]) -> str:
    return (
        f"{usage['input_tokens']} input ({usage['cache_read_input_tokens']} cache read, "
        f"{usage['cache_creation_input_tokens']} cache write), {usage['output_tokens']} output"
    )


def _print_pending(session_id: str, pending: list[dict[str, Any]]) -> None:
    con = console()
    con.print("[yellow]waiting for approval:[/]")
    for p in pending:
        args = json.dumps(p.get("arguments"), ensure_ascii=False)
        con.print(f"  [bold]{_shown(str(p.get('call_id')))}[/] {_shown(str(p.get('tool')))} {_shown(args)}")
        con.print(f"    why: {_shown(str(p.get('reason')))}")
    con.print(
        f"decide with: tooldeck run --resume {session_id} --approve CALL_ID "
        "(or --deny CALL_ID --reason TEXT, or --edit CALL_ID --args JSON)"
    )


def search_command(query: str, limit: int, config: Path | None, as_json: bool) -> None:
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

    con = console()
    if not hits:
        con.print(f"no past messages match {_shown(query)!r}")
    for h in hits:
        con.print(f"[bold]{h.session_id}[/] ({h.role}, {_when(h.created_at)}): {_shown(h.snippet)}")


def _shown(text: str) -> str:
    """Text for the rich console: control sequences made visible, markup escaped."""
    from rich.markup import escape

    shown: str = escape(for_terminal(text))
    return shown


def _turn_checkpoints(session: StoredSession, config: Path | None) -> list[list[Checkpoint]]:
    """The checkpoints of each turn of `session` (a turn starts at a user message), oldest first."""
    from tooldeck.core import checkpoint_store
    from tooldeck.errors import CheckpointError

    try:
        stored = checkpoint_store(_load(config)).checkpoints(session_id=session.id)
    except CheckpointError as exc:
        fail(str(exc), 1)
    from tooldeck.inspect.records import turn_checkpoints

    return turn_checkpoints(session, stored)


def _checkpoint_line(checkpoint: Checkpoint) -> str:
    counts = checkpoint.counts()
    paths = [c.path for c in checkpoint.changes if c.verb != "unchanged"]
    more = f" (+{len(paths) - 3} more)" if len(paths) > 3 else ""
    return (
        f"{checkpoint.id}: +{counts['created']} ~{counts['modified']} -{counts['deleted']} "
        f"{_shown(', '.join(paths[:3]))}{more}"
    )
