"""The entries of the program table (`programs.toml`), as typed values: wrappers, package runners
and CLIs. `table.py` reads them from the file and checks their examples."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from tooldeck.errors import ProgramTableError

Operands = Literal["", "all", "last", "second"]
WriteKind = Literal["append", "overwrite", "edit", "replace", "empty"]


TableError = ProgramTableError


@dataclass(frozen=True, slots=True)
class Example:
    """`line` read as the analyser reads it gives `expected` under `key` (runs, command, writes, sql),
    or, when `negative`, does not."""

    line: str
    key: str
    expected: str
    negative: bool = False


@dataclass(frozen=True, slots=True)
class Wrapper:
    """A program that runs the program named in its arguments (`sudo`, `timeout 5`, `nice -n 5`)."""

    names: tuple[str, ...]
    value_options: frozenset[str] = frozenset()
    skip_operands: int = 0
    privileged: bool = False
    sets_env: bool = False
    shell_options: frozenset[str] = frozenset()
    command_options: frozenset[str] = frozenset()
    subcommands: frozenset[str] = frozenset()
    examples: tuple[Example, ...] = ()
    # Subcommands that name the program they run (`colima nerdctl -- run x` runs `nerdctl run x`).
    program_subcommands: frozenset[str] = frozenset()
    # Options after which the rest of the line is the program run (`nix shell PKG -c CMD`); a
    # wrapper with these and none of them on the line runs no program (an interactive shell).
    argv_options: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class ShellString:
    """A program that hands a string to a shell: an option's value (`su -c CMD`, `script -qc CMD`)
    or its operands joined (`watch CMD`, `ssh HOST CMD` after `skip_operands`)."""

    names: tuple[str, ...]
    options: frozenset[str] = frozenset()
    value_options: frozenset[str] = frozenset()
    skip_operands: int = 0
    examples: tuple[Example, ...] = ()


@dataclass(frozen=True, slots=True)
class Runner:
    """A package runner: `npx PKG ARGS`, `pipx run PKG ARGS`, `poetry run CMD ARGS`."""

    names: tuple[str, ...]
    subcommands: tuple[tuple[str, ...], ...] = ()
    value_options: frozenset[str] = frozenset()
    call_options: frozenset[str] = frozenset()
    # The operand is the command itself, not a package (no `@version` to drop).
    bare: bool = False
    examples: tuple[Example, ...] = ()


@dataclass(frozen=True, slots=True)
class Writes:
    """Which of a program's words name files it writes."""

    options: frozenset[str] = frozenset()
    keys: tuple[str, ...] = ()
    operands: Operands = ""
    value_options: frozenset[str] = frozenset()
    kind: WriteKind = "overwrite"


@dataclass(frozen=True, slots=True)
class Program:
    """A CLI: its global options (skipped before the subcommand), classes and file effects."""

    names: tuple[str, ...]
    classes: frozenset[str] = frozenset()
    global_values: frozenset[str] = frozenset()
    global_flags: frozenset[str] = frozenset()
    chdir: frozenset[str] = frozenset()
    sql_options: tuple[str, ...] = ()
    sql_operands: bool = False
    writes: Writes | None = None
    examples: tuple[Example, ...] = ()
    # Options anywhere on the line whose value is the next word (`systemctl -H HOST stop x`).
    value_options: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Table:
    wrappers: dict[str, Wrapper] = field(default_factory=dict)
    runners: dict[str, Runner] = field(default_factory=dict)
    shell_strings: dict[str, ShellString] = field(default_factory=dict)
    programs: dict[str, Program] = field(default_factory=dict)

    def in_class(self, name: str) -> frozenset[str]:
        """Every name (aliases included) of the programs in class `name`."""
        return frozenset(n for n, p in self.programs.items() if name in p.classes)


__all__ = [
    "Example",
    "Operands",
    "Program",
    "Runner",
    "ShellString",
    "Table",
    "TableError",
    "Wrapper",
    "WriteKind",
    "Writes",
]
