"""`tooldeck inspect [--port N] [--host H] [--token T] [--no-open]`: the loadout in a local web page.

It serves the deck `tooldeck tools` would load (same config, gates and MCP servers) until
Ctrl-C or SIGTERM (exit 130), and prints its URL with a one-time token on stdout. Another
interface than loopback needs `--token` (`'${VAR}'` reads it from the environment).
"""

from __future__ import annotations

import argparse
import signal
import sys
from types import FrameType
from typing import TYPE_CHECKING

from tooldeck.cli.common import add_config, add_platform, assemble, fail, load_deck
from tooldeck.cli.output import real_stdout

if TYPE_CHECKING:
    import socket

    from tooldeck import Deck
    from tooldeck.inspect.auth import App


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    parser.add_argument(
        "--host", default="127.0.0.1", help="interface (default 127.0.0.1; any other needs --token)"
    )
    parser.add_argument(
        "--token", default=None, help="the token instead of a new one ('${VAR}' reads it from VAR)"
    )
    parser.add_argument("--no-open", action="store_true", help="do not open a browser")
    add_config(parser)
    add_platform(parser)


def run(args: argparse.Namespace) -> int:
    from tooldeck.cli.serve_cmd import resolve_token
    from tooldeck.errors import ConfigError, ListenError

    try:
        from tooldeck.inspect import InspectorApi, inspect_app
        from tooldeck.inspect.auth import check_token, new_token
        from tooldeck.serve.transports import is_loopback, listen_socket
    except ImportError as exc:
        fail(f"tooldeck inspect needs the web stack: pip install 'tooldeck[serve]' ({exc})")
    if not 0 <= args.port <= 65535:
        fail(f"--port must be between 0 and 65535, got {args.port}")
    given = resolve_token(args.token)
    if given is None and not is_loopback(args.host):
        fail(f"--host {args.host} opens the inspector (and its calls) beyond this machine: give a --token")
    try:
        token = check_token(given) if given is not None else new_token()
    except ConfigError as exc:
        fail(str(exc))
    deck = load_deck(args.config)
    try:
        assemble(deck, args.platform)  # a config problem is a usage error, before serving anything
        app = inspect_app(InspectorApi(deck, platform=args.platform), token=token)
        try:
            sock = listen_socket(args.host, args.port)
        except ListenError as exc:
            fail(str(exc))
        return _serve(deck, app, sock, host=args.host, token=token, open_browser=not args.no_open)
    finally:
        deck.close()


def _serve(deck: Deck, app: App, sock: socket.socket, *, host: str, token: str, open_browser: bool) -> int:
    from tooldeck.inspect import serve_app

    shown = f"[{host.strip('[]')}]" if ":" in host else host

    def ready(port: int) -> None:
        url = f"http://{shown}:{port}/?token={token}"
        out = real_stdout()
        out.write(url + "\n")
        out.flush()
        print(f"tooldeck: inspecting at {url} (Ctrl-C stops it)", file=sys.stderr, flush=True)
        if open_browser:
            import webbrowser

            webbrowser.open(url)

    # SIGTERM ends it as Ctrl-C does: the server stops, the deck closes its MCP servers.
    previous = signal.signal(signal.SIGTERM, _interrupted)
    try:
        coro = serve_app(app, sock, ready=ready)
        if deck.config.mcp_servers:
            # On the deck's own loop, where its MCP sessions live (as `tooldeck serve` does).
            deck.run(coro)
        else:
            import asyncio

            asyncio.run(coro)
    except KeyboardInterrupt:
        print("tooldeck: stopped", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 130  # the server only ends when it is signalled


def _interrupted(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt
