"""A tool's example arguments (`Tool.input_examples`) in a rendered tool.

Anthropic takes them as a field of the tool (`input_examples`), checked by the API against the
tool's `input_schema`: an example the rendered schema refuses (a dialect may rewrite a schema,
e.g. fold a root `anyOf`) would fail the whole request, so it is folded into the description
instead. Every other dialect (Chat Completions, Responses, Gemini) has no such field: the
examples are appended to the description, one compact JSON object a line under
"Examples of arguments:", in their order, while the folded text stays within
`EXAMPLES_MAX_CHARS` characters; those that do not fit are left out, and a note says so.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

# The most characters the folded examples add to a description (header included): a few
# examples of a typical tool, without letting one tool's examples outweigh its schema.
EXAMPLES_MAX_CHARS = 1024
HEADER = "Examples of arguments:"

Examples = Sequence[Mapping[str, Any]]


def split_examples(schema: Mapping[str, Any], examples: Examples) -> tuple[Examples, Examples]:
    """(those `schema` accepts as they are, the others), each in the order given."""
    from tooldeck._core.schemas.validate import check_arguments, compile_schema

    check = compile_schema(schema, coerce=False)
    accepted: list[Mapping[str, Any]] = []
    refused: list[Mapping[str, Any]] = []
    for example in examples:
        _, errors = check_arguments(check, dict(example))
        (refused if errors else accepted).append(example)
    return accepted, refused


def fold_examples(description: str, examples: Examples) -> tuple[str, list[str]]:
    """`description` with `examples` appended (bounded), and notes on what was left out."""
    if not examples:
        return description, []
    lines: list[str] = []
    used = len(HEADER)
    for example in examples:
        line = json.dumps(example, ensure_ascii=False, separators=(", ", ": "))
        if used + 1 + len(line) > EXAMPLES_MAX_CHARS:
            break
        lines.append(line)
        used += 1 + len(line)
    notes = []
    if len(lines) < len(examples):
        notes.append(
            f"{len(examples) - len(lines)} of {len(examples)} input examples left out of the "
            f"description (the folded examples are capped at {EXAMPLES_MAX_CHARS} characters)"
        )
    if not lines:
        return description, notes
    block = HEADER + "\n" + "\n".join(lines)
    return (f"{description}\n\n{block}" if description else block), notes
