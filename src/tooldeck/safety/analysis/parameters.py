"""The parts of `${...}` and its text operators, applied to values the analysis knows.

Substrings (`${x:1:2}`, `${a[@]:1}`), pattern substitution (`${x//pat/rep}`, `/#`, `/%`) and the
`@` transformations (`${x@L}`) are computed exactly, so a command word assembled from pieces
(`x=xrmx; ${x:1:2} -rf ~`) resolves to the program it names. Each returns None when bash's
answer cannot be computed here; the caller then keeps the word as unknown.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from tooldeck.safety.analysis.model import Field
from tooldeck.safety.analysis.parser import node_text

if TYPE_CHECKING:
    from tree_sitter import Node

# Longer values are not searched for patterns: the match is quadratic in the length.
_MAX_PATTERN_TEXT = 512

T = TypeVar("T")


def parse_int(text: str) -> int | None:
    """A slice bound: a decimal number, possibly negative or in parentheses."""
    stripped = text.strip().strip("()").strip()
    try:
        return int(stripped, 10)
    except ValueError:
        return None


def slice_text(text: str, offset: int, length: int | None) -> str:
    """`${x:offset:length}`: a negative offset counts from the end, a negative length is an end."""
    size = len(text)
    start = offset if offset >= 0 else max(size + offset, 0)
    if length is None:
        return text[start:]
    end = start + length if length >= 0 else size + length
    return text[start:end] if end >= start else ""


def slice_items(items: list[T], offset: int, length: int | None, *, positional: bool = False) -> list[T]:
    """`${a[@]:offset:length}`; for `$@` the offset counts from `$0`, so 1 is the first item."""
    size = len(items)
    if positional:
        offset -= 1
        if offset < 0:
            # `${@:0}` starts with $0, the shell's name, which is not a positional item.
            offset = 0
    start = offset if offset >= 0 else max(size + offset, 0)
    if length is None:
        return items[start:]
    end = start + length if length >= 0 else size + length
    return items[start:end] if end >= start else []


def substitute(text: str, pattern: str, replacement: str, operator: str) -> str | None:
    """`${x/pat/rep}` (first match), `//` (every match), `/#` (at the start), `/%` (at the end).

    Bash replaces the longest match of the glob `pattern` at each position it tries.
    """
    if len(text) > _MAX_PATTERN_TEXT:
        return None
    if not pattern:
        return text
    if operator == "/#":
        for end in range(len(text), -1, -1):
            if fnmatch.fnmatchcase(text[:end], pattern):
                return replacement + text[end:]
        return text
    if operator == "/%":
        for start in range(len(text) + 1):
            if fnmatch.fnmatchcase(text[start:], pattern):
                return text[:start] + replacement
        return text
    out: list[str] = []
    i = 0
    replaced = False
    while i < len(text):
        match_end = None if replaced and operator == "/" else _longest_match(text, i, pattern)
        if match_end is None:
            out.append(text[i])
            i += 1
            continue
        out.append(replacement)
        replaced = True
        i = match_end
    return "".join(out)


def _longest_match(text: str, start: int, pattern: str) -> int | None:
    for end in range(len(text), start, -1):
        if fnmatch.fnmatchcase(text[start:end], pattern):
            return end
    return None


def transform(text: str, letter: str) -> str | None:
    """`${x@L}`, `${x@U}`, `${x@u}`; the other transformations quote or describe the value."""
    if letter == "L":
        return text.lower()
    if letter == "U":
        return text.upper()
    if letter == "u":
        return text[:1].upper() + text[1:]
    return None


def joined(items: list[Field], separator: str = " ") -> Field:
    """Array items as one field (`${a[*]}`, or `${a[@]}` before field splitting)."""
    text = separator.join(f.text for f in items)
    taint = frozenset().union(*(f.taint for f in items)) if items else frozenset()
    return Field(text, all(f.exact for f in items), taint)


@dataclass(slots=True)
class Param:
    """The parts of `${...}`: `${!name}`/`${#name}` prefixes, a subscript, an operator and its operands."""

    name: str = ""
    index: Node | None = None
    prefix: str = ""
    operator: str | None = None
    segments: list[list[Node]] = field(default_factory=list)

    @property
    def every_item(self) -> bool:
        """`$@`, `$*`, `${a[@]}`, `${a[*]}`: all the items."""
        if self.index is None:
            return self.name in ("@", "*")
        return node_text(self.index) in ("@", "*")

    @property
    def star(self) -> bool:
        return (self.index is None and self.name == "*") or (
            self.index is not None and node_text(self.index) == "*"
        )


_SPLIT_OPERATORS = frozenset({":", "/", "//", "/#", "/%"})


def parse_param(node: Node) -> Param:
    param = Param()
    children = [c for c in node.children if c.type not in ("${", "}", "$")]
    i = 0
    if len(children) > 1 and children[0].type in ("!", "#"):
        param.prefix = children[0].type
        i = 1
    if i < len(children) and children[i].type in ("variable_name", "special_variable_name"):
        param.name = node_text(children[i])
        i += 1
    elif i < len(children) and children[i].type == "subscript":
        base = children[i].child_by_field_name("name")
        param.name = node_text(base) if base is not None else ""
        param.index = children[i].child_by_field_name("index")
        i += 1
    if i < len(children) and not children[i].is_named:
        param.operator = node_text(children[i])
        i += 1
    segment: list[Node] = []
    for child in children[i:]:
        separator = not child.is_named and node_text(child) in (":", "/")
        if separator and param.operator in _SPLIT_OPERATORS:
            param.segments.append(segment)
            segment = []
        else:
            segment.append(child)
    if segment or param.segments or param.operator is not None:
        param.segments.append(segment)
    if param.operator is not None and param.segments == [[]] and param.operator not in (":-", "-", ":=", "="):
        param.segments = []
    return param


def unquote_pattern(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def strip_pattern(text: str, pattern: str, operator: str) -> str:
    cuts = range(len(text) + 1)
    if operator.startswith("#"):
        order = reversed(cuts) if operator == "##" else iter(cuts)
        for i in order:
            if fnmatch.fnmatchcase(text[:i], pattern):
                return text[i:]
    else:
        order = iter(cuts) if operator == "%%" else reversed(cuts)
        for i in order:
            if fnmatch.fnmatchcase(text[i:], pattern):
                return text[:i]
    return text
