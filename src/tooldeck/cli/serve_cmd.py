"""`tooldeck serve [--transport stdio|http] [--port N] [--host H] [--token T]`: an MCP server.

stdio serves one client on stdin/stdout (what Claude Desktop, Cursor and IDEs start); http
serves streamable HTTP at http://127.0.0.1:PORT/mcp. Another interface than loopback needs a
bearer token: `--token VALUE`, or `--token '${VAR}'` to read it from the environment (a
missing variable is an error naming it). Nothing but MCP messages is written to stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from tooldeck.cli.common import add_config, add_platform, assemble, fail, load_deck

if TYPE_CHECKING:
    from tooldeck import Deck

_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--transport", "-t", choices=("stdio", "http"), default="stdio", help="default stdio")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000; 0 picks a free one)")
    parser.add_argument(
        "--host", default="127.0.0.1", help="HTTP interface (default 127.0.0.1; others need --token)"
    )
    parser.add_argument(
        "--token", default=None, help="bearer token HTTP requests must carry; '${VAR}' reads it from VAR"
    )
    parser.add_argument(
        "--interval",
        type=float,
        default=2.0,
        help="seconds between re-assemblies that catch checks flipping (default 2)",
    )
    add_config(parser)
    add_platform(parser)


def resolve_token(raw: str | None) -> str | None:
    if raw is None:
        return None

    def sub(match: re.Match[str]) -> str:
        value = os.environ.get(match.group(1))
        if value is None:
            fail(f"--token: environment variable {match.group(1)} is not set (used as ${{{match.group(1)}}})")
        return value

    token = _VAR.sub(sub, raw)
    if not token.strip():
        fail("--token: the token is empty")
    return token


def run(args: argparse.Namespace) -> int:

    from tooldeck.errors import ConfigError

    try:
        from tooldeck.serve import DeckServer, ListenError, http_app, serve_http, serve_stdio
    except ImportError as exc:
        fail(f"tooldeck serve needs the MCP SDK: pip install 'tooldeck[serve]' ({exc})")
    if not 0 <= args.port <= 65535:
        fail(f"--port must be between 0 and 65535, got {args.port}")
    if not args.interval > 0:
        fail("--interval must be > 0 seconds")
    token = resolve_token(args.token)
    deck = load_deck(args.config)
    assemble(deck, args.platform)  # a config error is a usage error, before serving anything
    server = DeckServer(deck, platform=args.platform, interval_s=args.interval)
    try:
        if args.transport == "stdio":
            # The MCP stream is this command's result: hand the SDK the real stdout (it diverts
            # file descriptor 1 to stderr itself, so what tools print misses the wire).
            from tooldeck.cli.output import real_stdout

            redirected, sys.stdout = sys.stdout, real_stdout()
            try:
                _serve(deck, serve_stdio(server))
            finally:
                sys.stdout = redirected
            return 0
        http_app(server, host=args.host, token=token)  # refuse a bad host/token before binding
        ready = lambda url: print(f"tooldeck: serving MCP at {url}", file=sys.stderr, flush=True)  # noqa: E731
        _serve(deck, serve_http(server, host=args.host, port=args.port, token=token, ready=ready))
    except (ConfigError, ListenError) as exc:  # a short token, a port in use: one line, exit 2
        fail(str(exc))
    except KeyboardInterrupt:
        return 0
    finally:
        deck.close()
    return 0


def _serve(deck: Deck, coro: Coroutine[Any, Any, None]) -> None:
    """Serve on the deck's own loop when it has MCP servers (their sessions live there, so a
    served MCP tool's call needs no hand-off between threads); else on a loop of its own."""
    if deck.config.mcp_servers:
        deck.run(coro)
    else:
        asyncio.run(coro)
