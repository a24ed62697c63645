"""`tooldeck mcp login NAME` / `tooldeck mcp logout NAME`: OAuth for a remote MCP server.

The login opens the browser on the server's authorization page (or prints its URL, on a machine
without a display or with `--no-open`) and waits for the redirect on a loopback port; the tokens
are stored in the tooldeck home, where later runs use and refresh them. Exit 0 when logged in
(or out), 1 when the login failed, 2 for bad usage (an unknown server, a local one, a bad config).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tooldeck.cli.common import add_config, add_json, fail, print_json
from tooldeck.cli.output import emit


def configure(sub: Any) -> None:
    login = sub.add_parser("login", help="log in to a remote server with OAuth (opens the browser)")
    login.add_argument("name", metavar="NAME", help="the server, as named under mcp_servers")
    login.add_argument("--no-open", action="store_true", help="print the URL instead of opening a browser")
    login.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        metavar="S",
        help="seconds to wait for the login (default 300)",
    )
    add_config(login)
    add_json(login)
    logout = sub.add_parser("logout", help="forget a remote server's stored OAuth tokens")
    logout.add_argument("name", metavar="NAME", help="the server, as named under mcp_servers")
    add_config(logout)
    add_json(logout)


def run(args: argparse.Namespace) -> int:
    import asyncio

    from tooldeck import load_config
    from tooldeck.core import mcp_login, mcp_logout, mcp_server_specs
    from tooldeck.errors import ConfigError, SourceError

    try:
        specs = {s.name: s for s in mcp_server_specs(load_config(args.config))}
    except ConfigError as exc:
        fail(f"config error: {exc}")
    spec = specs.get(args.name)
    if spec is None:
        known = ", ".join(sorted(specs)) or "none are configured"
        fail(f"no MCP server named {args.name!r} (servers: {known})")
    if spec.auth is None:
        try:
            mcp_logout(spec)  # it raises what makes the server one without OAuth
        except SourceError as exc:
            fail(str(exc))
    if args.action == "logout":
        removed = mcp_logout(spec)
        if args.as_json:
            print_json({"server": spec.name, "removed": removed})
        else:
            emit(f"logged out of {spec.name}" if removed else f"no stored login for {spec.name}")
        return 0
    if args.timeout <= 0:
        fail("--timeout must be more than 0 seconds")

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    try:
        result = asyncio.run(mcp_login(spec, open_browser=not args.no_open, say=say, timeout=args.timeout))
    except SourceError as exc:
        if args.as_json:
            print_json({"server": spec.name, "ok": False, "error": str(exc)})
        else:
            print(f"login to {spec.name} failed: {exc}", file=sys.stderr)
        return 1
    if args.as_json:
        print_json({"server": spec.name, "ok": True, "asked": result.asked, "tools": result.tools})
    elif result.asked:
        emit(f"logged in to {spec.name} ({result.tools} tools)")
    else:
        emit(f"{spec.name} did not ask for a login; nothing was stored ({result.tools} tools)")
    return 0
