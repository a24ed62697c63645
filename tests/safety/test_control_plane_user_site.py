"""Run in `~`, the workspace holds the user's site-packages, whose `.pth` files and
`usercustomize` every Python the user starts runs: it is protected like the other start-up
files. Real files, real bubblewrap, a real Python asked where its user site is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tooldeck import Deck, load_config
from tooldeck._core.execution.policy import ApprovalAnswer, ApprovalRequest, CallbackApprover


def test_the_user_site_packages_in_the_workspace_cannot_be_planted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = tmp_path / "user"
    user.mkdir()
    (user / "tooldeck.yaml").write_text(
        "sandbox: {kind: bwrap}\nhome: .tooldeck\nplatform_toolsets: {cli: [file, terminal]}\n"
    )
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.delenv("PYTHONUSERBASE", raising=False)
    env = {**os.environ, "HOME": str(user)}
    asked = [sys.executable, "-c", "import site; print(site.getusersitepackages())"]
    site = Path(subprocess.run(asked, capture_output=True, text=True, env=env, check=True).stdout.strip())
    assert site.is_relative_to(user)
    rel = site.relative_to(user).as_posix()
    deck = Deck(load_config(user / "tooldeck.yaml"))
    for name in ("evil.pth", "usercustomize.py"):
        done = deck.call_sync("write_file", {"path": f"{rel}/{name}", "content": "import os\n"})
        error = json.loads(done.content)["error"]
        assert error["type"] == "denied" and "site-packages" in error["message"], error
    script = f"mkdir -p {site} && echo 'import os' > {site}/evil.pth; echo end"
    # The analyser asks about the .pth first (write-shell-startup); approved, the sandbox refuses it.
    asked: list[str | None] = []

    def approve(request: ApprovalRequest) -> ApprovalAnswer:
        asked.append(request.rule)
        return ApprovalAnswer(True, "once")

    out = deck.call_sync("terminal", {"command": script}, approver=CallbackApprover(approve)).content
    assert asked == ["write-shell-startup"]
    assert "end" in out and "Read-only file system" in out, out
    assert not site.exists()
    # The workspace is the home: every dot-folder at its top is protected (~/.local/bin is on
    # PATH); what is not a dot-name stays the model's to use.
    held = deck.call_sync("write_file", {"path": ".local/share/app/notes.txt", "content": "ok"}).error
    assert held is not None and "top of the user's home" in held.message
    assert deck.call_sync("write_file", {"path": "notes/today.txt", "content": "ok"}).error is None
