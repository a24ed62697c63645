"""Where long results are kept: a private folder (0700), files 0600, never through a symlink."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from tooldeck import tool
from tooldeck._core.execution.executor import Executor
from tooldeck._core.execution.results import SpillStore

from .helpers import loadout, one

BIG = "".join(f"row {i}\n" for i in range(500))


@tool(max_result_chars=100)
def big() -> str:
    """A long result."""
    return BIG


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_kept_results_are_private(tmp_path: Path) -> None:
    base = tmp_path / "home" / "spill"
    ex = Executor(loadout(big), spill_dir=base, session_id="sess")
    assert "read_result(id='id-big'" in one(ex, "big").content
    assert mode(base) == 0o700 and mode(base / "sess") == 0o700
    assert mode(base / "sess" / "id-big.txt") == 0o600
    assert (base / "sess" / "id-big.txt").read_text() == BIG


def test_without_a_folder_a_private_temporary_one_is_made(tmp_path: Path) -> None:
    store = SpillStore()
    kept = store.save("call-1", "text")
    assert kept == "call-1" and store.root is not None
    assert store.root.parent == Path(tempfile.gettempdir()) and store.root.name.startswith("tooldeck-spill-")
    assert mode(store.root) == 0o700 and mode(store.root / "call-1.txt") == 0o600
    assert store.read("call-1").startswith("text")
    root = store.root
    del store
    assert not root.exists()  # removed with the store


def test_an_executor_keeps_results_privately_under_the_tooldeck_home(tmp_path: Path) -> None:
    ex = Executor(loadout(big, home=str(tmp_path / "home")), session_id="cli")
    assert "read_result(id='id-big'" in one(ex, "big").content
    assert ex.spill.root == tmp_path / "home" / "spill" / "cli"
    assert mode(ex.spill.root) == 0o700  # not the shared /tmp/tooldeck-spill/cli of old


def test_a_symlink_planted_at_a_result_name_is_not_written_through(tmp_path: Path) -> None:
    base, victim = tmp_path / "spill", tmp_path / "victim.txt"
    (base / "sess").mkdir(parents=True)
    victim.write_text("precious")
    (base / "sess" / "id-big.txt").symlink_to(victim)
    ex = Executor(loadout(big), spill_dir=base, session_id="sess")
    content = one(ex, "big").content
    assert "read_result(id='id-big-2'" in content  # the planted name is skipped
    assert victim.read_text() == "precious"
    assert (base / "sess" / "id-big-2.txt").read_text() == BIG
    page = one(ex, "read_result", {"id": "id-big"})  # nor is it read through
    assert page.error is not None and "no kept result" in page.error.message


def test_a_symlink_planted_as_the_session_folder_is_refused(tmp_path: Path) -> None:
    base, elsewhere = tmp_path / "spill", tmp_path / "elsewhere"
    base.mkdir()
    elsewhere.mkdir()
    (base / "sess").symlink_to(elsewhere)
    ex = Executor(loadout(big), spill_dir=base, session_id="sess")
    result = one(ex, "big")
    assert result.ok and "the rest was dropped" in result.content  # cut, but kept nowhere
    assert os.listdir(elsewhere) == []


def test_a_decks_direct_calls_share_their_kept_results_and_remove_them_with_the_deck(tmp_path: Path) -> None:
    import gc

    from tooldeck import Config, Deck

    deck = Deck(Config(home=str(tmp_path / "home")), tools=[big], builtins=False)
    first = deck.call_sync("big")
    result_id = first.meta["result_id"]
    assert f"read_result(id={result_id!r}" in first.content
    page = deck.call_sync("read_result", {"id": result_id})  # a later call reads what the first kept
    assert page.ok and page.content.startswith(BIG[:200])
    (folder,) = (tmp_path / "home" / "spill").iterdir()
    assert folder.name.startswith("run-") and (folder / f"{result_id}.txt").read_text() == BIG
    deck.close()
    del deck, first, page
    gc.collect()
    assert not folder.exists()  # nobody can resume these calls: their results go with the deck


def test_a_named_session_keeps_its_results_for_a_later_run(tmp_path: Path) -> None:
    base = tmp_path / "spill"
    Executor(loadout(big), spill_dir=base, session_id="sess")
    ex = Executor(loadout(big), spill_dir=base, session_id="sess")
    one(ex, "big")
    del ex
    assert (base / "sess" / "id-big.txt").read_text() == BIG
