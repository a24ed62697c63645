"""What the walker hands to the rules: resolved words, data flows and invocations.

A `Field` is one word after expansion, quote removal and splitting, as far as static analysis can
know it. Parts that cannot be known (an unset variable, the output of a program) keep their source
text and make the field inexact; `taint` records where such parts came from, so a rule can tell a
download fed to a shell from a local tool's output. The home directory is written as `HOME_MARK`,
never as `~`, so a quoted literal `'~'` (a file named ~) is never taken for the home directory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

HOME_MARK = "\ue000"
# The workspace (the directory the command starts in), wherever the command has moved since:
# what `$OLDPWD` holds after a `cd` out of it.
WORKSPACE_MARK = "\ue001"

Taint = Literal["network", "decoded", "secret", "file", "dynamic"]
NETWORK: Taint = "network"
DECODED: Taint = "decoded"
SECRET: Taint = "secret"
FILE: Taint = "file"
DYNAMIC: Taint = "dynamic"


@dataclass(frozen=True, slots=True)
class Flow:
    """Data moving through a pipe, a redirection or a substitution.

    `text` is the exact content when it can be computed (echo, printf, base64 of a literal...).
    `paths` lists what the data names when it is a listing (`find ~` names everything under ~).
    """

    text: str | None = None
    taint: frozenset[Taint] = frozenset()
    paths: tuple[str, ...] = ()
    # The data never ends, or is too long to come to an end (`yes CMD`, an endless loop's output,
    # `seq 1 1000000`); `text` is then what one round writes.
    endless: bool = False

    def merge(self, other: Flow) -> Flow:
        text = None if self.text is None or other.text is None else self.text + other.text
        return Flow(text, self.taint | other.taint, self.paths + other.paths, self.endless or other.endless)


# Nothing written: known to be empty.
EMPTY_FLOW = Flow("")


@dataclass(frozen=True, slots=True)
class Field:
    """One word of a command after expansion."""

    text: str
    exact: bool = True
    taint: frozenset[Taint] = frozenset()
    # Unquoted glob characters that the shell would expand.
    glob: bool = False
    # For a process substitution: what reading the file yields.
    content: Flow | None = None
    # No part of the text is known (it is all placeholders for values computed at run time).
    opaque: bool = False

    def shown(self) -> str:
        return self.text.replace(HOME_MARK, "~").replace(WORKSPACE_MARK, ".")


@dataclass(frozen=True, slots=True)
class Redirect:
    op: str
    target: Field
    fd: int | None = None

    @property
    def writes(self) -> bool:
        return self.op in (">", ">>", ">|", "&>", "&>>", "<>")

    @property
    def truncates(self) -> bool:
        return self.op in (">", ">|", "&>")


@dataclass(frozen=True, slots=True)
class Invocation:
    """One program that would run, with wrappers (sudo, env, xargs...) peeled off."""

    argv: tuple[Field, ...]
    redirects: tuple[Redirect, ...] = ()
    # What standard input carries; None when nothing is piped or redirected in.
    stdin: Flow | None = None
    wrappers: tuple[str, ...] = ()
    privileged: bool = False
    background: bool = False
    # How it was reached: "" at top level, else e.g. "bash -c", "eval", "find -exec".
    via: str = ""
    # The working directory when known (`cd / && ...`); None means the workspace.
    cwd: str | None = None
    # Variables set for this program alone (`GIT_PAGER=x git log`, `env X=1 cmd`, `sudo X=1 cmd`).
    env: tuple[tuple[str, Field], ...] = ()
    # The program's base name, computed once: every rule asks for it.
    _name: str = field(init=False, repr=False, compare=False, default="")

    def __post_init__(self) -> None:
        object.__setattr__(self, "_name", self.argv[0].text.rsplit("/", 1)[-1] if self.argv else "")

    def env_value(self, name: str) -> Field | None:
        for key, value in reversed(self.env):
            if key == name:
                return value
        return None

    @property
    def name(self) -> str:
        """The program's base name: `/usr/bin/rm` and `rm` are both `rm`."""
        return self._name

    @property
    def data(self) -> Flow:
        """Standard input's flow (empty when nothing is piped in)."""
        return self.stdin if self.stdin is not None else EMPTY_FLOW

    @property
    def args(self) -> tuple[Field, ...]:
        return self.argv[1:]

    def arg_texts(self) -> list[str]:
        return [a.text for a in self.argv[1:]]

    def shown(self) -> str:
        words = [_quote(a.shown()) for a in self.argv]
        words += [f"{r.op}{r.target.shown()}" for r in self.redirects if r.op not in (">&", "<&")]
        text = " ".join(words)
        return f"{text} (via {self.via})" if self.via else text


def _quote(text: str) -> str:
    if text and all(c.isalnum() or c in "-_./~=:@%+,^*" for c in text):
        return text
    return "'" + text.replace("'", "'\\''") + "'"


@dataclass(frozen=True, slots=True)
class Signal:
    """Something the walker saw that is not one invocation (a self-replicating function...)."""

    rule: str
    reason: str
    subcommand: str
