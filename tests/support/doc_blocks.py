"""The code blocks of a Markdown page (the README, a docs page), and running its Python ones.

A fenced block's info string is its language and, optionally, `title="NAME"`: a titled block is
a file the reader saves under that name (mkdocs-material shows the title above the block), an
untitled Python block a snippet to run. A reader may start at any section: each snippet runs in
a namespace of its own, holding only what the snippets it says it continues (a first line
`# Continues the snippet under "Section"`, by their `## ` section's title) defined.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r'^```(?P<lang>[\w-]*)(?: title="(?P<title>[^"]+)")?\n(?P<body>.*?)^```$', re.M | re.S)
CONTINUES = re.compile(r'# Continues the snippets? under ((?:"[^"]+"[^"\n]*)+)')


@dataclass(frozen=True)
class Block:
    """One fenced code block: its language, title (a file name, or None), text, the title of
    the `## ` section it is in (the page's own title before the first) and its first line."""

    lang: str
    title: str | None
    body: str
    section: str
    line: int


def blocks(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    headings = [
        (m.start(), m.group(1).split(":")[0].strip()) for m in re.finditer(r"^#{1,2} (.+)$", text, re.M)
    ]
    found = []
    for m in FENCE.finditer(text):
        section = next((title for start, title in reversed(headings) if start < m.start()), "")
        line = text.count("\n", 0, m.start()) + 1
        found.append(Block(m["lang"], m["title"], m["body"], section, line))
    return found


def write_files(path: Path, folder: Path) -> list[str]:
    """Save the page's titled blocks into `folder`, as its reader would; their names."""
    names = []
    for block in blocks(path):
        if block.title:
            (folder / block.title).write_text(block.body, encoding="utf-8")
            names.append(block.title)
    return names


def run_python_snippets(path: Path) -> int:
    """Run the page's untitled Python blocks, each after those it says it continues; how many ran."""
    after: dict[str, dict[str, object]] = {}
    ran = 0
    for block in blocks(path):
        if block.lang != "python" or block.title:
            continue
        namespace: dict[str, object] = {}
        named = CONTINUES.match(block.body.split("\n", 1)[0])
        for earlier in re.findall(r'"([^"]+)"', named.group(1)) if named else []:
            assert earlier in after, (
                f"{path.name}:{block.line}: continues {earlier!r}, which has no snippet above"
            )
            namespace.update(after[earlier])
        exec(compile(block.body, f"{path} line {block.line} ({block.section})", "exec"), namespace)
        after[block.section] = namespace
        ran += 1
    return ran


def command_lines(block: Block) -> Iterator[list[str]]:
    """The commands of a shell block, as argument lists: continuation lines joined, `$ ` prompts
    and output lines (in a console block) dropped, comments cut, leading `VAR=value` assignments
    skipped, and each command of a `&&`, `;`, `|` or `&` chain on its own."""
    text = block.body.replace("\\\n", " ")
    heredoc: str | None = None
    for raw in text.splitlines():
        if heredoc is not None:
            heredoc = None if raw.strip() == heredoc else heredoc
            continue
        line = raw
        if block.lang == "console":
            if not raw.startswith("$ "):
                continue
            line = raw[2:]
        if m := re.search(r"<<-?'?(\w+)'?", line):
            heredoc = m.group(1)
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        command: list[str] = []
        redirect = False
        for token in [*lexer, ";"]:
            if redirect:  # the file of a redirection (`> out.txt`, `2>/dev/null`)
                redirect = False
            elif token and set(token) <= set("<>"):
                redirect = True
                if command and command[-1].isdigit():
                    command.pop()
            elif token and set(token) <= set(";&|"):
                while command and re.fullmatch(r"[A-Za-z_]\w*=.*", command[0]):
                    command.pop(0)
                if command:
                    yield command
                command = []
            else:
                command.append(token)
