"""Sessions in SQLite: every message written as it happens, full-text search (FTS5).

One file (default `~/.tooldeck/state.db`) holds every session, its messages in order, the run
state shared by tools (todo list, artifacts, promotions), and a pending question when a
control-flow tool interrupted the run. Each write is committed at once (WAL mode), so a crash
loses nothing already returned. `search` ranks message snippets with FTS5's bm25.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from tooldeck._utils.text import utf8_safe
from tooldeck.agent.messages import Message
from tooldeck.core import RunState
from tooldeck.errors import SessionError

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    parent_id TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    title TEXT,
    model TEXT,
    system TEXT,
    status TEXT NOT NULL DEFAULT 'new',
    state TEXT NOT NULL DEFAULT '{}',
    interrupt TEXT
);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at REAL NOT NULL,
    UNIQUE (session_id, seq)
);
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
    content, content='messages', content_rowid='id', tokenize='porter unicode61'
);
CREATE TRIGGER IF NOT EXISTS messages_ai AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
"""

# The columns each table must have; a database missing one was damaged or made by something else.
COLUMNS: dict[str, tuple[str, ...]] = {
    "sessions": (
        "id",
        "parent_id",
        "created_at",
        "updated_at",
        "title",
        "model",
        "system",
        "status",
        "state",
        "interrupt",
    ),
    "messages": ("id", "session_id", "seq", "role", "content", "data", "created_at"),
}


@dataclass(frozen=True, slots=True)
class SessionSummary:
    id: str
    title: str | None
    model: str | None
    status: str
    created_at: float
    updated_at: float
    message_count: int
    parent_id: str | None = None
    # How many calls of its last turn wait for approval (`tooldeck sessions list --pending`).
    pending: int = 0


@dataclass(frozen=True, slots=True)
class StoredSession:
    id: str
    title: str | None
    model: str | None
    system: str | None
    status: str
    created_at: float
    updated_at: float
    messages: list[Message]
    state: RunState = field(default_factory=RunState)
    interrupt: dict[str, Any] | None = None
    parent_id: str | None = None


@dataclass(frozen=True, slots=True)
class SearchHit:
    session_id: str
    session_title: str | None
    role: str
    snippet: str
    score: float
    created_at: float


def new_session_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + secrets.token_hex(3)


def fts_query(text: str) -> str:
    """A user's words as an FTS5 query: each term quoted (no syntax errors), any term may match."""
    terms = re.findall(r"\w+", text, flags=re.UNICODE)
    return " OR ".join(f'"{t}"' for t in terms)


T = TypeVar("T")
P = ParamSpec("P")


def _guarded(method: Callable[Concatenate[SessionStore, P], T]) -> Callable[Concatenate[SessionStore, P], T]:
    """SQLite errors from a damaged database become a `SessionError` that says how to recover."""

    def wrapper(self: SessionStore, /, *args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            raise self._damaged(str(exc)) from None

    wrapper.__doc__ = method.__doc__
    wrapper.__name__ = method.__name__
    return wrapper


class SessionStore:
    """The session database. Thread-safe; one connection guarded by a lock."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA busy_timeout=5000")
            had_index = self._has_table("messages_fts")
            had_messages = self._has_table("messages")
            self._db.executescript(SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise self._damaged(str(exc)) from None
        except OSError as exc:
            raise SessionError(f"cannot open the session database {self.path}: {exc}") from None
        self._check_columns()
        if had_messages and not had_index:
            self._rebuild_index()
        self._lock = threading.Lock()

    def _has_table(self, name: str) -> bool:
        row = self._db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone()
        return row is not None

    def _check_columns(self) -> None:
        for table, wanted in COLUMNS.items():
            have = {r[1] for r in self._db.execute(f"PRAGMA table_info({table})")}
            missing = [c for c in wanted if c not in have]
            if missing:
                raise self._damaged(f"table {table} has no column {', '.join(missing)}")

    def _rebuild_index(self) -> None:
        """The search index was lost (dropped or never built): build it again from the messages."""
        from tooldeck._utils.logs import get_logger

        self._db.execute("INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')")
        get_logger("tooldeck.sessions").warning(
            "the search index of %s was missing; rebuilt it from the stored messages", self.path
        )

    def _damaged(self, what: str) -> SessionError:
        return SessionError(
            f"the session database {self.path} is damaged ({what}); to keep the old sessions, repair it "
            f"with the sqlite3 tool, or move it aside to start afresh: mv {self.path} {self.path}.damaged"
        )

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def copy_to(self, path: str | Path) -> None:
        """Copy every session of this store into the database file `path` (made, 0600), as
        one consistent snapshot: how an in-memory store is kept when one of its sessions must
        outlive the process (a batch item awaiting approval)."""
        target = Path(path)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600))
            copy = sqlite3.connect(target)
            try:
                with self._lock:
                    self._db.backup(copy)
            finally:
                copy.close()
        except (OSError, sqlite3.Error) as exc:
            raise SessionError(f"cannot copy the sessions to {target}: {exc}") from None

    # -- writing ---------------------------------------------------------------------------

    @_guarded
    def create(
        self,
        *,
        model: str | None = None,
        system: str | None = None,
        parent_id: str | None = None,
        title: str | None = None,
        session_id: str | None = None,
    ) -> str:
        sid = session_id or new_session_id()
        now = time.time()
        with self._lock:
            self._db.execute(
                "INSERT INTO sessions (id, parent_id, created_at, updated_at, title, model, system) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (sid, parent_id, now, now, title, model, system),
            )
        return sid

    @_guarded
    def append_message(self, session_id: str, message: Message) -> None:
        now = time.time()
        # ASCII escapes keep text that is not valid UTF-8 (lone surrogates from a bad decode)
        # exactly, where SQLite would refuse it; the search column gets a cleaned copy.
        data = json.dumps(message.to_dict())
        searchable = utf8_safe(message.content + "".join(f" {c.name}" for c in message.tool_calls))
        with self._lock:
            row = self._db.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = ?", (session_id,)
            ).fetchone()
            self._db.execute("BEGIN")
            try:
                self._db.execute(
                    "INSERT INTO messages (session_id, seq, role, content, data, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                    (session_id, row[0], message.role, searchable, data, now),
                )
                title = (
                    utf8_safe(message.content.strip().splitlines()[0][:80])
                    if message.content.strip()
                    else None
                )
                self._db.execute(
                    "UPDATE sessions SET updated_at = ?, title = COALESCE(title, CASE WHEN ? = 'user' THEN ? END) "
                    "WHERE id = ?",
                    (now, message.role, title, session_id),
                )
                self._db.execute("COMMIT")
            except sqlite3.Error:
                self._db.execute("ROLLBACK")
                raise

    @_guarded
    def save_state(
        self,
        session_id: str,
        state: RunState,
        *,
        status: str,
        interrupt: Mapping[str, Any] | None = None,
    ) -> None:
        with self._lock:
            self._db.execute(
                "UPDATE sessions SET state = ?, status = ?, interrupt = ?, updated_at = ? WHERE id = ?",
                (
                    json.dumps(state.to_json()),
                    status,
                    _interrupt_json(interrupt) if interrupt is not None else None,
                    time.time(),
                    session_id,
                ),
            )

    @_guarded
    def claim_interrupt(
        self, session_id: str, expected: Mapping[str, Any], remaining: Mapping[str, Any]
    ) -> bool:
        """Replace the session's stored interrupt `expected` by `remaining`, only if it is still
        `expected`: two processes deciding the same pending calls cannot both win."""
        with self._lock:
            cursor = self._db.execute(
                "UPDATE sessions SET interrupt = ?, status = 'resuming', updated_at = ? "
                "WHERE id = ? AND interrupt = ?",
                (_interrupt_json(remaining), time.time(), session_id, _interrupt_json(expected)),
            )
        return cursor.rowcount == 1

    # -- reading ---------------------------------------------------------------------------

    @_guarded
    def resolve(self, prefix: str) -> str:
        """The full id of the one session whose id is or starts with `prefix`."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id FROM sessions WHERE id = ? OR id LIKE ? ORDER BY id",
                (prefix, _like_prefix(prefix)),
            ).fetchall()
        ids = [r[0] for r in rows]
        if prefix in ids:
            return prefix
        if not ids:
            raise SessionError(f"no session {prefix!r} in {self.path} (see `tooldeck sessions list`)")
        if len(ids) > 1:
            raise SessionError(f"session id {prefix!r} is ambiguous: {', '.join(ids[:5])}")
        return str(ids[0])

    @_guarded
    def load(self, session_id: str) -> StoredSession:
        sid = self.resolve(session_id)
        with self._lock:
            row = self._db.execute(
                "SELECT id, title, model, system, status, created_at, updated_at, state, interrupt, parent_id "
                "FROM sessions WHERE id = ?",
                (sid,),
            ).fetchone()
            data = self._db.execute(
                "SELECT data FROM messages WHERE session_id = ? ORDER BY seq", (sid,)
            ).fetchall()
        messages = [self._message(sid, i, d[0]) for i, d in enumerate(data, 1)]
        return StoredSession(
            id=row[0],
            title=row[1],
            model=row[2],
            system=row[3],
            status=row[4],
            created_at=row[5],
            updated_at=row[6],
            messages=messages,
            state=RunState.from_json(self._json(row[7] or "{}", f"the state of session {sid}")),
            interrupt=self._json(row[8], f"the pending question of session {sid}") if row[8] else None,
            parent_id=row[9],
        )

    def _message(self, sid: str, n: int, data: str) -> Message:
        try:
            return Message.from_dict(self._json(data, f"message {n} of session {sid}"))
        except (KeyError, TypeError, ValueError) as exc:
            raise self._damaged(f"message {n} of session {sid} is not a message: {exc}") from None

    def _json(self, text: str, what: str) -> Any:
        try:
            return json.loads(text)
        except (TypeError, ValueError) as exc:
            raise self._damaged(f"{what} is not valid JSON: {exc}") from None

    @_guarded
    def list_sessions(
        self, *, limit: int = 50, include_children: bool = False, pending: bool = False
    ) -> list[SessionSummary]:
        """Sessions, most recently active first; `pending`: only those with calls waiting for
        approval."""
        where = [] if include_children else ["s.parent_id IS NULL"]
        if pending:
            where.append(f"{_PENDING} > 0")
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        with self._lock:
            rows = self._db.execute(
                "SELECT s.id, s.title, s.model, s.status, s.created_at, s.updated_at, "
                f"(SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id), s.parent_id, {_PENDING} "
                f"FROM sessions s {clause} ORDER BY s.updated_at DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [SessionSummary(*r) for r in rows]

    @_guarded
    def search(self, query: str, *, limit: int = 5, exclude_session: str | None = None) -> list[SearchHit]:
        """Messages matching `query`, best first (bm25), with a highlighted snippet each."""
        match = fts_query(query)
        if not match:
            return []
        with self._lock:
            rows = self._db.execute(
                "SELECT m.session_id, s.title, m.role, "
                "snippet(messages_fts, 0, '[', ']', ' … ', 16), bm25(messages_fts), m.created_at "
                "FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid "
                "JOIN sessions s ON s.id = m.session_id "
                "WHERE messages_fts MATCH ? AND m.session_id IS NOT ? AND m.role IN ('user', 'assistant', 'tool') "
                "ORDER BY bm25(messages_fts) LIMIT ?",
                (match, exclude_session, limit),
            ).fetchall()
        return [SearchHit(r[0], r[1], r[2], r[3], -float(r[4]), r[5]) for r in rows]


# How many calls wait for approval in a session row (0 for a clarify question, or bad JSON).
_PENDING = (
    "(CASE WHEN json_valid(s.interrupt) THEN (CASE WHEN json_extract(s.interrupt, '$.kind') = 'approval' "
    "THEN json_array_length(s.interrupt, '$.pending') ELSE 0 END) ELSE 0 END)"
)


def _interrupt_json(interrupt: Mapping[str, Any]) -> str:
    return json.dumps(dict(interrupt), default=str)


def _like_prefix(prefix: str) -> str:
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"
