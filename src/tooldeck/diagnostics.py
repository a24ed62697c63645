"""Diagnostics: what loading sources or assembling found worth telling the user.

A diagnostic is never an exception: it is collected (unknown toolset, skipped module, failed
plugin, config name that differs from the tool's) and shown by `explain`, or on stderr, so
nothing disappears silently. Strict mode turns warnings into errors where the caller says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["info", "warning", "error"]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding, with the config key path it concerns when there is one."""

    level: Level
    message: str
    path: str | None = None  # config key path, when there is one

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message
