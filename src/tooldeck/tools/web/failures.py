"""How fetching one URL can fail: a `FetchError` with a `kind` the tools report per URL."""

from __future__ import annotations

from typing import Literal

FailureKind = Literal[
    "denied", "timeout", "too_large", "http_status", "unsupported_type", "invalid_url", "network"
]


class FetchError(Exception):
    """One URL could not be fetched; `kind` says how."""

    def __init__(self, kind: FailureKind, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.kind: FailureKind = kind
        self.status = status

    @property
    def retryable(self) -> bool:
        busy = self.status is not None and (self.status == 429 or self.status >= 500)
        return self.kind in ("timeout", "network") or busy
