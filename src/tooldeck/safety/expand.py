"""Word expansion: what a word of the syntax tree becomes when bash runs it.

Quote removal, backslashes, ANSI-C strings (`$'\\x72m'`), tilde, parameters with defaults,
command and process substitution, and field splitting on IFS are modelled, so `r''m`, `\\rm`,
`$'\\x72\\x6d'` and `c="rm -rf"; $c` resolve to the words bash would pass. Substitutions are
handed back to the walker through `Substitutions`, which analyses what runs inside them.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from tooldeck.safety.model import DYNAMIC, HOME_MARK, Field, Flow, Taint
from tooldeck.safety.parser import node_text

if TYPE_CHECKING:
    from tree_sitter import Node

GLOB_CHARS = frozenset("*?[")
DEFAULT_IFS = " \t\n"


class Substitutions(Protocol):
    """The walker's side of expansion: run what a substitution contains, report its output."""

    def command_output(self, node: Node) -> Flow: ...

    def process_output(self, node: Node) -> Flow: ...


@dataclass(slots=True)
class Scope:
    """Shell variables as static analysis knows them."""

    variables: dict[str, Field] = field(default_factory=dict)
    positional: list[Field] = field(default_factory=list)

    def copy(self) -> Scope:
        return Scope(dict(self.variables), list(self.positional))

    def lookup(self, name: str) -> Field | None:
        if name in self.variables:
            return self.variables[name]
        if name.isdigit():
            index = int(name)
            if index == 0:
                return Field("bash")
            return self.positional[index - 1] if index <= len(self.positional) else None
        if name == "HOME":
            return Field(HOME_MARK)
        if name == "PWD":
            return Field(".")
        return None

    @property
    def ifs(self) -> str:
        value = self.variables.get("IFS")
        return value.text if value is not None and value.exact else DEFAULT_IFS


@dataclass(slots=True)
class _Piece:
    text: str
    quoted: bool
    exact: bool = True
    taint: frozenset[Taint] = frozenset()
    glob: bool = False
    content: Flow | None = None
    # Results of parameter expansion and command substitution are split on IFS; literal text is not.
    expanded: bool = False


class Expander:
    """Expands word nodes against a scope; substitutions go through `subs`."""

    def __init__(self, scope: Scope, subs: Substitutions) -> None:
        self.scope = scope
        self.subs = subs

    def fields(self, node: Node) -> list[Field]:
        """The fields one argument node becomes (zero, one or many after splitting)."""
        if _is_quoted_at(node):
            return list(self.scope.positional)
        pieces = self._pieces(node, quoted=False, first=True)
        return _split(pieces, self.scope.ifs)

    def value(self, node: Node | None) -> Field:
        """One field without splitting or globbing, as in `a=VALUE` or a redirection target."""
        if node is None:
            return Field("")
        return _join(self._pieces(node, quoted=False, first=True))

    def _pieces(self, node: Node, *, quoted: bool, first: bool) -> list[_Piece]:
        kind = node.type
        if kind == "word":
            return [_word_piece(node_text(node), quoted=quoted, first=first)]
        if kind in ("number", "variable_name"):
            return [_Piece(node_text(node), quoted)]
        if kind == "raw_string":
            return [_Piece(node_text(node)[1:-1], True)]
        if kind == "ansi_c_string":
            return [_Piece(decode_ansi_c(node_text(node)[2:-1]), True)]
        if kind in ("string", "translated_string"):
            return self._string_pieces(node)
        if kind == "concatenation":
            out: list[_Piece] = []
            for i, child in enumerate(node.children):
                out += self._pieces(child, quoted=quoted, first=first and i == 0)
            return out
        if kind in ("simple_expansion", "expansion"):
            piece = self._parameter(node, quoted=quoted)
            piece.expanded = True
            return [piece]
        if kind == "command_substitution":
            piece = self._command_sub(node, quoted=quoted)
            piece.expanded = True
            return [piece]
        if kind == "process_substitution":
            flow = self.subs.process_output(node)
            return [_Piece("/dev/fd/63", True, exact=False, taint=flow.taint, content=flow)]
        if kind == "arithmetic_expansion":
            return [_Piece(node_text(node), True, exact=False)]
        if kind == "$":
            return []
        return [_Piece(node_text(node), quoted, exact=False)]

    def _string_pieces(self, node: Node) -> list[_Piece]:
        out: list[_Piece] = []
        raw = node.text or b""
        previous_end: int | None = None
        for child in node.children:
            if previous_end is not None and child.start_byte > previous_end:
                # The grammar leaves some characters of a string (newlines) outside every child.
                gap = raw[previous_end - node.start_byte : child.start_byte - node.start_byte]
                out.append(_Piece(_unescape_double(gap.decode("utf-8", "replace")), True))
            previous_end = child.end_byte
            if child.type in ('"', "$"):
                continue
            if child.type == "string_content":
                out.append(_Piece(_unescape_double(node_text(child)), True))
            else:
                out += self._pieces(child, quoted=True, first=False)
        return out or [_Piece("", True)]

    def _command_sub(self, node: Node, *, quoted: bool) -> _Piece:
        flow = self.subs.command_output(node)
        if flow.text is not None:
            return _Piece(flow.text.rstrip("\n"), quoted, taint=flow.taint)
        return _Piece(node_text(node), quoted, exact=False, taint=flow.taint | {DYNAMIC})

    def _parameter(self, node: Node, *, quoted: bool) -> _Piece:
        name, operator, operand = _parameter_parts(node)
        value = self.scope.lookup(name) if name else None
        if name in ("@", "*"):
            joined = " ".join(f.text for f in self.scope.positional)
            exact = all(f.exact for f in self.scope.positional)
            return _Piece(joined, quoted, exact=exact)
        if operator is None:
            return _from_value(value, node, quoted)
        if operator == "#" and operand is None:
            return _Piece(str(len(value.text)) if value and value.exact else "0", True, exact=bool(value))
        if operator in (":-", "-", ":=", "="):
            unset = value is None or (operator.startswith(":") and value.exact and not value.text)
            if not unset:
                return _from_value(value, node, quoted)
            fallback = self.value(operand) if operand is not None else Field("")
            if operator.endswith("=") and name:
                self.scope.variables[name] = fallback
            # An unknown variable with a default is analysed as its default: that is what runs
            # when it is unset, and the command name stays flagged as dynamic by the caller.
            exact = fallback.exact and value is not None
            return _Piece(fallback.text, quoted, exact=exact, taint=fallback.taint)
        if operator in (":+", "+"):
            if value is None:
                return _Piece("", quoted)
            alt = self.value(operand) if operand is not None else Field("")
            return _Piece(alt.text, quoted, exact=alt.exact, taint=alt.taint)
        return self._transformed(value, operator, operand, node, quoted)

    def _transformed(
        self, value: Field | None, operator: str, operand: Node | None, node: Node, quoted: bool
    ) -> _Piece:
        if value is None or not value.exact:
            return _from_value(value, node, quoted, exact=False)
        pattern = node_text(operand) if operand is not None else ""
        text = value.text
        if operator in ("#", "##", "%", "%%"):
            text = _strip_pattern(text, pattern, operator)
        elif operator in ("^^", "^"):
            text = text.upper() if operator == "^^" else text[:1].upper() + text[1:]
        elif operator in (",,", ","):
            text = text.lower() if operator == ",," else text[:1].lower() + text[1:]
        else:
            return _from_value(value, node, quoted, exact=False)
        return _Piece(text, quoted, taint=value.taint)


def _is_quoted_at(node: Node) -> bool:
    """`"$@"` alone: one field per positional parameter."""
    if node.type != "string" or node.named_child_count != 1:
        return False
    child = node.named_children[0]
    return child.type == "simple_expansion" and node_text(child) == "$@"


def _parameter_parts(node: Node) -> tuple[str, str | None, Node | None]:
    name = ""
    operator: str | None = None
    operand: Node | None = None
    for child in node.children:
        if child.type in ("variable_name", "special_variable_name"):
            name = name or node_text(child)
        elif child.type == "subscript":
            base = child.child_by_field_name("name")
            name = node_text(base) if base is not None else ""
        elif child.type in ("$", "${", "}"):
            continue
        elif operator is None and not child.is_named:
            operator = node_text(child)
        elif operand is None and child.is_named:
            operand = child
    if operator == "#" and not name:
        return name, operator, None
    return name, operator, operand


def _from_value(value: Field | None, node: Node, quoted: bool, *, exact: bool = True) -> _Piece:
    if value is None:
        return _Piece(node_text(node), quoted, exact=False)
    return _Piece(value.text, quoted, exact=exact and value.exact, taint=value.taint)


def _strip_pattern(text: str, pattern: str, operator: str) -> str:
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


def _word_piece(raw: str, *, quoted: bool, first: bool) -> _Piece:
    glob = False
    out: list[str] = []
    i = 0
    if first and not quoted and raw.startswith("~"):
        end = raw.find("/")
        user = raw[1:] if end < 0 else raw[1:end]
        if re.fullmatch(r"[A-Za-z0-9._-]*", user):
            out.append(HOME_MARK if not user else f"/home/{user}")
            i = len(raw) if end < 0 else end
    while i < len(raw):
        ch = raw[i]
        if ch == "\\" and i + 1 < len(raw):
            if raw[i + 1] != "\n":
                out.append(raw[i + 1])
            i += 2
            continue
        if ch in GLOB_CHARS and not quoted:
            glob = True
        out.append(ch)
        i += 1
    return _Piece("".join(out), quoted, glob=glob)


def _unescape_double(raw: str) -> str:
    return re.sub(r"\\([$`\"\\\n])", lambda m: "" if m.group(1) == "\n" else m.group(1), raw)


_ANSI_SIMPLE = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "e": "\x1b",
    "E": "\x1b",
}


def decode_ansi_c(body: str) -> str:
    """The text of `$'...'` (and of printf/echo -e escapes): \\xHH, \\NNN, \\uXXXX, \\n, ..."""
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\" or i + 1 >= len(body):
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1]
        match = re.match(
            r"x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|0?([0-7]{1,3})", body[i + 1 :]
        )
        if match and (nxt in "xuU" or nxt.isdigit()):
            digits = next(g for g in match.groups() if g is not None)
            base = 8 if match.group(4) is not None else 16
            code = int(digits, base)
            out.append(chr(code) if code < 0x110000 and not 0xD800 <= code < 0xE000 else "?")
            i += 1 + match.end()
            continue
        out.append(_ANSI_SIMPLE.get(nxt, nxt if nxt in "\\'\"?" else "\\" + nxt))
        i += 2
    return "".join(out)


def _join(pieces: list[_Piece]) -> Field:
    text = "".join(p.text for p in pieces)
    exact = all(p.exact for p in pieces)
    taint: frozenset[Taint] = frozenset().union(*(p.taint for p in pieces)) if pieces else frozenset()
    content = next((p.content for p in pieces if p.content is not None), None)
    opaque = any(p.text for p in pieces) and all(not p.exact for p in pieces if p.text)
    return Field(text, exact, taint, any(p.glob for p in pieces), content, opaque)


def _split(pieces: list[_Piece], ifs: str) -> list[Field]:
    """Field splitting: unquoted, known expansion results split on IFS characters."""
    fields: list[list[_Piece]] = [[]]
    keep: list[bool] = [False]
    for piece in pieces:
        splittable = not piece.quoted and piece.exact and piece.expanded
        if not splittable:
            fields[-1].append(piece)
            keep[-1] = keep[-1] or piece.quoted or bool(piece.text)
            continue
        parts = re.split(f"[{re.escape(ifs)}]+", piece.text) if ifs else [piece.text]
        for j, part in enumerate(parts):
            if j > 0:
                fields.append([])
                keep.append(False)
            if part:
                fields[-1].append(
                    _Piece(part, False, taint=piece.taint, glob=any(c in GLOB_CHARS for c in part))
                )
                keep[-1] = True
    return [_join(f) for f, k in zip(fields, keep, strict=True) if k]
