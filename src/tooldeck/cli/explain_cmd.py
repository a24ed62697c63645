"""`tooldeck explain`: every candidate tool, with the gate that decided its fate and why."""

from __future__ import annotations

import argparse
import difflib
import sys
from typing import TYPE_CHECKING, Any

from tooldeck.cli.common import (
    DIALECTS,
    add_agent,
    add_config,
    add_json,
    add_platform,
    console,
    fail,
    load_deck,
    print_json,
    warn_diagnostics,
)

if TYPE_CHECKING:
    from tooldeck import Deck
    from tooldeck.core import Diagnostic, Fate, ToolCost

STATUS_STYLE = {"exposed": "green", "deferred": "yellow", "hidden": "red"}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "names", nargs="*", metavar="NAME", help="only these tools (default: every candidate)"
    )
    add_config(parser)
    add_platform(parser)
    parser.add_argument(
        "--dialect", "-d", choices=DIALECTS, default="openai", help="dialect for token shares"
    )
    parser.add_argument("--strict", action="store_true", help="say why a tool cannot be OpenAI-strict")
    add_agent(parser)
    add_json(parser)


def run(args: argparse.Namespace) -> int:
    from tooldeck.cli.views import render_costs
    from tooldeck.errors import ConfigError, ToolsetError
    from tooldeck.inspect.records import explain_records

    deck = load_deck(args.config)
    try:
        everything = deck.explain(platform=args.platform, agent=args.agent)
    except (ConfigError, ToolsetError) as exc:
        fail(f"config error: {exc}")
    fates = list(everything.fates)
    if args.names:
        fates = _named(deck, fates, args.names)
    diagnostics = list(everything.diagnostics)
    loadout = deck.loadout(args.platform, agent=args.agent)
    strict = args.strict or deck.config.dialects.openai.strict
    costs = render_costs(loadout, args.dialect, strict, deck.config.model.name)
    if args.as_json:
        # stdout stays the array SPEC promises; every diagnostic, notes included, goes to stderr.
        warn_diagnostics(diagnostics, notes=True)
        print_json(explain_records(deck, fates, loadout, costs))
        return 0 if fates or not args.names else 1
    if not fates:
        fail("none of the named tools is a candidate", 1)
    _table(fates, costs, loadout.platform, args.dialect, diagnostics)
    _print_control_plane(deck)
    _print_judging(deck, fates)
    _print_bounds(deck, fates)
    return 0


def _print_bounds(deck: Deck, fates: list[Fate]) -> None:
    """Which bounds on a whole call hold on this machine for the tools that run commands."""
    from tooldeck.inspect.records import bounds_of

    bounded = bounds_of(deck, fates)
    if not bounded:
        return
    con = console()
    con.print(f"[bold]Bounds on each call on this machine[/] (sandbox.limits.*; {', '.join(bounded)}):")
    for line in next(iter(bounded.values())):
        con.print(f"  • {line}", markup=False)


def _print_judging(deck: Deck, fates: list[Fate]) -> None:
    """How the changes of each tool that runs commands (or an agent) are judged before they land."""
    from tooldeck.inspect.records import judging_of

    judged = judging_of(deck, fates)
    if not judged:
        return
    con = console()
    con.print("[bold]How their changes are judged before they land[/] (effects.*, checkpoints.*):")
    for name, how in judged.items():
        con.print(f"  • {name}: {how}", markup=False)


def _print_control_plane(deck: Deck) -> None:
    """What the tools may change only with consent (protected) and may not see (hidden), and
    grants that are ignored because tooldeck did not sign them."""
    from tooldeck._utils.home import tooldeck_home
    from tooldeck.core import AlwaysGrants, ControlPlane
    from tooldeck.errors import StoreError

    config = deck.config
    plane = ControlPlane.of(config)
    con = console()
    con.print("[bold]Out of the tools' reach[/] (sandbox.protected; the tooldeck home):")
    for line in plane.describe():
        con.print(f"  • {line}", markup=False)
    grants = AlwaysGrants(
        tooldeck_home(config.home, base_dir=config.base_dir) / "grants.jsonl", plane.root_path
    )
    try:
        grants.covers("", None, None)
    except StoreError as exc:
        con.print(f"  • grants file not used: {exc}", markup=False)
    if grants.rejected:
        con.print(
            f"  • {grants.rejected} grant(s) in {grants.path} ignored: not signed by tooldeck", markup=False
        )


def _named(deck: Deck, fates: list[Fate], names: list[str]) -> list[Fate]:
    """The fates of `names`; a name that is no candidate gets a hint on stderr: the tool's own
    name when it is a config entry's `name`, else close names."""
    from tooldeck.core import entry_owner

    known = {f.name for f in fates}
    aliases = {}
    for i, entry in enumerate(deck.config.tools):
        owned = {f.name for f in fates if f.tool.source == "config" and f.tool.owner == entry_owner(i, entry)}
        if entry.name is not None and len(owned) == 1:
            aliases[entry.name] = (f"tools[{i}]", owned.pop())
    for n in names:
        if n in known:
            continue
        if n in aliases:
            where, own = aliases[n]
            hint = (
                f": {where} calls it {n!r}, but the tool's own name, which the model sees, is {own!r} "
                f"(tooldeck explain {own})"
            )
        else:
            close = difflib.get_close_matches(n, sorted(known), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
        print(f"tooldeck: no candidate tool named {n!r}{hint}", file=sys.stderr)
    wanted = set(names)
    return [f for f in fates if f.name in wanted]


def _table(
    fates: list[Fate], costs: dict[str, ToolCost], platform: str, dialect: str, diagnostics: list[Diagnostic]
) -> None:
    from rich.markup import escape
    from rich.table import Table

    from tooldeck.cli.views import cost_cell, print_strict_refusals

    con = console()
    table = Table(title=f"Why each tool is (not) visible — platform {escape(platform)}")
    for col in ("name", "toolset", "source", "status", "gate"):
        table.add_column(col, no_wrap=col in ("name", "status"))
    table.add_column("reason", overflow="fold", min_width=30, ratio=1)
    table.add_column(f"tokens ({dialect})", justify="right", no_wrap=True)
    for f in fates:
        style = STATUS_STYLE[f.status]
        table.add_row(
            escape(f.name),
            escape(f.tool.toolset),
            f.tool.source,
            f"[{style}]{f.status}[/]",
            f.gate or "",
            escape(f.reason or ""),
            cost_cell(costs.get(f.name) if f.status == "exposed" else None),
        )
    con.print(table)
    print_strict_refusals(con, [costs[f.name] for f in fates if f.status == "exposed" and f.name in costs])
    _print_diagnostics(con, diagnostics)


def _print_diagnostics(con: Any, diagnostics: list[Diagnostic]) -> None:
    """The config's own mistakes (which strict: true makes errors) apart from what the sources
    and the moment report (a server that did not connect, a folder not there yet)."""
    config = [d for d in diagnostics if d.strict]
    other = [d for d in diagnostics if not d.strict and d.level != "info"]
    notes = [d for d in diagnostics if d.level == "info"]
    for heading, group in (
        ("[bold yellow]Config warnings[/] (strict: true makes these errors):", config),
        ("[bold yellow]Warnings[/]:", other),
        ("[bold]Notes[/]:", notes),
    ):
        if group:
            con.print(heading)
            for d in group:
                con.print(f"  • {d}", markup=False)
