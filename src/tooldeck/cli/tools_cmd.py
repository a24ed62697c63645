"""`tooldeck tools`: the exposed tools exactly as they would be sent to the model."""

from __future__ import annotations

import argparse

from tooldeck.cli.common import (
    DIALECTS,
    add_agent,
    add_config,
    add_json,
    add_platform,
    assemble,
    console,
    load_deck,
    print_json,
    warn_diagnostics,
)


def configure(parser: argparse.ArgumentParser) -> None:
    add_config(parser)
    add_platform(parser)
    parser.add_argument("--dialect", "-d", choices=DIALECTS, default="openai", help="provider dialect")
    parser.add_argument(
        "--strict", action="store_true", help="OpenAI strict mode (or config dialects.openai.strict)"
    )
    parser.add_argument(
        "--tokens", action="store_true", help="token cost of the exposed tools in each dialect"
    )
    add_agent(parser)
    add_json(parser)


def run(args: argparse.Namespace) -> int:
    from tooldeck.core import render_loadout

    deck = load_deck(args.config)
    loadout = assemble(deck, args.platform, agent=args.agent)
    strict = args.strict or deck.config.dialects.openai.strict
    if args.tokens:
        from tooldeck.cli.views import print_token_table

        print_token_table(loadout, strict=strict, profile=deck.config.model.name, as_json=args.as_json)
        return 0
    rendered = render_loadout(loadout, args.dialect, strict=strict, profile=deck.config.model.name)
    warn_diagnostics(deck.diagnostics(loadout))
    if args.as_json:
        print_json(rendered)
        return 0
    from rich.markup import escape
    from rich.table import Table

    con = console()
    table = Table(title=f"Exposed tools — platform {loadout.platform}, dialect {args.dialect}")
    table.add_column("name", style="bold")
    table.add_column("toolset")
    table.add_column("parameters")
    table.add_column("description", overflow="fold")
    for t in loadout.exposed:
        params = ", ".join(t.parameters.get("properties", {})) or "—"
        text = loadout.description(t.name)
        table.add_row(
            escape(t.name), escape(t.toolset), escape(params), escape(text.splitlines()[0] if text else "")
        )
    con.print(table)
    if loadout.deferred:
        con.print(
            f"Deferred behind tool_search ({len(loadout.deferred)}): {', '.join(loadout.deferred_names)}",
            markup=False,
        )
    con.print(
        f"{len(loadout.exposed)} exposed, {len(loadout.deferred)} deferred, {len(loadout.hidden)} hidden "
        "(run `tooldeck explain` for why).",
        markup=False,
    )
    return 0
