"""Answering a running tool's form (elicitation) outside an MCP client: on the terminal, field
by field, or up front (`--yes`: the form's defaults, when they fill it)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from tooldeck._core.channel import Elicitation, ElicitationRequest, defaults_of, options_of
from tooldeck._utils.text import for_terminal


def with_defaults(request: ElicitationRequest) -> Elicitation:
    """Accept with the form's defaults when they give every required field; decline otherwise."""
    schema = request.schema
    content = defaults_of(schema)
    missing = [name for name in schema.get("required", []) if name not in content]
    if missing:
        return Elicitation(
            "decline",
            reason=f"approved up front, but the form needs {', '.join(missing)}, which have no default",
        )
    return Elicitation("accept", content, "the form's defaults, approved up front (--yes)")


def ask_form(
    request: ElicitationRequest, read: Callable[[], str | None], write: Callable[[str], None]
) -> Elicitation:
    """Ask each field in turn; an empty line takes the default (or leaves an optional field out),
    end of input or no answer in time cancels."""
    schema = request.schema
    required = set(schema.get("required", []))
    write(f"\n{request.tool} asks: {for_terminal(request.message)}\n")
    content: dict[str, Any] = {}
    for name, prop in schema.get("properties", {}).items():
        while True:
            write(_prompt(name, prop, name in required))
            line = read()
            if line is None or line == "":
                return Elicitation("cancel", reason="no answer")
            text = line.strip()
            if not text:
                if "default" in prop:
                    content[name] = prop["default"]
                    break
                if name not in required:
                    break
                write("  an answer is needed\n")
                continue
            value, error = _parse(prop, text)
            if error is None:
                content[name] = value
                break
            write(f"  {error}\n")
    return Elicitation("accept", content)


def _prompt(name: str, prop: Mapping[str, Any], required: bool) -> str:
    title = prop.get("title") or name
    about = f" — {prop['description']}" if prop.get("description") else ""
    options = options_of(prop) if "enum" in prop or "oneOf" in prop or prop.get("type") == "array" else []
    lines = [f"  {for_terminal(str(title))}{for_terminal(about)}{'' if required else ' (optional)'}"]
    for i, (value, label) in enumerate(options, 1):
        lines.append(f"    {i}. {for_terminal(str(label))}" + ("" if label == value else f" ({value})"))
    kind = prop.get("type")
    hint = "numbers, comma-separated" if kind == "array" else "y/n" if kind == "boolean" else kind
    default = f", default {json.dumps(prop['default'])}" if "default" in prop else ""
    return "\n".join(lines) + f"\n  [{hint}{default}]: "


def _parse(prop: Mapping[str, Any], text: str) -> tuple[Any, str | None]:
    kind = prop.get("type")
    options = [v for v, _ in options_of(prop)]
    if kind == "array":
        picked = [_pick(options, part.strip()) for part in text.split(",") if part.strip()]
        if None in picked:
            return None, f"choose among 1-{len(options)}"
        return picked, None
    if options:
        choice = _pick(options, text)
        return (choice, None) if choice is not None else (None, f"choose among 1-{len(options)}")
    if kind == "boolean":
        if text.lower() in ("y", "yes", "true"):
            return True, None
        if text.lower() in ("n", "no", "false"):
            return False, None
        return None, "answer y or n"
    if kind in ("number", "integer"):
        try:
            number = int(text) if kind == "integer" else float(text)
        except ValueError:
            return None, f"an {kind} is needed" if kind == "integer" else "a number is needed"
        return number, None
    return text, None


def _pick(options: list[Any], text: str) -> Any:
    if text.isdigit() and 1 <= int(text) <= len(options):
        return options[int(text) - 1]
    return text if text in options else None
