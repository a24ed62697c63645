"""Word expansion: what a word of the syntax tree becomes when bash runs it.

Quote removal, backslashes, ANSI-C strings (`$'\\x72m'`), tilde, parameters with defaults,
substrings, pattern substitution, case changes, indirection (`${!name}`), arrays (`"${a[@]}"`,
`${a[1]}`, slices), command and process substitution, and field splitting on IFS are modelled,
so `r''m`, `\\rm`, `$'\\x72\\x6d'`, `c="rm -rf"; $c` and `a=(rm -rf ~); "${a[@]}"` resolve to
the words bash would pass; what cannot be computed stays an unknown word. Substitutions are
handed back to the walker through `Substitutions`, which analyses what runs inside them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol

from tooldeck.safety.analysis.braces import brace_variants
from tooldeck.safety.analysis.model import DYNAMIC, HOME_MARK, Field, Flow, Taint
from tooldeck.safety.analysis.parameters import (
    Param,
    joined,
    parse_int,
    parse_param,
    slice_items,
    slice_text,
    strip_pattern,
    substitute,
    transform,
    unquote_pattern,
)
from tooldeck.safety.analysis.parser import node_text

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
    """Shell variables as static analysis knows them.

    An array is kept twice: its items by subscript in `arrays`, and all of them joined in
    `variables` (so `$a` over-approximates to every item, never to less). `refs` holds namerefs
    (`declare -n r=c`: `$r` reads `c`); `exported` the names every later program receives.
    """

    variables: dict[str, Field] = field(default_factory=dict)
    positional: list[Field] = field(default_factory=list)
    arrays: dict[str, dict[str, Field]] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)
    # Names passed to every later program's environment (`export GIT_SSH_COMMAND=...`).
    exported: set[str] = field(default_factory=set)
    # `$0`: the script's own path while a known script file runs (else the shell's name).
    zero: Field | None = None

    def copy(self) -> Scope:
        arrays = {name: dict(items) for name, items in self.arrays.items()}
        return Scope(
            dict(self.variables),
            list(self.positional),
            arrays,
            dict(self.refs),
            set(self.exported),
            self.zero,
        )

    def environment(self) -> tuple[tuple[str, Field], ...]:
        """The exported variables whose values are known to the analysis."""
        return tuple((n, self.variables[n]) for n in sorted(self.exported) if n in self.variables)

    def target(self, name: str) -> str:
        """The variable a name stands for, following namerefs."""
        for _ in range(8):
            if name not in self.refs:
                break
            name = self.refs[name]
        return name

    def lookup(self, name: str) -> Field | None:
        name = self.target(name)
        if name in self.variables:
            return self.variables[name]
        if name.isdigit():
            index = int(name)
            if index == 0:
                return self.zero or Field("bash")
            return self.positional[index - 1] if index <= len(self.positional) else None
        if name == "HOME":
            return Field(HOME_MARK)
        if name == "PWD":
            return Field(".")
        return None

    def items(self, name: str) -> list[Field] | None:
        """Every item of an array (a set scalar is an array of one); None when unknown."""
        name = self.target(name)
        if name in ("@", "*"):
            return list(self.positional)
        if name in self.arrays:
            return _ordered(self.arrays[name])
        value = self.lookup(name)
        return [value] if value is not None else None

    def item(self, name: str, key: str) -> Field | None:
        name = self.target(name)
        if name in self.arrays:
            return self.arrays[name].get(key)
        return self.lookup(name) if key in ("0", "") else None

    def set_items(self, name: str, items: dict[str, Field]) -> None:
        name = self.target(name)
        self.arrays[name] = items
        self.variables[name] = _joined_items(_ordered(items))

    @property
    def ifs(self) -> str:
        value = self.variables.get("IFS")
        return value.text if value is not None and value.exact else DEFAULT_IFS


def _ordered(items: dict[str, Field]) -> list[Field]:
    keys = list(items)
    if all(k.isdigit() for k in keys):
        keys.sort(key=int)
    return [items[k] for k in keys]


def _joined_items(items: list[Field]) -> Field:
    taint: frozenset[Taint] = frozenset().union(*(f.taint for f in items)) if items else frozenset()
    return Field(" ".join(f.text for f in items), all(f.exact for f in items), taint)


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
        items = self._quoted_items(node)
        if items is not None:
            return items
        pieces = _merge_literals(self._pieces(node, quoted=False, first=True))
        literal = [_is_literal(p) for p in pieces]
        if not any(literal):
            return _split(pieces, self.scope.ifs)
        out: list[Field] = []
        for texts in brace_variants([p.text for p in pieces], literal):
            variant = [replace(p, text=t) if t != p.text else p for p, t in zip(pieces, texts, strict=True)]
            out += _split(variant, self.scope.ifs)
        return out

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
        if kind == "brace_expression" and not quoted:
            return [_Piece(node_text(node), False)]
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
            if child.type == '"' and len(node_text(child)) > 1:
                # The grammar folds white space before the closing quote into it (`" "`, `"$x "`).
                out.append(_Piece(_unescape_double(node_text(child)[:-1]), True))
                continue
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

    def _quoted_items(self, node: Node) -> list[Field] | None:
        """`"$@"` or `"${a[@]}"` (or a slice of them) alone in a word: one field per item."""
        if node.type != "string" or node.named_child_count != 1:
            return None
        child = node.named_children[0]
        if child.type == "simple_expansion":
            return list(self.scope.positional) if node_text(child) == "$@" else None
        if child.type != "expansion":
            return None
        param = parse_param(child)
        if param.prefix or not param.every_item or param.star or param.operator not in (None, ":"):
            return None
        items = self.scope.items(param.name)
        if items is not None and param.operator == ":":
            items = self._sliced(items, param)
        return items if items is not None else [Field(node_text(child), exact=False)]

    def _parameter(self, node: Node, *, quoted: bool) -> _Piece:
        param = parse_param(node)
        if param.prefix == "!":
            return self._indirect(param, node, quoted)
        if param.every_item:
            items = self.scope.items(param.name)
            if items is not None and param.prefix == "#":
                return _Piece(str(len(items)), True)
            if items is not None and param.operator == ":":
                items = self._sliced(items, param)
            elif items is not None and param.operator is not None:
                items = [_field_of(self._operate(item, param, node, quoted)) for item in items]
            if items is None:
                return _Piece(node_text(node), quoted, exact=False)
            separator = self.scope.ifs[:1] if param.star and quoted else " "
            together = joined(items, separator)
            return _Piece(together.text, quoted, exact=together.exact, taint=together.taint)
        value = self._scalar(param)
        if param.prefix == "#":
            known = value is not None and value.exact
            return _Piece(str(len(value.text)) if value is not None and known else "0", True, exact=known)
        return self._operate(value, param, node, quoted)

    def _operate(self, value: Field | None, param: Param, node: Node, quoted: bool) -> _Piece:
        """One operator of `${name OP ...}` applied to the variable's value."""
        operator = param.operator
        if operator is None or operator in ("?", ":?"):
            # `${x:?}` stops the shell when x is unset: what runs otherwise is its value.
            return _from_value(value, node, quoted)
        if operator in (":-", "-", ":=", "="):
            unset = value is None or (operator.startswith(":") and value.exact and not value.text)
            if not unset:
                return _from_value(value, node, quoted)
            fallback = self._segment(param, 0) or Field("")
            if operator.endswith("=") and param.name:
                self.scope.variables[self.scope.target(param.name)] = fallback
            # An unknown variable with a default is analysed as its default: that is what runs
            # when it is unset, and the command name stays flagged as dynamic by the caller.
            exact = fallback.exact and value is not None
            return _Piece(fallback.text, quoted, exact=exact, taint=fallback.taint)
        if operator in (":+", "+"):
            if value is None:
                return _Piece("", quoted)
            alt = self._segment(param, 0) or Field("")
            return _Piece(alt.text, quoted, exact=alt.exact, taint=alt.taint)
        if value is None or not value.exact:
            return _from_value(value, node, quoted, exact=False)
        text = self._computed(value.text, param)
        if text is None:
            return _from_value(value, node, quoted, exact=False)
        return _Piece(text, quoted, taint=value.taint)

    def _computed(self, text: str, param: Param) -> str | None:
        operator = param.operator
        pattern = self._segment(param, 0, pattern=True) or Field("")
        if not pattern.exact:
            return None
        if operator == ":":
            offset, length = self._bounds(param)
            return slice_text(text, offset, length) if offset is not None else None
        if operator in ("#", "##", "%", "%%"):
            return strip_pattern(text, pattern.text, operator)
        if operator in ("^^", "^"):
            return text.upper() if operator == "^^" else text[:1].upper() + text[1:]
        if operator in (",,", ","):
            return text.lower() if operator == ",," else text[:1].lower() + text[1:]
        if operator in ("/", "//", "/#", "/%"):
            replacement = self._segment(param, 1) or Field("")
            if not replacement.exact:
                return None
            return substitute(text, pattern.text, replacement.text, operator)
        if operator == "@":
            return decode_ansi_c(text) if pattern.text == "E" else transform(text, pattern.text)
        return None

    def _indirect(self, param: Param, node: Node, quoted: bool) -> _Piece:
        """`${!name}` (the variable named by name's value) and `${!a[@]}` (an array's keys)."""
        if param.every_item:
            name = self.scope.target(param.name)
            if name in self.scope.arrays:
                return _Piece(" ".join(self.scope.arrays[name]), quoted)
            return (
                _Piece("0", quoted)
                if name in self.scope.variables
                else _Piece(node_text(node), quoted, exact=False)
            )
        pointer = self._scalar(param)
        if param.operator is not None or pointer is None or not pointer.exact:
            return _Piece(node_text(node), quoted, exact=False)
        match = re.fullmatch(r"([A-Za-z_]\w*|\d+)(?:\[([^\]]*)\])?", pointer.text)
        if match is None:
            return _Piece(node_text(node), quoted, exact=False)
        name, key = match.groups()
        return _from_value(
            self.scope.lookup(name) if key is None else self.scope.item(name, key), node, quoted
        )

    def _scalar(self, param: Param) -> Field | None:
        if param.index is None:
            return self.scope.lookup(param.name)
        key = self._index_key(param.index)
        return self.scope.item(param.name, key) if key is not None else None

    def _index_key(self, index: Node) -> str | None:
        if index.type in ("word", "number"):
            return node_text(index)
        value = self.value(index)
        return value.text if value.exact else None

    def _segment(self, param: Param, i: int, *, pattern: bool = False) -> Field | None:
        """The i-th operand of the operator (`${x/OPERAND0/OPERAND1}`), expanded; None when absent."""
        if i >= len(param.segments):
            return None
        pieces: list[_Piece] = []
        for part in param.segments[i]:
            if not part.is_named or (pattern and part.type in ("regex", "word")):
                pieces.append(_Piece(unquote_pattern(node_text(part)), True))
            else:
                pieces += self._pieces(part, quoted=False, first=not pieces)
        return _join(pieces) if pieces else Field("")

    def _bounds(self, param: Param) -> tuple[int | None, int | None]:
        """The offset and length of a substring; the offset is None when it cannot be computed."""
        values = [self._bound(param, i) for i in range(min(len(param.segments), 2))]
        offset = values[0] if values else None
        if len(values) > 1 and values[1] is None:
            return None, None
        return offset, values[1] if len(values) > 1 else None

    def _bound(self, param: Param, i: int) -> int | None:
        segment = self._segment(param, i)
        if segment is None or not segment.exact:
            return None
        text = segment.text.strip() or "0"
        if re.fullmatch(r"[A-Za-z_]\w*", text):
            # Slice bounds are arithmetic: a bare name is that variable's value.
            value = self.scope.lookup(text)
            text = value.text if value is not None and value.exact else ""
        return parse_int(text)

    def _sliced(self, items: list[Field], param: Param) -> list[Field] | None:
        offset, length = self._bounds(param)
        if offset is None:
            return None
        return slice_items(items, offset, length, positional=param.name in ("@", "*") and param.index is None)


def _is_literal(piece: _Piece) -> bool:
    return not piece.quoted and not piece.expanded and piece.exact and piece.content is None


def _merge_literals(pieces: list[_Piece]) -> list[_Piece]:
    """Adjacent unquoted literal pieces as one (the grammar splits `/{etc,usr}` into four words)."""
    out: list[_Piece] = []
    for piece in pieces:
        if out and _is_literal(out[-1]) and _is_literal(piece) and not out[-1].taint and not piece.taint:
            out[-1] = _Piece(out[-1].text + piece.text, False, glob=out[-1].glob or piece.glob)
        else:
            out.append(piece)
    return out


def _field_of(piece: _Piece) -> Field:
    return Field(piece.text, piece.exact, piece.taint)


def _from_value(value: Field | None, node: Node, quoted: bool, *, exact: bool = True) -> _Piece:
    if value is None:
        return _Piece(node_text(node), quoted, exact=False)
    return _Piece(value.text, quoted, exact=exact and value.exact, taint=value.taint)


def _word_piece(raw: str, *, quoted: bool, first: bool) -> _Piece:
    glob = False
    out: list[str] = []
    i = 0
    # bash also expands a tilde right after `name=` in any word (`dd of=~/x`), not only at the start.
    assignment = re.match(r"[A-Za-z_][A-Za-z0-9_]*=(?=~)", raw) if first and not quoted else None
    if assignment is not None:
        out.append(assignment.group(0))
        i = assignment.end()
    if first and not quoted and raw.startswith("~", i):
        end = raw.find("/", i)
        user = raw[i + 1 :] if end < 0 else raw[i + 1 : end]
        if re.fullmatch(r"[A-Za-z0-9._-]*", user):
            out.append(HOME_MARK if not user else f"/home/{user}")
            i = len(raw) if end < 0 else end
        elif user == "+":  # `~+` is $PWD
            out.append(".")
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
