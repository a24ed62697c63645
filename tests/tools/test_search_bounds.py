"""search_files: a pattern that backtracks without end is stopped within the call's timeout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tooldeck import Deck, ToolCall, parse_config

PATHOLOGICAL = "(x+x+)+y"


def _deck(ws: Path, timeout_s: float) -> Deck:
    return Deck(
        parse_config(
            {
                "platform_toolsets": {"cli": ["file"]},
                "sandbox": {"workspace": str(ws)},
                "home": str(ws.parent / "home"),
                "execution": {"default_timeout_s": timeout_s},
            }
        )
    )


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "logs").mkdir(parents=True)
    # No "y" anywhere: every start position backtracks through every split of the x's.
    (root / "long.txt").write_text("x" * 2_000_000 + "\n")
    # The "z" makes ripgrep propose the file, so the Python matcher reads it too.
    (root / "logs" / "run.log").write_text("x" * 2_000_000 + "z\n")
    (root / "small.txt").write_text("hello\n")
    return root


@pytest.mark.timeout(60)
def test_backtracking_pattern_on_a_long_line_stops_with_a_clear_error(ws: Path) -> None:
    with _deck(ws, 2) as deck:
        result = deck.call_sync("search_files", {"pattern": PATHOLOGICAL, "path": "long.txt"})
        assert result.error is not None and result.error.type == "timeout"
        message = result.error.message
        assert json.loads(result.content)["error"]["message"] == message
        # The tool's own answer, not the executor abandoning a stuck thread.
        assert repr(PATHOLOGICAL) in message and "took too long" in message, message
        assert "literal" in message and "abandoned" not in message
        # The process is still usable: the next call runs normally.
        again = deck.call_sync("search_files", {"pattern": "hel+o", "path": "."})
        assert again.error is None and "small.txt:1:hello" in again.content


@pytest.mark.timeout(60)
def test_backtracking_pattern_in_a_folder_search_stops_and_other_calls_finish(ws: Path) -> None:
    calls = [
        ToolCall("c1", "search_files", {"pattern": f"{PATHOLOGICAL}|z", "path": "logs"}),
        ToolCall("c2", "read_file", {"path": "small.txt"}),
    ]
    with _deck(ws, 2) as deck:
        searched, read = deck.call_batch_sync(calls)
    assert searched.call_id == "c1" and searched.error is not None
    assert "took too long" in searched.error.message
    assert read.call_id == "c2" and read.error is None and "hello" in read.content


def test_ordinary_patterns_still_match_and_invalid_ones_are_named(ws: Path) -> None:
    with _deck(ws, 30) as deck:
        found = deck.call_sync("search_files", {"pattern": "H[eE]L+O", "ignore_case": True, "path": "."})
        assert found.error is None and found.content == "small.txt:1:hello"
        bad = deck.call_sync("search_files", {"pattern": "(unclosed", "path": "."})
        assert bad.error is not None
        assert "invalid regular expression '(unclosed'" in bad.error.message
