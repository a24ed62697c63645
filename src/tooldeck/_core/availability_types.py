"""The value a requirement check returns: available or not, and why."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Availability:
    """Whether something a tool needs is there, with a human reason when it is not.

    A custom `check` may return a plain bool or one of these; `Availability.no("...")`
    is how a check explains itself ("binary chromium not found").
    """

    ok: bool
    reason: str | None = None

    @classmethod
    def yes(cls, reason: str | None = None) -> Availability:
        return cls(True, reason)

    @classmethod
    def no(cls, reason: str) -> Availability:
        return cls(False, reason)

    def __bool__(self) -> bool:
        return self.ok


AVAILABLE = Availability(True)
