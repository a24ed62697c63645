"""The canonical form of a command, to bind an approval grant to exactly what was approved.

Whitespace between words on a line collapses to one space and comments go; line breaks and
what follows them stay as they are (they separate commands, and heredoc bodies start there). Everything else is kept byte for byte — quoting included — so two commands
normalise alike only when bash would run them alike. Text that does not parse is only stripped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tooldeck.safety.analysis.parser import parse_lenient

if TYPE_CHECKING:
    from tree_sitter import Node


def normalise_command(command: str) -> str:
    """`rm   -rf  build   # old` and `rm -rf build` normalise to the same text."""
    stripped = command.strip()
    if not stripped or "\x00" in stripped or any(0xD800 <= ord(c) <= 0xDFFF for c in stripped):
        return stripped
    root, error = parse_lenient(stripped)
    if error is not None:
        return stripped
    data = stripped.encode("utf-8")  # the parser's bytes differ only inside 4-byte characters
    out: list[bytes] = []
    position = 0
    for start, end in _leaves(root):
        gap = data[position:start]
        if gap.strip() or b"\n" in gap:
            # Text the grammar does not cover, and line breaks with the indentation after them
            # (a heredoc body starts there): kept exactly.
            out.append(gap)
        elif gap and out:
            out.append(b" ")
        out.append(data[start:end])
        position = end
    return b"".join(out).decode("utf-8").strip()


def _leaves(root: Node) -> list[tuple[int, int]]:
    """Byte spans of the tokens, in order; comments left out, heredoc bodies kept whole."""
    spans: list[tuple[int, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "comment":
            continue
        if node.child_count == 0 or node.type in ("heredoc_body", "string_content", "raw_string", "word"):
            spans.append((node.start_byte, node.end_byte))
            continue
        stack.extend(reversed(node.children))
    spans.sort()
    return spans
