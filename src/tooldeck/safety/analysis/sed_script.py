"""Reading a sed script the way GNU sed does, for what it runs and the files it writes.

GNU sed's `e` command runs a shell command (`1e rm -rf ~`), its `s///e` flag runs the pattern
space as one, and `w FILE` (the command or the `s` flag) writes a file. Addresses, regular
expressions, replacements and the text of `a`/`i`/`c` are skipped over, so an `e` inside them
(`s/e/E/`, `/e/d`) is not a command.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tooldeck.safety.analysis.model import Field, Invocation


@dataclass(slots=True)
class SedEffects:
    # Shell commands run by `e COMMAND`; None for `e` alone or `s///e` (the pattern space).
    runs: list[str | None] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)


def sed_scripts(inv: Invocation) -> list[Field]:
    """The scripts a sed command line gives (`-e`, `--expression`, or its first operand);
    none under `--sandbox`, which refuses `e`, `r` and `w`."""
    args = inv.args
    scripts: list[Field] = []
    operands: list[Field] = []
    explicit = False
    i = 0
    while i < len(args):
        word = args[i].text
        following = args[i + 1] if i + 1 < len(args) else None
        if word == "--sandbox":
            return []
        if word == "--":
            operands += args[i + 1 :]
            break
        if word in ("-e", "--expression", "-f", "--file", "-l", "--line-length"):
            if word in ("-e", "--expression") and following is not None:
                scripts.append(following)
            explicit = explicit or word in ("-e", "--expression", "-f", "--file")
            i += 2
            continue
        if word.startswith(("--expression=", "--file=")):
            if word.startswith("--expression="):
                scripts.append(Field(word.split("=", 1)[1], args[i].exact))
            explicit = True
        elif word.startswith("--"):
            pass
        elif word.startswith("-") and len(word) > 1:
            consumed, value, kind = _short_cluster(word[1:], following)
            explicit = explicit or kind in ("e", "f")
            if value is not None and kind == "e":
                scripts.append(value)
            i += 1 + consumed
            continue
        else:
            operands.append(args[i])
        i += 1
    if not explicit and operands:
        scripts.append(operands[0])
    return scripts


def _short_cluster(cluster: str, following: Field | None) -> tuple[int, Field | None, str]:
    """(words consumed after this one, the option's value, which of -e/-f/-l took it)."""
    for j, ch in enumerate(cluster):
        if ch == "i":
            return 0, None, ""  # what follows is the backup suffix
        if ch in "efl":
            rest = cluster[j + 1 :]
            if rest:
                return 0, Field(rest), ch
            return (1, following, ch) if following is not None else (0, None, ch)
    return 0, None, ""


def sed_effects(script: str) -> SedEffects:
    out = SedEffects()
    pos, size = 0, len(script)
    while pos < size:
        pos = _skip(script, pos, " \t\n;")
        pos = _address(script, pos)
        if pos < size and script[pos] == ",":
            pos = _address(script, _skip(script, pos + 1, " \t"))
        pos = _skip(script, pos, " \t!")
        if pos >= size:
            break
        command = script[pos]
        pos += 1
        if command in "{}=dDgGhHnNpPxzF":
            continue
        if command == "#" or command in "aic":
            pos = _line_end(script, pos)
        elif command == "e":
            end = _line_end(script, pos)
            text = script[pos:end].strip()
            out.runs.append(text or None)
            pos = end
        elif command in "rRwW":
            end = _line_end(script, pos)
            if command in "wW":
                out.writes.append(script[pos:end].strip())
            pos = end
        elif command in "btT:":
            while pos < size and script[pos] not in ";\n":
                pos += 1
        elif command in "sy":
            pos = _substitution(script, pos, command, out)
        elif command in "lLqQ":
            while pos < size and (script[pos].isdigit() or script[pos] == " "):
                pos += 1
    return out


def _substitution(script: str, pos: int, command: str, out: SedEffects) -> int:
    if pos >= len(script):
        return pos
    delimiter = script[pos]
    pos = _delimited(script, _delimited(script, pos + 1, delimiter), delimiter)
    if command == "y":
        return pos
    flags_start = pos
    while pos < len(script) and (script[pos] in "gpiImMe" or script[pos].isdigit()):
        pos += 1
    if "e" in script[flags_start:pos]:
        out.runs.append(None)
    if pos < len(script) and script[pos] == "w":
        end = _line_end(script, pos + 1)
        out.writes.append(script[pos + 1 : end].strip())
        pos = end
    return pos


def _delimited(script: str, pos: int, delimiter: str) -> int:
    """The position after the next unescaped `delimiter` (a bracket expression may hold it)."""
    in_class = False
    while pos < len(script):
        ch = script[pos]
        if ch == "\\":
            pos += 2
            continue
        if ch == "[" and not in_class:
            in_class = True
        elif ch == "]" and in_class:
            in_class = False
        elif ch == delimiter and not in_class:
            return pos + 1
        elif ch == "\n" and delimiter != "\n":
            return pos
        pos += 1
    return pos


def _address(script: str, pos: int) -> int:
    size = len(script)
    if pos >= size:
        return pos
    if script[pos] == "$":
        pos += 1
    elif script[pos].isdigit() or script[pos] in "+~":
        pos += 1
        while pos < size and (script[pos].isdigit() or script[pos] == "~"):
            pos += 1
    elif script[pos] == "/":
        pos = _delimited(script, pos + 1, "/")
    elif script[pos] == "\\" and pos + 1 < size:
        pos = _delimited(script, pos + 2, script[pos + 1])
    else:
        return pos
    while pos < size and script[pos] in "IM":
        pos += 1
    return pos


def _skip(script: str, pos: int, characters: str) -> int:
    while pos < len(script) and script[pos] in characters:
        pos += 1
    return pos


def _line_end(script: str, pos: int) -> int:
    while pos < len(script) and script[pos] != "\n":
        if script[pos] == "\\" and pos + 1 < len(script):
            pos += 1
        pos += 1
    return pos
