"""The terminal approval prompt shows every flagged part of a command in full with its rule,
however long the command; what it cuts says how much; Enter alone answers no. A real
pseudo-terminal, the real executor and the real terminal tool."""

from __future__ import annotations

import io
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tooldeck import Deck, load_config
from tooldeck._core.execution.policy import TerminalApprover

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
}


def repository(root: Path) -> Path:
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "work.txt").write_text("committed\n")
    subprocess.run(["git", "-C", str(root), "add", "work.txt"], check=True)
    subprocess.run(
        ["git", "-C", str(root), "commit", "-q", "-m", "x"], check=True, env={**os.environ, **GIT_ENV}
    )
    (root / "work.txt").write_text("uncommitted work\n")
    (root / "tooldeck.yaml").write_text(
        "sandbox: {kind: bwrap}\nhome: .tooldeck\nplatform_toolsets: {cli: [terminal]}\n"
    )
    return root


@contextmanager
def prompt_answering(answer: str) -> Iterator[tuple[TerminalApprover, io.StringIO]]:
    """A terminal approver reading `answer` from a real pseudo-terminal; what it printed."""
    main, side = os.openpty()
    os.write(main, answer.encode())
    shown = io.StringIO()
    with os.fdopen(side, "r") as stdin:
        try:
            yield TerminalApprover(stdin=stdin, stdout=shown), shown
        finally:
            os.close(main)


def test_every_flagged_part_is_shown_in_full_however_long_the_command(tmp_path: Path) -> None:
    root = repository(tmp_path / "p")
    command = "history -c; echo '" + "y" * 600 + "'; git reset --hard"
    with prompt_answering("\n") as (approver, shown):  # Enter alone
        result = Deck(load_config(root / "tooldeck.yaml")).call_sync(
            "terminal", {"command": command}, approver=approver
        )
    text = shown.getvalue()
    head = text.split("Allow?")[0]
    assert "[wipe-history]" in head and "[git-discard-work]" in head, head
    assert "(in: git reset --hard)" in head and "(in: history -c)" in head
    assert "more characters not shown" in head and "2 parts are flagged" in head
    assert "[D]eny" in text
    # Enter alone is no: nothing ran, the uncommitted work is still there.
    assert result.error is not None and result.error.type == "denied"
    assert (root / "work.txt").read_text() == "uncommitted work\n"


def test_the_cut_says_how_much_and_a_single_part_reads_as_before(tmp_path: Path) -> None:
    root = repository(tmp_path / "p")
    command = "git reset --hard; echo '" + "z" * 700 + "'"
    with prompt_answering("n\n") as (approver, shown):
        deck = Deck(load_config(root / "tooldeck.yaml"))
        deck.call_sync("terminal", {"command": command}, approver=approver)
    text = shown.getvalue()
    assert "discards uncommitted changes (in: git reset --hard) [git-discard-work]" in text
    assert f"[{len(command) - 500} more characters not shown" in text
    assert (root / "work.txt").read_text() == "uncommitted work\n"
