"""The table of programs (`programs.toml`): wrappers, package runners and CLIs, declared once.

`programs()` loads the table the first time it is asked for and checks every entry's examples
against the readers that use it (`unwrap`, `package_command`, `command_words`); a wrong
example is a `TableError` naming the entry and the line. Rules ask the table which programs
belong to a class (`in_class("container-engine")`) and what a CLI's words are after its global
options (`command_words`), so a new program like a known one is a table entry, not code.
"""

from __future__ import annotations

import re
import shlex
import tomllib
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

from tooldeck.safety.analysis.argv import word_operands
from tooldeck.safety.analysis.model import Field, Invocation
from tooldeck.safety.knowledge.entries import (
    Example,
    Program,
    Runner,
    ShellString,
    Table,
    TableError,
    Wrapper,
    WriteKind,
    Writes,
)
from tooldeck.safety.knowledge.wrappers import package_command, unwrap

TABLE_FILE = Path(__file__).with_name("programs.toml")


def _strings(entry: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TableError(f"{where}.{key}: expected a list of strings")
    return tuple(value)


def _examples(entry: dict[str, Any], where: str, keys: tuple[str, ...]) -> tuple[Example, ...]:
    out: list[Example] = []
    for list_key, prefix in (("examples", ""), ("not_examples", "not_")):
        for i, example in enumerate(entry.get(list_key, [])):
            found = [k for k in keys if isinstance(example, dict) and prefix + k in example]
            if len(found) != 1 or "line" not in example or len(example) != 2:
                wanted = " or ".join(prefix + k for k in keys)
                raise TableError(f"{where}.{list_key}[{i}]: expected {{line, {wanted}}}")
            expected = str(example[prefix + found[0]])
            out.append(Example(str(example["line"]), found[0], expected, bool(prefix)))
    if not any(not e.negative for e in out):
        raise TableError(f"{where}: an entry needs at least one example")
    return tuple(out)


_KNOWN_KEYS = {
    "wrapper": {"names", "value_options", "skip_operands", "privileged", "sets_env", "shell_options"}
    | {"command_options", "subcommands", "program_subcommands", "argv_options"}
    | {"examples", "not_examples"},
    "runner": {"names", "subcommands", "value_options", "call_options", "bare", "examples", "not_examples"},
    "shell_string": {"names", "options", "value_options", "skip_operands", "examples", "not_examples"},
    "program": {"names", "classes", "global_values", "global_flags", "chdir", "sql_options"}
    | {"sql_operands", "writes", "examples", "not_examples", "value_options"},
}


def _entries(data: dict[str, Any], kind: str) -> Iterable[tuple[str, dict[str, Any]]]:
    for i, entry in enumerate(data.get(kind, [])):
        names = entry.get("names")
        where = f"{kind}[{i}]" + (f" ({names[0]})" if isinstance(names, list) and names else "")
        unknown = set(entry) - _KNOWN_KEYS[kind]
        if unknown:
            raise TableError(f"{where}: unknown key {sorted(unknown)[0]!r}")
        if not _strings(entry, "names", where):
            raise TableError(f"{where}.names: an entry needs at least one name")
        yield where, entry


def _wrapper(entry: dict[str, Any], where: str) -> Wrapper:
    return Wrapper(
        _strings(entry, "names", where),
        frozenset(_strings(entry, "value_options", where)),
        int(entry.get("skip_operands", 0)),
        bool(entry.get("privileged", False)),
        bool(entry.get("sets_env", False)),
        frozenset(_strings(entry, "shell_options", where)),
        frozenset(_strings(entry, "command_options", where)),
        frozenset(_strings(entry, "subcommands", where)),
        _examples(entry, where, ("runs",)),
        frozenset(_strings(entry, "program_subcommands", where)),
        frozenset(_strings(entry, "argv_options", where)),
    )


def _runner(entry: dict[str, Any], where: str) -> Runner:
    return Runner(
        _strings(entry, "names", where),
        tuple(tuple(s.split()) for s in _strings(entry, "subcommands", where)),
        frozenset(_strings(entry, "value_options", where)),
        frozenset(_strings(entry, "call_options", where)),
        bool(entry.get("bare", False)),
        _examples(entry, where, ("runs",)),
    )


def _shell_string(entry: dict[str, Any], where: str) -> ShellString:
    return ShellString(
        _strings(entry, "names", where),
        frozenset(_strings(entry, "options", where)),
        frozenset(_strings(entry, "value_options", where)),
        int(entry.get("skip_operands", 0)),
        _examples(entry, where, ("code",)),
    )


def _program(entry: dict[str, Any], where: str) -> Program:
    writes = entry.get("writes")
    if writes is not None:
        operands, kind = writes.get("operands", ""), writes.get("kind", "overwrite")
        if operands not in ("", "all", "last", "second"):
            raise TableError(f"{where}.writes.operands: expected all, last or second, not {operands!r}")
        if kind not in ("overwrite", "replace", "empty"):
            raise TableError(f"{where}.writes.kind: expected overwrite, replace or empty, not {kind!r}")
        writes = Writes(
            frozenset(_strings(writes, "options", where + ".writes")),
            _strings(writes, "keys", where + ".writes"),
            operands,
            frozenset(_strings(writes, "value_options", where + ".writes")),
            kind,
        )
    return Program(
        _strings(entry, "names", where),
        frozenset(_strings(entry, "classes", where)),
        frozenset(_strings(entry, "global_values", where)),
        frozenset(_strings(entry, "global_flags", where)),
        frozenset(_strings(entry, "chdir", where)),
        _strings(entry, "sql_options", where),
        bool(entry.get("sql_operands", False)),
        writes,
        _examples(entry, where, ("command", "writes", "sql", "operands")),
        frozenset(_strings(entry, "value_options", where)),
    )


def _index(entries: Iterable[tuple[str, Any]], kind: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for where, item in entries:
        for name in item.names:
            if name in out:
                raise TableError(f"{where}: {name!r} is declared twice as a {kind}")
            out[name] = item
    return out


def load_table(path: Path = TABLE_FILE) -> Table:
    """Parse and check a program table; every example must hold."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise TableError(f"{path.name}: {exc}") from exc
    table = Table(
        _index(((w, _wrapper(e, w)) for w, e in _entries(data, "wrapper")), "wrapper"),
        _index(((w, _runner(e, w)) for w, e in _entries(data, "runner")), "runner"),
        _index(((w, _shell_string(e, w)) for w, e in _entries(data, "shell_string")), "shell string"),
        _index(((w, _program(e, w)) for w, e in _entries(data, "program")), "program"),
    )
    check_examples(table, path.name)
    return table


@cache
def programs() -> Table:
    """The package's table, loaded and checked once."""
    return load_table()


# Global options after which a CLI only prints its help or version (`terraform -help destroy`).
ONLY_PRINTS = frozenset({"-h", "--help", "-help", "--version", "-version"})


def command_words(inv: Invocation, table: Table | None = None) -> list[str]:
    """A CLI's words after its global options: `docker --context prod run x` gives `run x`;
    nothing when a global option asks only for help or the version."""
    given, rest = command_fields(inv.name, inv.args, table)
    return [] if only_prints(inv.name, given, table) else [f.text for f in rest]


def only_prints(name: str, given: tuple[Field, ...], table: Table | None = None) -> bool:
    """Whether a CLI's global options ask only for help or the version (`terraform -help destroy`),
    where that option is not one of the program's own (gsutil's `-h HEADER`)."""
    program = (table or programs()).programs.get(name)
    own = value_options_of(name, table) if program is not None else frozenset()
    return any(f.text in ONLY_PRINTS and f.text not in own for f in given)


def command_fields(
    name: str, args: tuple[Field, ...], table: Table | None = None
) -> tuple[tuple[Field, ...], tuple[Field, ...]]:
    """(global options, the rest) of `name args`; no global options for a program not in the table."""
    program = (table or programs()).programs.get(name)
    if program is None or not (program.global_values or program.global_flags or program.chdir):
        return (), args
    i = 0
    while i < len(args):
        text = args[i].text
        if text == "--" or not text.startswith("-") or text == "-":
            break
        option = text.split("=", 1)[0]
        takes_value = option in program.global_values or option in program.chdir
        i += 2 if takes_value and "=" not in text else 1
    return args[:i], args[i:]


def chdir_of(name: str, global_options: tuple[Field, ...], table: Table | None = None) -> Field | None:
    """The directory a global option moves the program to (`git -C DIR`, `terraform -chdir=DIR`)."""
    program = (table or programs()).programs.get(name)
    if program is None or not program.chdir:
        return None
    found: Field | None = None
    for i, word in enumerate(global_options):
        option, _, value = word.text.partition("=")
        if option in program.chdir:
            if value:
                found = Field(value, word.exact, word.taint)
            elif i + 1 < len(global_options):
                found = global_options[i + 1]
    return found


def value_options_of(name: str, table: Table | None = None) -> frozenset[str]:
    """Every option of `name` the table says takes a value: global or anywhere on the line."""
    program = (table or programs()).programs.get(name)
    return (
        program.value_options | program.global_values | program.chdir if program is not None else frozenset()
    )


def operands_of(inv: Invocation, table: Table | None = None) -> list[str]:
    """The words of `inv` that are not options, past the values of the options the table says take
    one (anywhere on the line, GNU style): `systemctl -H prod stop sshd` gives `stop sshd`."""
    return word_operands(inv.arg_texts(), value_options_of(inv.name, table))


def written_by_table(
    name: str, args: tuple[Field, ...], table: Table | None = None
) -> list[tuple[Field, WriteKind]]:
    """The files `name args` writes by the table's `writes` (options, `key=` words, operands)."""
    program = (table or programs()).programs.get(name)
    writes = program.writes if program is not None else None
    if writes is None:
        return []
    out: list[Field] = []
    operands: list[Field] = []
    i = 0
    while i < len(args):
        word = args[i]
        text = word.text
        if text == "--":
            operands += args[i + 1 :]
            break
        option, eq, value = text.partition("=")
        key = next((k for k in writes.keys if text.startswith(k)), None)
        if key is not None:
            out.append(Field(text[len(key) :], word.exact, word.taint))
        elif option in writes.options and eq and text.startswith("--"):
            out.append(Field(value, word.exact, word.taint))
        elif text.startswith("-") and len(text) > 1:
            clustered = not text.startswith("--") and any(
                text.endswith(o[1:]) for o in _short(writes.options)
            )
            if (text in writes.options or clustered) and i + 1 < len(args):
                out.append(args[i + 1])
                i += 1
            elif text in writes.value_options:
                i += 1
        else:
            operands.append(word)
        i += 1
    # A target option (`cp -t DIR`) names the destination instead of the last operand.
    last = operands[-1:] if len(operands) > 1 and not out else []
    picked = {"all": operands, "last": last}
    picked["second"] = operands[1:2]
    out += picked.get(writes.operands, [])
    return [(f, writes.kind) for f in out]


def _short(options: frozenset[str]) -> list[str]:
    return [o for o in options if len(o) == 2 and o[0] == "-" and o[1] != "-"]


def sql_of(name: str, args: tuple[Field, ...], table: Table | None = None) -> list[str]:
    """The SQL a client sends in its arguments: its query options' values, or sqlite's operands."""
    program = (table or programs()).programs.get(name)
    if program is None:
        return []
    words = [a.text for a in args]
    texts: list[str] = []
    if program.sql_operands:
        operands: list[str] = []
        i = 0
        while i < len(words):
            if words[i].startswith("-") and words[i] not in ("-", "--"):
                i += 2 if words[i] in _SQLITE_VALUE else 1
                continue
            operands.append(words[i])
            i += 1
        if operands[:1] != [":memory:"]:
            texts += operands[1:]
    for i, word in enumerate(words):
        for flag in program.sql_options:
            if word == flag and i + 1 < len(words):
                texts.append(words[i + 1])
            elif flag.startswith("--") and word.startswith(flag + "="):
                texts.append(word.split("=", 1)[1])
            elif not flag.startswith("--") and word.startswith(flag) and len(word) > len(flag):
                texts.append(word[len(flag) :])
    return texts


# sqlite3's options that take a value (the rest are flags).
_SQLITE_VALUE = frozenset({"-cmd", "-init", "-separator", "-newline", "-nullvalue", "-vfs", "-lookaside"})


def shell_string_of(name: str, args: tuple[Field, ...], table: Table | None = None) -> Field | None:
    """The shell code a program hands to a shell (the table's `[[shell_string]]`s): `su -c CMD`,
    `script -qc CMD`, `watch -n 5 CMD`, `ssh -p 22 HOST CMD`."""
    entry = (table or programs()).shell_strings.get(name)
    if entry is None:
        return None
    words = [a.text for a in args]
    if entry.options:
        letters = "".join(o[1] for o in entry.options if len(o) == 2 and o[1] != "-")
        for i, word in enumerate(words[:-1]):
            cluster = bool(letters) and re.fullmatch(rf"-[a-zA-Z]*[{letters}]", word) is not None
            if word in entry.options or cluster:
                return args[i + 1]
        return None
    i, skipped = 0, 0
    while i < len(args):
        if words[i] == "--":
            i += 1
            break
        if words[i].startswith("-") and words[i] != "-":
            i += 2 if words[i] in entry.value_options else 1
        elif skipped < entry.skip_operands:
            skipped, i = skipped + 1, i + 1
        else:
            break
    rest = args[i:]
    return Field(" ".join(a.text for a in rest), all(a.exact for a in rest)) if rest else None


def _fields(line: str) -> tuple[Field, ...]:
    return tuple(Field(w) for w in shlex.split(line))


def _starts(words: list[str], expected: str) -> bool:
    want = expected.split()
    return words[: len(want)] == want


def check_examples(table: Table, source: str = "programs.toml") -> None:
    """Every example of every entry, read the way the analyser reads it."""

    def runs(argv: tuple[Field, ...]) -> list[str]:
        peeled = unwrap(argv, table)
        command = package_command(peeled.argv, table) if peeled.argv else None
        return [f.text for f in (command if command is not None else peeled.argv)]

    readers: dict[str, Callable[[tuple[Field, ...]], list[str]]] = {
        "runs": runs,
        "command": lambda argv: [f.text for f in command_fields(argv[0].text, argv[1:], table)[1]],
        "writes": lambda argv: [f.text for f, _ in written_by_table(argv[0].text, argv[1:], table)],
        "sql": lambda argv: sql_of(argv[0].text, argv[1:], table),
        "operands": lambda argv: operands_of(Invocation(argv), table),
        "code": lambda argv: [f.text for f in [shell_string_of(argv[0].text, argv[1:], table)] if f],
    }
    entries: list[Wrapper | Runner | ShellString | Program] = [
        *table.wrappers.values(),
        *table.runners.values(),
        *table.shell_strings.values(),
        *table.programs.values(),
    ]
    for item in {id(v): v for v in entries}.values():
        for example in item.examples:
            got = readers[example.key](_fields(example.line))
            # `runs` and `command` are word prefixes; `writes` and `sql` are one of several values.
            holds = (
                _starts(got, example.expected)
                if example.key in ("runs", "command", "operands")
                else example.expected in got
            )
            if holds == example.negative:
                expected = ("not " if example.negative else "") + repr(example.expected)
                raise TableError(
                    f"{source}: {item.names[0]}: `{example.line}` {example.key} {got!r}, expected {expected}"
                )


__all__ = [
    "Program",
    "Runner",
    "Table",
    "TableError",
    "Wrapper",
    "Writes",
    "chdir_of",
    "command_fields",
    "command_words",
    "load_table",
    "only_prints",
    "operands_of",
    "programs",
    "shell_string_of",
    "sql_of",
    "value_options_of",
    "written_by_table",
]
