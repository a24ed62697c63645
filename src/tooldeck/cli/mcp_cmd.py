"""`tooldeck mcp list`: the configured MCP servers, their state, their tools, and what went wrong
(`login` / `logout`: `mcp_login_cmd`)."""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING, Any

from tooldeck.cli.common import add_config, add_json, console, fail, print_json

if TYPE_CHECKING:
    from tooldeck.core import McpSource, ServerSpec, ServerStatus


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = sub.add_parser("list", help="each server's state, tool count, tools and errors")
    add_config(listing)
    add_json(listing)
    from tooldeck.cli import mcp_login_cmd

    mcp_login_cmd.configure(sub)


def run(args: argparse.Namespace) -> int:
    from tooldeck import load_config
    from tooldeck.core import McpSource, close_mcp_servers, mcp_server_specs
    from tooldeck.errors import ConfigError

    if args.action in ("login", "logout"):
        from tooldeck.cli import mcp_login_cmd

        return mcp_login_cmd.run(args)

    try:
        config = load_config(args.config)
        specs = mcp_server_specs(config)
    except ConfigError as exc:
        fail(f"config error: {exc}")
    from tooldeck._utils.home import tooldeck_home

    files = tooldeck_home(config.home, base_dir=config.base_dir) / "mcp-files"
    sources = {s.name: McpSource(s, workspace=config.workspace, files=files) for s in specs if s.enabled}
    try:
        _wait(specs, sources, progress=not args.as_json and sys.stderr.isatty())
        statuses = [_status(s, sources.get(s.name)) for s in specs]
    finally:
        close_mcp_servers(list(sources.values()))
    if args.as_json:
        print_json([s.to_json() for s in statuses])
    else:
        _print(statuses)
    return 0


def _status(spec: ServerSpec, source: McpSource | None) -> ServerStatus:
    from tooldeck.inspect.records import server_status  # what `tooldeck inspect` shows too

    return server_status(spec, source)


def _wait(specs: list[ServerSpec], sources: dict[str, McpSource], *, progress: bool) -> None:
    """Wait for every server's first connection attempt, showing their progress on a terminal."""
    deadline = time.monotonic() + max((s.listing_wait_s for s in specs), default=0.0)
    pending = dict(sources)
    live: Any = None
    if progress:
        from rich.console import Console
        from rich.live import Live

        live = Live(_board(sources), console=Console(stderr=True), transient=True, refresh_per_second=8)
        live.start()
    try:
        while pending and time.monotonic() < deadline:
            for name, source in list(pending.items()):
                if source.supervisor.first_attempt.wait(0.05):
                    del pending[name]
            if live is not None:
                live.update(_board(sources))
    finally:
        if live is not None:
            live.stop()


def _board(sources: dict[str, McpSource]) -> Any:
    from rich.table import Table

    table = Table.grid(padding=(0, 2))
    for name, source in sources.items():
        sup = source.supervisor
        state = "connecting…" if not sup.first_attempt.is_set() else sup.state
        table.add_row(f"[bold]{name}[/]", f"[{_style(sup.state)}]{state}[/]", f"[dim]{source.spec.target}[/]")
    return table


def _style(state: str) -> str:
    return {"ready": "green", "degraded": "yellow", "disabled": "dim", "connecting": "cyan"}.get(state, "red")


def _print(statuses: list[ServerStatus]) -> None:
    from rich.markup import escape
    from rich.table import Table

    from tooldeck._utils.text import for_terminal

    if not statuses:
        print("no MCP servers configured (add `mcp_servers:` to tooldeck.yaml)")
        return
    table = Table(title="MCP servers")
    for column in ("server", "state", "transport", "tools", "names / error"):
        table.add_column(column, overflow="fold")
    for s in statuses:
        detail = s.error if s.error else ", ".join(s.tools)
        detail = "\n".join([detail, *(f"warning: {w}" for w in s.warnings)]).strip()
        table.add_row(
            escape(s.name),
            f"[{_style(s.state)}]{s.state}[/]",
            escape(f"{s.transport}: {s.target}"),
            str(len(s.tools)),
            escape(for_terminal(detail or "")),
        )
    console().print(table)
