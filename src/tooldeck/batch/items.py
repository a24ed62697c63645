"""The input of a batch: one JSON object per line, each an agent run to do.

    {"id": "q1", "prompt": "...", "system": "...", "metadata": {...}, "tools": ["read_file"]}

`id` (a string or an integer, unique in the file) and `prompt` are required; `system` replaces
the system prompt, `metadata` is copied to the result line untouched, `tools` narrows the
loadout to those tool names. A line that breaks these rules is reported with its line number
and skipped: one bad line never stops the others.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tooldeck._utils.jsonl import LineProblem, id_key, read_unique

if TYPE_CHECKING:
    from tooldeck.agent.interrupts import ApprovalDecision

ItemId = str | int
KNOWN_KEYS = frozenset({"id", "prompt", "system", "metadata", "tools"})


@dataclass(frozen=True, slots=True)
class Resumption:
    """An item that ended `awaiting_approval`, continued: its stored session and a decision per
    pending call id (what `tooldeck batch --resume --approve ITEM:CALL_ID` gives)."""

    session_id: str
    decisions: Mapping[str, ApprovalDecision]


@dataclass(frozen=True, slots=True)
class BatchItem:
    """One agent run: a prompt under an id, with its optional system prompt, metadata and tools;
    `resume` when it continues a turn that stopped at approval instead of starting afresh."""

    id: ItemId
    prompt: str
    system: str | None = None
    metadata: Mapping[str, Any] | None = None
    tools: tuple[str, ...] | None = None
    line: int = 0
    resume: Resumption | None = None

    @property
    def key(self) -> str:
        """The id as one string that tells `1` from `"1"` (what resume and de-duplication compare)."""
        return id_key(self.id)


# A skipped line of the items file, and why (the same kind as every JSON Lines reader's).
InputProblem = LineProblem


class InputError(ValueError):
    """A line that is not a valid item (the message says which field and why)."""


def parse_item(text: str, line: int) -> BatchItem:
    """One line as an item; raises `InputError` naming the problem."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(data, dict):
        raise InputError(f"expected a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - KNOWN_KEYS)
    if unknown:
        raise InputError(
            f"unknown key(s) {', '.join(map(repr, unknown))}; an item has id, prompt, system, metadata, "
            "tools (put other data under metadata)"
        )
    ident = data.get("id")
    if isinstance(ident, bool) or not isinstance(ident, str | int) or ident == "":
        raise InputError("'id' must be a non-empty string or an integer")
    prompt = data.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise InputError(f"item {ident!r}: 'prompt' must be a non-empty string")
    system = data.get("system")
    if system is not None and not isinstance(system, str):
        raise InputError(f"item {ident!r}: 'system' must be a string")
    metadata = data.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise InputError(f"item {ident!r}: 'metadata' must be an object")
    tools = data.get("tools")
    if tools is not None and (
        not isinstance(tools, list) or not all(isinstance(t, str) and t for t in tools)
    ):
        raise InputError(f"item {ident!r}: 'tools' must be a list of tool names")
    return BatchItem(
        id=ident,
        prompt=prompt,
        system=system,
        metadata=metadata,
        tools=tuple(dict.fromkeys(tools)) if tools is not None else None,
        line=line,
    )


def iter_lines(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, text) of each non-blank line; bytes that are not UTF-8 are kept as U+FFFD."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        for number, text in enumerate(fh, start=1):
            if text.strip():
                yield number, text


def read_items(path: Path) -> tuple[list[BatchItem], list[InputProblem]]:
    """Every valid item of the file in order, and every line skipped (bad or a repeated id)."""
    return read_unique(iter_lines(path), parse_item, lambda item: item.id, refused=InputError)
