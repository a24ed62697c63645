"""The SQLite session store (L4): writes as they happen, reload, prefix ids, FTS5 search."""

from __future__ import annotations

from pathlib import Path

import pytest

from tooldeck._core.execution.types import ToolCall
from tooldeck._core.run_state import RunState, TodoItem
from tooldeck.agent.messages import Message, assistant, user
from tooldeck.agent.runtime import unanswered_calls
from tooldeck.agent.sessions import SessionStore, fts_query
from tooldeck.errors import SessionError


def test_messages_are_durable_as_soon_as_appended(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    store = SessionStore(db)
    sid = store.create(model="m", system="sys")
    call = ToolCall("c1", "read_file", '{"path": "a.txt"}')
    store.append_message(sid, user("read a.txt"))
    store.append_message(sid, assistant("", [call]))
    # A second connection (another process, after a crash) sees both without any close/flush.
    other = SessionStore(db)
    loaded = other.load(sid)
    assert [m.role for m in loaded.messages] == ["user", "assistant"]
    assert loaded.messages[1].tool_calls == (call,)
    assert loaded.system == "sys" and loaded.title == "read a.txt"
    store.close()
    other.close()


def test_state_is_saved_without_live_objects_and_with_the_pending_question(tmp_path: Path) -> None:
    with SessionStore(tmp_path / "s.db") as store:
        sid = store.create()
        state = RunState(todo=[TodoItem(1, "x", "pending")])
        store.save_state(sid, state, status="interrupted", interrupt={"question": "why?"})
        loaded = store.load(sid)
    assert loaded.state == RunState(todo=[TodoItem(1, "x", "pending")])
    assert loaded.status == "interrupted" and loaded.interrupt == {"question": "why?"}


def test_ids_resolve_by_unique_prefix(tmp_path: Path) -> None:
    with SessionStore(tmp_path / "s.db") as store:
        a = store.create(session_id="20260101-000000-aaaaaa")
        store.create(session_id="20260101-000000-aaabbb")
        assert store.resolve("20260101-000000-aaaa") == a
        with pytest.raises(SessionError, match="ambiguous"):
            store.resolve("20260101-000000-aaa")
        with pytest.raises(SessionError, match="no session 'zzz'"):
            store.load("zzz")
        with pytest.raises(SessionError, match="no session"):
            store.resolve("2026%")  # LIKE wildcards are literal


def test_search_ranks_matches_and_highlights_them(tmp_path: Path) -> None:
    with SessionStore(tmp_path / "s.db") as store:
        one = store.create()
        store.append_message(one, user("the postgres migration failed on the users table"))
        store.append_message(one, assistant("I rolled back the postgres migration and fixed the users index"))
        two = store.create()
        store.append_message(two, user("plan a trip to the migration museum"))
        hits = store.search("postgres migration")
        assert [h.session_id for h in hits[:2]] == [one, one]
        assert hits[-1].session_id == two  # one word only: ranked last
        assert "[postgres]" in hits[0].snippet and "[migration]" in hits[0].snippet
        assert store.search("migrations")  # stemmed
        assert store.search("postgres", exclude_session=one) == []
        assert store.search("   ") == []
        # Quoted terms: punctuation is no FTS syntax error, the words are searched as words.
        [hit] = store.search('"; DROP TABLE messages; --')
        assert "[table]" in hit.snippet


def test_fts_query_quotes_every_term() -> None:
    assert fts_query('a "b" OR c*') == '"a" OR "b" OR "OR" OR "c"'


def test_unanswered_calls_get_an_error_result_each() -> None:
    calls = [ToolCall("c1", "nap", "{}"), ToolCall("c2", "add", "{}")]
    history = [user("go"), assistant("", calls), Message("tool", "ok", tool_call_id="c1", name="nap")]
    [fixed] = unanswered_calls(history)
    assert fixed.tool_call_id == "c2" and fixed.is_error and '"cancelled"' in fixed.content
    assert unanswered_calls([*history, fixed]) == []


def test_an_unwritable_database_path_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(SessionError, match="cannot open the session database"):
        SessionStore(blocker / "state.db")
