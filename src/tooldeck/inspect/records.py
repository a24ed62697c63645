"""The JSON records of the machine-readable commands, shared by them and by `tooldeck inspect`.

`tooldeck explain --json`, `tools --dialect X --json`, `call --json`, `mcp list --json`,
`sessions list|show --json` and `checkpoints --json` print these; the inspector's JSON API
serves the very same records, so the page and the commands never disagree. Nothing here
imports the web stack.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tooldeck import Config, Deck
    from tooldeck.agent.messages import Usage
    from tooldeck.agent.sessions import SessionSummary, StoredSession
    from tooldeck.core import (
        Checkpoint,
        Fate,
        Loadout,
        McpSource,
        ServerSpec,
        ServerStatus,
        ToolCost,
        ToolResult,
    )


# -- explain ---------------------------------------------------------------------------------


def cost_record(cost: ToolCost | None) -> dict[str, Any]:
    """The `explain --json` fields for one candidate (null for tools that are not sent)."""
    if cost is None:
        return {"tokens": None, "token_share": None, "strict_reason": None, "schema_notes": []}
    return {
        "tokens": cost.tokens,
        "token_share": round(cost.share, 4),
        "strict_reason": cost.strict_reason,
        "schema_notes": list(cost.notes),
    }


def judging_of(deck: Deck, fates: Iterable[Fate]) -> dict[str, str]:
    """How the changes of each tool that runs commands (or an agent) are judged before they land."""
    from tooldeck._utils.home import tooldeck_home
    from tooldeck.tools.effects_judging import judging

    config = deck.config
    return judging(config, (f.tool for f in fates), tooldeck_home(config.home, base_dir=config.base_dir))


def bounds_of(deck: Deck, fates: Iterable[Fate]) -> dict[str, list[str]]:
    """Which bounds on a whole call hold here for each tool that runs commands, and why not."""
    from tooldeck._utils.home import tooldeck_home
    from tooldeck.tools.call_bounds import bounds_of as bounds

    config = deck.config
    return bounds(config, (f.tool for f in fates), tooldeck_home(config.home, base_dir=config.base_dir))


def explain_records(
    deck: Deck,
    fates: Sequence[Fate],
    loadout: Loadout,
    costs: dict[str, ToolCost],
) -> list[dict[str, Any]]:
    """The rows of `tooldeck explain --json`: each fate with its owner, how its changes are
    judged (when they are) and its cost in the dialect `costs` were counted in."""
    from tooldeck import Explanation

    records = Explanation(loadout.platform, tuple(fates), ()).to_json()
    judged, bounded = judging_of(deck, fates), bounds_of(deck, fates)
    for record, f in zip(records, fates, strict=True):
        record["owner"] = f.tool.owner
        if f.name in judged:
            record["effects"] = judged[f.name]
        if f.name in bounded:
            record["bounds"] = bounded[f.name]
        record.update(cost_record(costs.get(f.name) if f.status == "exposed" else None))
    return records


# -- tools and calls -------------------------------------------------------------------------


def rendered_entry(loadout: Loadout, rendered: Sequence[Any], name: str) -> Any | None:
    """The entry of exposed tool `name` in `rendered` (what `tools --dialect X --json` prints:
    one entry per exposed tool, in the loadout's order); None when `name` is not exposed."""
    for tool, entry in zip(loadout.exposed, rendered, strict=True):
        if tool.name == name:
            return entry
    return None


def call_record(result: ToolResult) -> dict[str, Any]:
    """`tooldeck call --json`: `{ok, content, error, meta}`, with blocks and structured content
    when the result has them."""
    error = result.error.envelope()["error"] if result.error is not None else None
    record: dict[str, Any] = {
        "ok": result.ok,
        "content": result.content,
        "error": error,
        "meta": dict(result.meta),
    }
    if result.blocks:  # in MCP's JSON form (base64 data, camelCase keys)
        record["blocks"] = [b.to_mcp() for b in result.blocks]
    if result.structured is not None:
        record["structured_content"] = result.structured
    return record


# -- MCP servers -----------------------------------------------------------------------------


def server_status(spec: ServerSpec, source: McpSource | None) -> ServerStatus:
    """One configured server as `mcp list` shows it (no source: it is disabled)."""
    from tooldeck.core import ServerStatus

    if source is None:
        return ServerStatus(spec.name, "disabled", (), None, spec.transport, spec.target)
    return source.status()


def deck_server_statuses(deck: Deck) -> list[ServerStatus]:
    """The deck's own MCP servers (those its tools come from), each as `mcp list` shows it."""
    from tooldeck.core import McpSource, mcp_server_specs

    sources = {s.spec.name: s for s in deck.sources if isinstance(s, McpSource)}
    return [server_status(spec, sources.get(spec.name)) for spec in mcp_server_specs(deck.config)]


# -- sessions, approvals, checkpoints ----------------------------------------------------------


def session_summary_record(r: SessionSummary) -> dict[str, Any]:
    """One row of `sessions list --json`."""
    return {
        "id": r.id,
        "title": r.title,
        "model": r.model,
        "status": r.status,
        "created_at": r.created_at,
        "updated_at": r.updated_at,
        "messages": r.message_count,
        "parent_id": r.parent_id,
        "pending": r.pending,
    }


def session_record(s: StoredSession, turns: Sequence[Sequence[Checkpoint]]) -> dict[str, Any]:
    """`sessions show --json`: the session, its messages, what it cost (`usage`, summed over its
    turns) and each turn's checkpoints and usage."""
    from tooldeck.agent.messages import Usage

    usages = turn_usages(s)
    return {
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
        "interrupt": shown_interrupt(s.interrupt),
        "usage": sum(usages, Usage()).to_dict(),
        "turns": [
            {
                "turn": n,
                "checkpoints": [c.to_json() for c in found],
                "usage": (usages[n - 1] if n <= len(usages) else Usage()).to_dict(),
            }
            for n, found in enumerate(turns, 1)
        ],
    }


def turn_usages(session: StoredSession) -> list[Usage]:
    """The tokens each turn of `session` used (a turn starts at a user message), oldest first."""
    from tooldeck.agent.messages import Usage

    turns: list[Usage] = []
    for m in session.messages:
        if m.role == "user" or not turns:
            turns.append(Usage())
        if m.usage is not None:
            turns[-1] += m.usage
    return turns


def shown_interrupt(interrupt: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A stored interrupt as callers see it: a clarify question as it is; calls waiting for
    approval as `{"kind": "approval", "pending": [...]}` (not the stored results or signatures)."""
    from tooldeck.agent.interrupts import HeldBatch
    from tooldeck.errors import DecisionError

    if interrupt is None:
        return None
    try:
        held = HeldBatch.load(interrupt)
    except DecisionError:
        return dict(interrupt)
    return held.public() if held is not None else dict(interrupt)


def turn_checkpoints(session: StoredSession, stored: Sequence[Checkpoint]) -> list[list[Checkpoint]]:
    """The checkpoints (of `stored`) of each turn of `session` (a turn starts at a user
    message), oldest first."""
    by_call = {c.call_id: c for c in stored}
    turns: list[list[Checkpoint]] = []
    for m in session.messages:
        if m.role == "user" or not turns:
            turns.append([])
        turns[-1] += [by_call[c.id] for c in m.tool_calls if c.id in by_call]
    for turn in turns:
        turn.sort(key=lambda c: c.id)
    return turns


def audit_log_path(config: Config) -> Path:
    """Where the call path writes its approval decisions: `approvals.audit_log`, else
    `approvals.jsonl` in the home (as the executor does)."""
    from tooldeck._utils.home import tooldeck_home

    if config.approvals.audit_log:
        return config.resolve_path(config.approvals.audit_log)
    return tooldeck_home(config.home, base_dir=config.base_dir) / "approvals.jsonl"


def audit_entries(path: Path, *, limit: int = 500) -> list[dict[str, Any]]:
    """The last `limit` decisions of the audit log, newest first; a line that is not a JSON
    object (a person's edit, a write cut short) is skipped."""
    import json

    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return []
    found: list[dict[str, Any]] = []
    for line in reversed(lines):
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict):
            found.append(item)
            if len(found) >= limit:
                break
    return found
