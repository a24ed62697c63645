"""Where OAuth tokens for remote MCP servers are kept: one file per server in the tooldeck home.

    <home>/mcp-auth/            0700
        <server>.json           0600: the server's URL, the issuer, client, tokens, metadata

A record belongs to the server's name *and* its URL: a server whose URL changed in the config
starts from nothing, so a token is never sent to a URL it was not issued for. The client
registration and the tokens are bound to the authorization server that issued them (`issuer`);
a registration with another issuer replaces both. The folder is inside the tooldeck home, which
the file tools and the sandbox cannot see; nothing here logs a token or puts one in a `repr`.
Files are written whole (a temporary file renamed over the old one), never half.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Bumped when the record's shape changes; a record of another version is read as empty.
VERSION = 1
_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


@dataclass(slots=True)
class AuthRecord:
    """What is stored for one server (all fields are the JSON the SDK's models dump)."""

    url: str
    issuer: str | None = None
    client_info: dict[str, Any] | None = field(default=None, repr=False)
    tokens: dict[str, Any] | None = field(default=None, repr=False)
    # When the access token expires (seconds since the epoch), so a later process refreshes it.
    expires_at: float | None = None
    # The authorization server's metadata and the resource's, so that a later process refreshes
    # at the right token endpoint without discovering them again.
    oauth_metadata: dict[str, Any] | None = None
    resource_metadata: dict[str, Any] | None = None
    # Scopes a server asked for that the stored grant lacks (a step-up a person must approve).
    wanted_scope: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            "url": self.url,
            "issuer": self.issuer,
            "client_info": self.client_info,
            "tokens": self.tokens,
            "expires_at": self.expires_at,
            "oauth_metadata": self.oauth_metadata,
            "resource_metadata": self.resource_metadata,
            "wanted_scope": self.wanted_scope,
        }


class TokenStore:
    """The stored OAuth state of one server (`name` at `url`) under `folder`."""

    def __init__(self, folder: Path, *, name: str, url: str) -> None:
        self.folder = folder
        self.name = name
        self.url = url
        self.path = folder / f"{_SAFE.sub('_', name)}.json"

    def __repr__(self) -> str:
        return f"TokenStore({self.name!r}, {self.url!r})"

    # -- reading and writing the record ------------------------------------------------------

    def load(self) -> AuthRecord:
        """The record for this server at this URL (an empty one if there is none, or it is for another URL)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return AuthRecord(self.url)
        if not isinstance(data, dict) or data.get("version") != VERSION or data.get("url") != self.url:
            return AuthRecord(self.url)
        return AuthRecord(
            url=self.url,
            issuer=_str(data.get("issuer")),
            client_info=_dict(data.get("client_info")),
            tokens=_dict(data.get("tokens")),
            expires_at=data["expires_at"] if isinstance(data.get("expires_at"), int | float) else None,
            oauth_metadata=_dict(data.get("oauth_metadata")),
            resource_metadata=_dict(data.get("resource_metadata")),
            wanted_scope=_str(data.get("wanted_scope")),
        )

    def save(self, record: AuthRecord) -> None:
        """Write `record` whole: 0600 in a 0700 folder."""
        _private_folder(self.folder)
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(record.to_json(), out)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise

    def delete(self) -> bool:
        """Forget everything stored for this server (whatever its URL); whether there was anything."""
        try:
            self.path.unlink()
        except FileNotFoundError:
            return False
        return True

    def has_tokens(self) -> bool:
        return self.load().tokens is not None

    # -- the SDK's TokenStorage protocol -----------------------------------------------------

    async def get_tokens(self) -> Any:
        from mcp.shared.auth import OAuthToken

        tokens = self.load().tokens
        return OAuthToken.model_validate(tokens) if tokens is not None else None

    async def set_tokens(self, tokens: Any) -> None:
        record = self.load()
        record.tokens = tokens.model_dump(mode="json", exclude_none=True)
        expires_in = getattr(tokens, "expires_in", None)
        record.expires_at = time.time() + expires_in if expires_in is not None else None
        self.save(record)

    async def get_client_info(self) -> Any:
        from mcp.shared.auth import OAuthClientInformationFull

        info = self.load().client_info
        return OAuthClientInformationFull.model_validate(info) if info is not None else None

    async def set_client_info(self, client_info: Any) -> None:
        record = self.load()
        issuer = getattr(client_info, "issuer", None)
        if record.issuer is not None and issuer is not None and issuer != record.issuer:
            # Another authorization server: what the old one issued means nothing to it.
            record = AuthRecord(self.url, wanted_scope=record.wanted_scope)
        record.issuer = issuer if issuer is not None else record.issuer
        record.client_info = client_info.model_dump(mode="json", exclude_none=True)
        self.save(record)


def _private_folder(folder: Path) -> None:
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if folder.stat().st_mode & 0o077:
        os.chmod(folder, 0o700)


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _dict(value: object) -> dict[str, Any] | None:
    return value if isinstance(value, dict) else None
