"""Diagnostics: what loading sources or assembling found worth telling the user.

A diagnostic is never an exception: it is collected (unknown toolset, skipped module, failed
plugin, config name that differs from the tool's) and shown by `explain`, or on stderr, so
nothing disappears silently. The assembly's checks of the config (a name in a list that
matches nothing, an include cycle) are marked `strict`: `strict: true` in the config makes
them errors. What the sources report about the world (a server that did not connect, a module
skipped) and what depends on the moment (a workspace folder not there yet) stays a diagnostic.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Level = Literal["info", "warning", "error"]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding, with the config key path it concerns when there is one."""

    level: Level
    message: str
    path: str | None = None  # config key path, when there is one
    # A mistake in the config that `strict: true` turns into an error.
    strict: bool = False

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


def did_you_mean(name: str, candidates: Iterable[str], *, n: int = 3) -> str:
    """`; did you mean 'a', 'b'?` naming up to `n` close candidates, or "" when none is close."""
    import difflib

    close = difflib.get_close_matches(name, sorted(candidates), n=n, cutoff=0.6)
    return f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
