"""`session_search`: full-text search over past sessions' messages (SQLite FTS5)."""

from __future__ import annotations

import time

from tooldeck.agent.sessions import SearchHit, SessionStore
from tooldeck.errors import ToolError


def format_hits(query: str, hits: list[SearchHit]) -> str:
    if not hits:
        return f"No past messages match {query!r}."
    lines = [f"{len(hits)} match(es) for {query!r}, best first:"]
    for n, hit in enumerate(hits, 1):
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(hit.created_at))
        title = f" — {hit.session_title}" if hit.session_title else ""
        lines.append(f"{n}. session {hit.session_id}{title} ({when} UTC, {hit.role}): {hit.snippet}")
    return "\n".join(lines)


def search_sessions(store: SessionStore, query: str, *, limit: int, current_session: str | None) -> str:
    if not query.strip():
        raise ToolError("session_search: the query is empty")
    if not 1 <= limit <= 50:
        raise ToolError(f"session_search: limit must be between 1 and 50, got {limit}")
    return format_hits(query, store.search(query, limit=limit, exclude_session=current_session))
