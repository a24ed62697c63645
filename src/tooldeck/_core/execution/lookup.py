"""Finding the tool a call names, and the error a caller reads when there is none.

A name resolves exactly, or (when `execution.normalize_names` is on) after folding case and
separators when that leaves a single tool. A name that matches nothing is never re-targeted:
the error lists the closest names first, and only names the caller can call right now - the
exposed tools, plus the deferred ones the caller counts as promoted. Deferred tools still
waiting for `tool_search` are pointed at, never offered as callable.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Collection, Mapping

from tooldeck._core.execution.types import ErrorEnvelope
from tooldeck._core.tool import Tool
from tooldeck.errors import CallRejected, ErrorType

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEPARATORS = re.compile(r"[\s.\-]+")

# Up to this many names are listed in full; longer lists show the closest few and a count.
_LIST_ALL = 12
_LIST_CLOSEST = 8


def normalise_name(name: str) -> str:
    """Case and separators folded: `Read-File`, `readFile`, `functions.read_file` -> `read_file`."""
    name = name.strip()
    if name.startswith("functions."):
        name = name[len("functions.") :]
    return _SEPARATORS.sub("_", _CAMEL.sub("_", name)).lower().strip("_")


def _reject(kind: ErrorType, message: str, tool: str, *, retryable: bool = True) -> CallRejected:
    return CallRejected(ErrorEnvelope(kind, message, tool, retryable))


class ToolIndex:
    """Name lookup over the tools a call may reach, built once per loadout.

    `callable_tools` is every tool a call may resolve to (deferred ones included: the gate
    decides whether they may run). `offered` names what the caller is offered without a
    promotion (the exposed tools; all of `callable_tools` when not given) and `deferred` the
    tools that need one; both only shape the message for an unknown name.
    """

    def __init__(
        self,
        callable_tools: Mapping[str, Tool],
        *,
        hidden: Mapping[str, tuple[str | None, str | None]] | None = None,
        normalise: bool = True,
        offered: Collection[str] | None = None,
        deferred: Collection[str] = (),
    ) -> None:
        self.tools = dict(callable_tools)
        self.hidden = dict(hidden or {})
        self.normalise = normalise
        self.offered = frozenset(self.tools if offered is None else offered)
        self.deferred = frozenset(deferred)
        by_norm: dict[str, list[str]] = {}
        for name in self.tools:
            by_norm.setdefault(normalise_name(name), []).append(name)
        self._by_norm = by_norm

    def resolve(
        self, name: str, promoted: Callable[[], Collection[str]] | None = None
    ) -> tuple[Tool, str | None]:
        """The tool `name` means, and a note when it was found only after normalising the name.

        `promoted` gives the deferred tools this caller may call; it is asked only when the name
        is unknown, to list what the caller can call instead.
        """
        found = self.tools.get(name)
        if found is not None:
            return found, None
        if not isinstance(name, str) or not name.strip():
            raise _reject("unknown_tool", "the call names no tool (empty name)", str(name or ""))
        if self.normalise:
            matches = self._by_norm.get(normalise_name(name), [])
            if len(matches) == 1:
                exact = matches[0]
                note = (
                    f"no tool is named {name!r}; ran {exact!r} (the name differs only in case or separators)"
                )
                return self.tools[exact], note
        if name in self.hidden:
            gate, reason = self.hidden[name]
            kind: ErrorType = "denied" if gate == "skills" else "unavailable"
            message = f"tool {name!r} is not available in this session: {reason or gate}"
            raise _reject(kind, message, name, retryable=False)
        usable = self.deferred & frozenset(promoted() if promoted is not None else ())
        callable_names = (self.offered | usable) & self.tools.keys()
        raise _reject(
            "unknown_tool", unknown_tool_message(name, callable_names, self.deferred - usable), name
        )


def unknown_tool_message(name: str, callable_names: Collection[str], waiting: Collection[str] = ()) -> str:
    """What a caller reads for a name that matches no tool: close names first, the list kept short.

    `callable_names` are the tools the caller can call now; `waiting` the deferred tools it
    could call after loading them with `tool_search` (named only when one is close).
    """
    close = closest(name, callable_names)
    if close:
        return f"unknown tool {name!r}; did you mean: {', '.join(close)}? The call was not run."
    near_deferred = closest(name, waiting)
    if near_deferred:
        first = near_deferred[0]
        return (
            f"unknown tool {name!r}; did you mean the deferred tool{'s' if len(near_deferred) > 1 else ''} "
            f"{', '.join(near_deferred)}? Load it with tool_search (e.g. query 'select:{first}') first. "
            "The call was not run."
        )
    names = sorted(callable_names)
    if len(names) > _LIST_ALL:
        shown = ranked(name, names)[:_LIST_CLOSEST]
        listed = f"{', '.join(shown)} and {len(names) - len(shown)} more"
    else:
        listed = ", ".join(names) or "(none)"
    count = len(waiting)
    more = (
        f" ({count} more {'is' if count == 1 else 'are'} deferred: find them with tool_search)"
        if count
        else ""
    )
    return f"unknown tool {name!r}; the tools you can call are: {listed}{more}. The call was not run."


def closest(name: str, candidates: Collection[str], n: int = 5) -> list[str]:
    """The candidates that look like `name` (as spelled, then ignoring case), best first."""
    names = sorted(candidates)
    found = difflib.get_close_matches(name, names, n=n, cutoff=0.6)
    lowered = {c.lower(): c for c in names}
    found += [lowered[m] for m in difflib.get_close_matches(name.lower(), list(lowered), n=n, cutoff=0.6)]
    return list(dict.fromkeys(found))[:n]


def ranked(name: str, candidates: Collection[str]) -> list[str]:
    """Every candidate, the most similar to `name` first (ties alphabetical)."""
    matcher = difflib.SequenceMatcher(b=name.lower())  # the fixed side is the one it indexes
    scores: dict[str, float] = {}
    for candidate in candidates:
        matcher.set_seq1(candidate.lower())
        scores[candidate] = matcher.ratio()
    return sorted(scores, key=lambda c: (-scores[c], c))


__all__ = ["ToolIndex", "closest", "normalise_name", "ranked", "unknown_tool_message"]
