"""How `tooldeck tools --tokens` and `tooldeck explain` show rendering: token costs, strict refusals.

The figures come from `tooldeck._core.dialects.report` (cached on the loadout); the layout is here.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from tooldeck.cli.output import real_stdout
from tooldeck.core import ToolCost, token_table, tool_costs

if TYPE_CHECKING:
    from tooldeck.core import Loadout


def render_costs(loadout: Loadout, dialect: str, strict: bool, profile: str | None) -> dict[str, ToolCost]:
    """Token cost, share and strict outcome of each exposed tool (a bad dialect is a usage error)."""
    return tool_costs(loadout, dialect, strict=strict, profile=profile)


def cost_cell(cost: ToolCost | None) -> str:
    return f"{cost.tokens} ({cost.share:.1%})" if cost is not None else ""


def print_strict_refusals(con: Any, costs: list[ToolCost]) -> None:
    """Below the explain table: tools sent non-strict and why, and schema rewrites worth knowing."""
    refused = [c for c in costs if c.strict_reason]
    if refused:
        con.print(
            f"[bold yellow]OpenAI strict mode[/] not possible for {len(refused)} tool(s); sent non-strict:"
        )
        for c in refused:
            con.print(f"  • {c.name}: {c.strict_reason}", markup=False)
    rewritten = [c for c in costs if c.notes]
    if rewritten:
        con.print("[bold]Schema rewrites[/] (the schema as written was not valid for this provider):")
        for c in rewritten:
            more = f" (+{len(c.notes) - 3} more)" if len(c.notes) > 3 else ""
            con.print(f"  • {c.name}: {'; '.join(c.notes[:3])}{more}", markup=False)


def print_token_table(loadout: Loadout, *, strict: bool, profile: str | None, as_json: bool) -> None:
    """`tooldeck tools --tokens`: what the exposed tools cost in each dialect (o200k and cl100k BPE)."""
    table = token_table(loadout, strict=strict, profile=profile)
    if as_json:
        out = {"tools": len(loadout.exposed), "strict": strict, "tokens": table}
        real_stdout().write(json.dumps(out, indent=2) + "\n")
        return
    from rich.console import Console
    from rich.table import Table

    view = Table(title=f"Token cost of the {len(loadout.exposed)} exposed tools (offline BPE estimate)")
    view.add_column("dialect", style="bold")
    view.add_column("o200k_base", justify="right")
    view.add_column("cl100k_base", justify="right")
    for dialect, counts in table.items():
        view.add_row(dialect, str(counts["o200k_base"]), str(counts["cl100k_base"]))
    stream = real_stdout()
    con = Console(file=stream, soft_wrap=False, width=None if stream.isatty() else 120)
    con.print(view)
    con.print("Per tool: `tooldeck explain` (token share per tool, strict-mode refusals).")
