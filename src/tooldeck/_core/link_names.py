"""The names of tooldeck's own links of the call path, outermost first.

A user's middleware is placed `before:` or `after:` one of them (in config and in code); one
placed nowhere sits outside every link but `trace` (whose span covers the whole call). What
each link does is told in `tooldeck._core.execution.links`.
"""

from __future__ import annotations

LINKS: tuple[str, ...] = (
    "trace",  # an `execute_tool` span around the call, when the application traces
    "validate",  # the arguments checked against the schema and coerced ("2" -> 2)
    "approvals",  # deferred and skill gates, the policy, approvals and grants, the audit log
    "effects",  # the bounds a call's shell or code effects may reach without asking
    "frame",  # outside text (web, MCP) framed as untrusted data
    "truncate",  # a long result cut, its full text kept for read_result
    "budget",  # what the call may write into the workspace (sandbox.limits.disk_mb)
    "checkpoint",  # what the call changes in the workspace recorded, for undo
    "run",  # the handler under its deadline (thread, task or child process), its value shaped
)


def placement_problem(before: str | None, after: str | None) -> tuple[str, str] | None:
    """What is wrong with placing a middleware `before` / `after` a link: (key, message), or None."""
    from tooldeck._core.diagnostics import did_you_mean

    if before is not None and after is not None:
        return "after", "give before or after, not both"
    for key, name in (("before", before), ("after", after)):
        if name is None:
            continue
        if name not in LINKS:
            return key, f"no link is named {name!r}{did_you_mean(name, LINKS)} (links: {', '.join(LINKS)})"
        if key == "after" and name == "run":
            return key, "nothing comes after 'run' (it runs the tool); place the middleware before: run"
    return None


__all__ = ["LINKS", "placement_problem"]
