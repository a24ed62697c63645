"""Interpreter code reduced to a skeleton: each string literal becomes a numbered placeholder.

A literal string is `\x01N\x01` (N indexes `literals`); a string with interpolation (`f'{x}'`,
`"#{x}"`, `"$x"`) is `\x02N\x02`. So a word inside a string (`print("eval(x)")`) is data, and
"is this argument one literal?" is a question about the skeleton.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tooldeck.safety.analysis.programs import Language

LIT = r"\x01\d+\x01"
_ONE_LITERAL = re.compile(r"\s*\x01(\d+)\x01\s*")
_PLAIN = r"'(?:\\.|[^'\\\n])*'|\"(?:\\.|[^\"\\\n])*\""
_STRINGS: dict[Language, re.Pattern[str]] = {
    "python": re.compile(
        r"(?P<prefix>[rRbBuUfF]{0,2})(?P<body>'''(?:.|\n)*?'''|\"\"\"(?:.|\n)*?\"\"\"|" + _PLAIN + ")"
    ),
    "node": re.compile(r"(?P<prefix>)(?P<body>" + _PLAIN + r"|`(?:\\.|[^`\\])*`)"),
    "lua": re.compile(r"(?P<prefix>)(?P<body>" + _PLAIN + r"|\[\[(?:.|\n)*?\]\])"),
}
_DEFAULT_STRINGS = re.compile(r"(?P<prefix>)(?P<body>" + _PLAIN + ")")
_INTERPOLATION: dict[Language, re.Pattern[str]] = {
    "node": re.compile(r"^`.*\$\{", re.S),
    "perl": re.compile(r"^\".*(?:\$[\w{]|@\w)", re.S),
    "php": re.compile(r"^\".*\$[\w{]", re.S),
    "ruby": re.compile(r"^\".*#\{", re.S),
}


@dataclass(frozen=True, slots=True)
class Skeleton:
    text: str
    literals: tuple[str, ...]

    def literal(self, text: str) -> str | None:
        """The value of `text` when it is exactly one string literal."""
        match = _ONE_LITERAL.fullmatch(text)
        return self.literals[int(match.group(1))] if match else None


def skeleton(language: Language, code: str) -> Skeleton:
    literals: list[str] = []
    interpolation = _INTERPOLATION.get(language)

    def replace(match: re.Match[str]) -> str:
        prefix, body = match.group("prefix"), match.group("body")
        index = len(literals)
        quote = 3 if body[:3] in ("'''", '"""') else 2 if body.startswith("[[") else 1
        literals.append(body[quote:-quote])
        dynamic = ("f" in prefix.lower() and re.search(r"\{[^{]", body)) or (
            interpolation is not None and interpolation.search(body)
        )
        mark = "\x02" if dynamic else "\x01"
        return f"{mark}{index}{mark}"

    pattern = _STRINGS.get(language, _DEFAULT_STRINGS)
    return Skeleton(pattern.sub(replace, code), tuple(literals))


def call_args(text: str, open_paren: int) -> list[str]:
    """The top-level, comma-separated arguments of the call whose `(` is at `open_paren`."""
    depth, start, out = 0, open_paren + 1, []
    for i in range(open_paren, len(text)):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                out.append(text[start:i])
                return [a for a in out if a.strip()] if len(out) > 1 or out[0].strip() else []
        elif ch == "," and depth == 1:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return out
