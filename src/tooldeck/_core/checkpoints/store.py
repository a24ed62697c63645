"""Where checkpoints are kept: under the tooldeck home, one folder per workspace.

    <home>/checkpoints/<sha256 of the workspace path, 16 hex>/
        index.sqlite     one row per checkpoint, one per path it changed (before and after)
        blobs/ab/<sha256>  the bytes a changed file held before, once per content

The folders are 0700 and the files 0600; the home is hidden from every tool, so nothing a model
runs can read or forge a checkpoint. Content-addressed: a file whose bytes are already kept
costs a row, not a copy. `prune` keeps the store within `checkpoints.keep` (count, age, bytes)
by dropping whole old sessions, never the current one or the one before it: a change is never
paid for by evicting the history that undoes earlier ones. What would push the store over its
bytes then is held and asked about by the recording (`room_for`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tooldeck._core.checkpoints.state import PathState
from tooldeck._core.config_sections import CheckpointsConfig
from tooldeck.errors import CheckpointError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS checkpoints (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time REAL NOT NULL,
    tool TEXT NOT NULL,
    call_id TEXT NOT NULL,
    session_id TEXT,
    finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS changes (
    checkpoint INTEGER NOT NULL REFERENCES checkpoints(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    before TEXT NOT NULL,
    after TEXT,
    -- the kept bytes `before` refers to (a file's), if any
    digest TEXT,
    PRIMARY KEY (checkpoint, path)
);
CREATE INDEX IF NOT EXISTS changes_digest ON changes(digest);
CREATE TABLE IF NOT EXISTS blobs (
    digest TEXT PRIMARY KEY,
    size INTEGER NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class Change:
    """One path a call changed: what it held before, and what the call left (None: the call
    did not finish, so what it left is not known)."""

    path: str
    before: PathState
    after: PathState | None

    @property
    def verb(self) -> str:
        after = self.after
        if self.before.kind == "absent":
            return "created" if after is None or after.kind != "absent" else "unchanged"
        if after is not None and after.kind == "absent":
            return "deleted"
        return "unchanged" if after is not None and after.same_as(self.before) else "modified"


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The state before one call that changed the workspace."""

    id: int
    time: float
    tool: str
    call_id: str
    session_id: str | None
    finished: bool
    changes: tuple[Change, ...] = field(default=())

    def counts(self) -> dict[str, int]:
        out = {"created": 0, "modified": 0, "deleted": 0}
        for change in self.changes:
            if change.verb in out:
                out[change.verb] += 1
        return out

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "time": self.time,
            "tool": self.tool,
            "call_id": self.call_id,
            "session_id": self.session_id,
            "finished": self.finished,
            **self.counts(),
            "paths": [c.path for c in self.changes if c.verb != "unchanged"],
        }


class CheckpointStore:
    """The checkpoints of one workspace (see the module docstring). Thread-safe."""

    def __init__(self, home: Path, workspace: Path, settings: CheckpointsConfig) -> None:
        self.settings = settings
        self.workspace = workspace
        key = hashlib.sha256(os.fsencode(str(workspace))).hexdigest()[:16]
        self.folder = home / "checkpoints" / key
        self.blobs = self.folder / "blobs"
        self._db: sqlite3.Connection | None = None
        self._lock = threading.RLock()
        # Digests `_collect` leaves alone (see `pinning`).
        self.pinned: list[set[str]] = []

    # -- opening ---------------------------------------------------------------------------

    def _connect(self, create: bool) -> sqlite3.Connection | None:
        if self._db is not None:
            return self._db
        index = self.folder / "index.sqlite"
        if not create and not index.exists():
            return None
        try:
            _private_folder(self.folder.parent)
            _private_folder(self.folder)
            _private_folder(self.blobs)
            db = sqlite3.connect(index, timeout=10, isolation_level=None, check_same_thread=False)
            os.chmod(index, 0o600)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA foreign_keys=ON")
            db.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise CheckpointError(f"the checkpoint store {self.folder} cannot be opened: {exc}") from None
        self._db = db
        return db

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            db = self._connect(create=True)
            assert db is not None
            try:
                db.execute("BEGIN IMMEDIATE")
                yield db
                db.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
                raise

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    # -- bytes -----------------------------------------------------------------------------

    def keep_bytes(self, data: bytes, *, digest: str | None = None) -> str:
        """Keep `data` (once per content; `digest`: its sha256, when known) and return its digest."""
        digest = digest or hashlib.sha256(data).hexdigest()
        path = self.blobs / digest[:2] / digest
        if not path.exists():
            self._write_blob(path, digest, data)
        with self._transaction() as db:
            db.execute("INSERT OR IGNORE INTO blobs(digest, size) VALUES (?, ?)", (digest, len(data)))
        return digest

    def holds(self, digest: str) -> bool:
        """Whether the bytes of `digest` are kept."""
        return (self.blobs / digest[:2] / digest).exists()

    def _write_blob(self, path: Path, digest: str, data: bytes) -> None:
        try:
            _private_folder(self.blobs)
            _private_folder(path.parent)
            temp = path.with_name(f".{digest}.{os.urandom(4).hex()}.tmp")
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temp, path)
        except OSError as exc:
            raise CheckpointError(
                f"cannot keep a checkpoint in {self.blobs}: {exc.strerror or exc}"
            ) from None

    def read_bytes(self, digest: str) -> bytes:
        if len(digest) != 64 or not all(c in "0123456789abcdef" for c in digest):
            raise CheckpointError(f"checkpoint store damaged: {digest!r} is not a content digest")
        path = self.blobs / digest[:2] / digest
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as exc:
            raise CheckpointError(
                f"the kept bytes {digest[:12]} are missing from {self.blobs}: {exc.strerror}"
            ) from None
        with os.fdopen(fd, "rb") as fh:
            data = fh.read()
        if hashlib.sha256(data).hexdigest() != digest:
            raise CheckpointError(f"the kept bytes {digest[:12]} in {self.blobs} are damaged")
        return data

    # -- records ---------------------------------------------------------------------------

    def begin(self, tool: str, call_id: str, session_id: str | None) -> int:
        with self._transaction() as db:
            cur = db.execute(
                "INSERT INTO checkpoints(time, tool, call_id, session_id) VALUES (?, ?, ?, ?)",
                (time.time(), tool, call_id, session_id),
            )
            assert cur.lastrowid is not None
            return cur.lastrowid

    def add_before(self, checkpoint: int, path: str, before: PathState) -> None:
        with self._transaction() as db:
            db.execute(
                "INSERT OR IGNORE INTO changes(checkpoint, path, before, digest) VALUES (?, ?, ?, ?)",
                (checkpoint, path, json.dumps(before.to_json()), before.digest or None),
            )

    def finish(self, checkpoint: int, after: dict[str, PathState]) -> None:
        with self._transaction() as db:
            for path, state in after.items():
                db.execute(
                    "UPDATE changes SET after = ? WHERE checkpoint = ? AND path = ?",
                    (json.dumps(state.to_json()), checkpoint, path),
                )
            db.execute("UPDATE checkpoints SET finished = 1 WHERE id = ?", (checkpoint,))
            row = db.execute("SELECT session_id FROM checkpoints WHERE id = ?", (checkpoint,)).fetchone()
        self.prune(current=row[0] if row is not None else None)

    def checkpoints(self, *, session_id: str | None = None) -> list[Checkpoint]:
        """The checkpoints, newest first (of one session, when given)."""
        with self._lock:
            db = self._connect(create=False)
            if db is None:
                return []
            try:
                rows = db.execute(
                    "SELECT id, time, tool, call_id, session_id, finished FROM checkpoints "
                    + ("WHERE session_id = ? " if session_id is not None else "")
                    + "ORDER BY id DESC",
                    (session_id,) if session_id is not None else (),
                ).fetchall()
                changes: dict[int, list[Change]] = {}
                for cp, path, before, after in db.execute(
                    "SELECT checkpoint, path, before, after FROM changes ORDER BY checkpoint, path"
                ):
                    changes.setdefault(cp, []).append(
                        Change(
                            path,
                            PathState.from_json(json.loads(before)),
                            PathState.from_json(json.loads(after)) if after is not None else None,
                        )
                    )
            except (sqlite3.Error, ValueError, KeyError) as exc:
                raise CheckpointError(f"the checkpoint store {self.folder} cannot be read: {exc}") from None
        return [
            Checkpoint(i, t, tool, call, session, bool(done), tuple(changes.get(i, ())))
            for i, t, tool, call, session, done in rows
        ]

    def remove(self, ids: list[int]) -> None:
        if not ids:
            return
        with self._transaction() as db:
            db.executemany("DELETE FROM checkpoints WHERE id = ?", [(i,) for i in ids])
        self._collect()

    # -- pruning ---------------------------------------------------------------------------

    def prune(self, *, current: str | None = None, extra: int = 0) -> None:
        """Keep the store within `checkpoints.keep` (count, age, bytes; `extra`: bytes about to
        be kept) by dropping whole sessions, oldest first. The newest two sessions - the current
        one and the one before it - and `current` are never dropped, so the store may stay over a
        bound: what would push it further over its bytes is asked about first (`room_for`)."""
        keep = self.settings.keep
        with self._lock:
            db = self._connect(create=False)
            if db is None:
                return
            cutoff = time.time() - keep.max_age_days * 86400
            sessions = _sessions(db.execute("SELECT id, time, session_id FROM checkpoints ORDER BY id DESC"))
            spared = {key for key, _, _ in sessions[:2]} | {current or ""}
            droppable = [(ids, newest) for key, ids, newest in reversed(sessions) if key not in spared]
            count = sum(len(ids) for _, ids, _ in sessions)
            gone: list[int] = []
            for ids, newest in droppable:
                if count > keep.count or newest < cutoff:
                    gone += ids
                    count -= len(ids)
            self.remove(gone)
            left = [ids for ids, _ in droppable if ids[0] not in gone]
            if self.stored_bytes() + extra > keep.max_bytes:
                self._collect()  # bytes kept for host commands that changed nothing go first
            while left and self.stored_bytes() + extra > keep.max_bytes:
                self.remove(left.pop(0))  # the oldest session left

    def room_for(self, size: int, *, current: str | None = None) -> bool:
        """Whether `size` more bytes fit within `checkpoints.keep.max_bytes`, once old sessions
        are dropped (never the current one or the one before it)."""
        limit = self.settings.keep.max_bytes
        if self.stored_bytes() + size <= limit:
            return True
        self.prune(current=current, extra=size)
        return self.stored_bytes() + size <= limit

    def stored_bytes(self) -> int:
        """The bytes of earlier file contents the store keeps."""
        with self._lock:
            db = self._connect(create=False)
            if db is None:
                return 0
            (total,) = db.execute("SELECT COALESCE(SUM(size), 0) FROM blobs").fetchone()
            return int(total)

    def _collect(self) -> None:
        """Delete the kept bytes no checkpoint refers to any more."""
        with self._transaction() as db:
            unused = [
                d
                for (d,) in db.execute(
                    "SELECT digest FROM blobs WHERE digest NOT IN "
                    "(SELECT digest FROM changes WHERE digest IS NOT NULL)"
                )
            ]
        with self._lock:
            pinned = set().union(*self.pinned)
        for digest in unused:
            if digest in pinned:
                continue  # kept for a change still to be recorded (a command on the host)
            with contextlib.suppress(OSError):
                os.unlink(self.blobs / digest[:2] / digest)
            with self._transaction() as db:
                db.execute("DELETE FROM blobs WHERE digest = ?", (digest,))

    @contextlib.contextmanager
    def pinning(self) -> Iterator[set[str]]:
        """A set to put digests in that are not collected until the block ends (bytes kept before
        a command on the host runs, for the changes it may make)."""
        held: set[str] = set()
        with self._lock:
            self.pinned.append(held)
        try:
            yield held
        finally:
            with self._lock:
                self.pinned.remove(held)


def _sessions(rows: Iterable[tuple[int, float, str | None]]) -> list[tuple[str, list[int], float]]:
    """Checkpoint rows (newest first) grouped by session, the session with the newest checkpoint
    first: (session, its ids oldest first, the time of its newest). The calls made outside any
    session (a program's `deck.call`) are one session, ""."""
    grouped: dict[str, tuple[list[int], float]] = {}
    for cid, when, session in rows:
        grouped.setdefault(session or "", ([], when))[0].insert(0, cid)
    return [(key, ids, newest) for key, (ids, newest) in grouped.items()]


def _private_folder(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    st = os.lstat(path)
    if not os.path.isdir(path) or os.path.islink(path) or st.st_uid != os.getuid():
        raise CheckpointError(f"{path} is not a folder of this user")
    if st.st_mode & 0o077:
        os.chmod(path, 0o700)
