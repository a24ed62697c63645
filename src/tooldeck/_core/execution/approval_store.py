"""What approvals leave on disk: the `always` grants and the audit log, both JSON lines.

Both files live in the tooldeck home (the audit log where `approvals.audit_log` says). They are
created with mode 0600, opened without following a symlink, and trusted only when they are
regular files owned by this user that nobody else may write, in a folder that is not writable by
everyone and belongs to this user or root:
a grants file that fails this is ignored (nothing is granted) and the caller is told why.

An `always` grant is bound to the workspace, the tool, the rule that asked and the subject (the
exact normalised command), never to a category. Each record carries an HMAC-SHA256 signature
with a key kept beside the grants (`grants.key`, 0600, made on first use): file modes do not
stop a process of the same user, but the home is out of every tool's reach, so a record a tool
or anyone without the key wrote is unsigned or badly signed — it is ignored, never honoured,
and counted in `rejected` (logged). Appending one line per grant means concurrent
processes never lose each other's grants; a person revokes a grant by deleting its line.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import stat
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tooldeck._core.execution.policy import GrantKey
from tooldeck.errors import StoreError as StoreError

_MAX_GRANTS_BYTES = 4 * 1024 * 1024
_KEY_BYTES = 32
log = logging.getLogger("tooldeck.approvals")


def _open_private(path: Path, flags: int) -> int:
    """Open `path` (created 0600) without following a symlink, and check it is safe to trust."""
    folder = path.parent
    try:
        if flags & os.O_CREAT:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = os.stat(folder)
    except OSError as exc:
        raise StoreError(f"{folder}: {exc.strerror or exc}") from None
    if info.st_uid not in (os.getuid(), 0) or info.st_mode & 0o002:
        raise StoreError(f"{folder} is writable by everyone or belongs to another user")
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        why = "it is a symlink" if os.path.islink(path) else (exc.strerror or str(exc))
        raise StoreError(f"cannot open {path}: {why}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
        os.close(fd)
        raise StoreError(f"{path} is not a regular file of this user that only this user may write")
    return fd


def _append(path: Path, record: Mapping[str, Any], lock: threading.Lock) -> None:
    line = (json.dumps(record, ensure_ascii=False, default=str) + "\n").encode("utf-8", "replace")
    with lock:
        fd = _open_private(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            os.write(fd, line)
        except OSError as exc:
            raise StoreError(f"cannot write {path}: {exc.strerror or exc}") from None
        finally:
            os.close(fd)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class AlwaysGrants:
    """`always` grants of one workspace, persisted in a JSON-lines file."""

    def __init__(self, path: Path, workspace: Path) -> None:
        self.path = path
        self.workspace = str(workspace)
        self._lock = threading.Lock()
        self._loaded: tuple[float, int, set[GrantKey]] | None = None
        self.key_path = path.with_name(path.stem + ".key")
        # Records of this workspace ignored at the last read: unsigned or badly signed.
        self.rejected = 0

    def covers(self, tool: str, rule: str | None, subject: str | None) -> bool:
        """Whether a saved grant covers this; an unsafe grants file covers nothing (raises)."""
        return (tool, rule, subject) in self._grants()

    def add(self, tool: str, rule: str | None, subject: str | None) -> None:
        record = {
            "workspace": self.workspace,
            "tool": tool,
            "rule": rule,
            "subject": subject,
            "granted_at": _now(),
        }
        record["mac"] = _sign(self._key(create=True), record)
        _append(self.path, record, self._lock)

    def sign_pending(self, session_id: str | None, record: Mapping[str, Any]) -> str:
        """The signature of a call left waiting for approval in `session_id` (its id, tool,
        arguments, rule, reason and subject), with this home's key, bound to the workspace: only
        pending calls tooldeck wrote are ever decided."""
        return _sign(self._key(create=True), _pending_part(self.workspace, session_id, record))

    def verify_pending(self, session_id: str | None, record: Mapping[str, Any]) -> bool:
        """Whether `record["signature"]` is this home's signature of that pending call."""
        signature = record.get("signature")
        try:
            key = self._key(create=False)
        except StoreError:
            return False
        if key is None or not isinstance(signature, str):
            return False
        expected = _sign(key, _pending_part(self.workspace, session_id, record))
        return hmac.compare_digest(signature, expected)

    def _key(self, *, create: bool) -> bytes | None:
        """The signing key; made (0600, never replaced) when `create` and there is none yet."""
        if not os.path.lexists(self.key_path):
            if not create:
                return None
            key = os.urandom(_KEY_BYTES)
            try:
                fd = _open_private(self.key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
            except StoreError:
                if not os.path.lexists(self.key_path):
                    raise
            else:  # made here; otherwise another process made it first, read below
                try:
                    os.write(fd, key)
                finally:
                    os.close(fd)
                return key
        fd = _open_private(self.key_path, os.O_RDONLY)
        try:
            key = os.read(fd, _KEY_BYTES + 1)
        finally:
            os.close(fd)
        if len(key) != _KEY_BYTES:
            raise StoreError(f"{self.key_path} is not a grants key ({len(key)} bytes)")
        return key

    def _grants(self) -> set[GrantKey]:
        try:
            info = os.lstat(self.path)
        except FileNotFoundError:
            return set()
        except OSError as exc:
            raise StoreError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        cached = self._loaded
        if cached is not None and cached[:2] == (info.st_mtime, info.st_size):
            return cached[2]
        fd = _open_private(self.path, os.O_RDONLY)
        try:
            with os.fdopen(fd, "rb") as fh:
                data = fh.read(_MAX_GRANTS_BYTES + 1)
        except OSError as exc:
            raise StoreError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        if len(data) > _MAX_GRANTS_BYTES:
            raise StoreError(f"{self.path} is larger than {_MAX_GRANTS_BYTES} bytes")
        grants = self._parse(data, self._key(create=False))
        self._loaded = (info.st_mtime, info.st_size, grants)
        return grants

    def _parse(self, data: bytes, key: bytes | None) -> set[GrantKey]:
        grants: set[GrantKey] = set()
        rejected = 0
        for line in data.decode("utf-8", "replace").splitlines():
            try:
                item = json.loads(line)
            except ValueError:
                continue  # a line a person broke while editing grants nothing
            if not isinstance(item, dict) or item.get("workspace") != self.workspace:
                continue
            mac = item.pop("mac", None)
            if key is None or not isinstance(mac, str) or not hmac.compare_digest(mac, _sign(key, item)):
                rejected += 1
                continue
            tool, rule, subject = item.get("tool"), item.get("rule"), item.get("subject")
            if isinstance(tool, str) and _str_or_none(rule) and _str_or_none(subject):
                grants.add((tool, rule, subject))
        if rejected:
            log.warning(
                "%s: %d grant(s) of this workspace ignored: not signed by tooldeck (written by something else)",
                self.path,
                rejected,
            )
        self.rejected = rejected
        return grants


_PENDING_FIELDS = ("call_id", "tool", "arguments", "rule", "reason", "subject")


def _pending_part(workspace: str, session_id: str | None, record: Mapping[str, Any]) -> dict[str, Any]:
    part = {k: record.get(k) for k in _PENDING_FIELDS}
    return {"pending_in": workspace, "session": session_id, **part}


def _sign(key: bytes | None, record: Mapping[str, Any]) -> str:
    if key is None:
        raise StoreError("no grants key to sign with")
    canonical = json.dumps(record, sort_keys=True, ensure_ascii=True, separators=(",", ":"), default=str)
    return hmac.new(key, canonical.encode("ascii"), hashlib.sha256).hexdigest()


def _str_or_none(value: object) -> bool:
    return value is None or isinstance(value, str)


class AuditLog:
    """Every approval decision, one JSON object per line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def record(self, **fields: Any) -> None:
        """Append one decision; raises StoreError when it cannot be written."""
        _append(self.path, {"time": _now(), **fields}, self._lock)


__all__ = ["AlwaysGrants", "AuditLog", "StoreError"]
