"""Repositories at any depth are control plane: hooks, pointer files and configs that make git
run a program need consent whichever tool writes them (the file tools, the terminal through its
copy-on-write view, execute_code through its look before and after), while ordinary git work in
a nested repository lands unasked. Real git, real bubblewrap, the real executor."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tooldeck import Deck, load_config
from tooldeck._core.execution.policy import ApprovalAnswer, ApprovalRequest, CallbackApprover
from tooldeck._core.execution.types import ToolResult

CONFIG = (
    "sandbox: {kind: bwrap}\nhome: .tooldeck\nplatform_toolsets: {cli: [file, terminal, code_execution]}\n"
)
IDENTITY = "-c user.name=t -c user.email=t@t"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    subprocess.run(["git", "init", "-q", str(root)], check=True)  # makes the folder as well
    (root / "tooldeck.yaml").write_text(CONFIG)
    (root / ".gitignore").write_text(".tooldeck/\n")
    return root


def deck_in(root: Path) -> Deck:
    return Deck(load_config(root / "tooldeck.yaml"))


def denied(result: ToolResult) -> str:
    error = json.loads(result.content).get("error") or {}
    assert error.get("type") == "denied", result.content
    return str(error["message"])


def fsmonitor(marker: Path) -> str:
    return f'[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "touch {marker}; false"\n'


def analyser_only(asked: list[str]) -> CallbackApprover:
    """Approves what the shell analyser asks (so the command runs) and nothing else: what the
    command did is then judged by its effects alone."""

    def answer(request: ApprovalRequest) -> ApprovalAnswer:
        asked.append(request.reason)
        return ApprovalAnswer(not (request.rule or "").startswith("effects:"), "once")

    return CallbackApprover(answer)


def host_git_status(root: Path) -> None:
    subprocess.run(["git", "-C", str(root), "status", "--short"], capture_output=True, timeout=60)


def test_a_nested_repository_made_by_the_terminal_cannot_be_given_an_fsmonitor(
    project: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "PWN"
    deck = deck_in(project)
    made = deck.call_sync(
        "terminal",
        {
            "command": f"mkdir sub && cd sub && git init -q && git {IDENTITY} commit -q --allow-empty -m x && echo made"
        },
    )
    # The benign control: git init and commit in a nested repository land, nobody asked.
    assert made.error is None and "made" in made.content, made.content
    assert (project / "sub" / ".git" / "HEAD").is_file()
    assert (project / "sub" / ".git" / "hooks").is_dir()
    # The attack: the nested repository's config written by the file tool, then `git add sub`.
    why = denied(deck.call_sync("write_file", {"path": "sub/.git/config", "content": fsmonitor(marker)}))
    assert "core.fsmonitor" in why
    added = deck.call_sync("terminal", {"command": "git add sub && echo added"})
    assert "added" in added.content, added.content
    host_git_status(project)
    host_git_status(project / "sub")
    assert not marker.exists()
    assert "fsmonitor" not in (project / "sub" / ".git" / "config").read_text()
    # A config without keys that run a program lands unasked (git config user.name, a remote).
    ordinary = '[core]\n\trepositoryformatversion = 0\n[user]\n\tname = t\n[remote "origin"]\n\turl = ../x\n'
    assert deck.call_sync("write_file", {"path": "sub/.git/config", "content": ordinary}).error is None
    remote = deck.call_sync(
        "terminal", {"command": "cd sub && git remote add up ../y && git config user.email t@t && echo ok"}
    )
    assert remote.error is None and "ok" in remote.content, remote.content
    assert '[remote "up"]' in (project / "sub" / ".git" / "config").read_text()


def test_the_terminal_and_execute_code_cannot_write_run_keys_into_a_nested_config(
    project: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "PWN"
    subprocess.run(["git", "init", "-q", str(project / "sub")], check=True)
    deck = deck_in(project)
    line = f"[alias]\\n\\tst = !touch {marker}\\n[core]\\n\\tpager = touch {marker}\\n"
    asked: list[str] = []
    command = {"command": f"printf '{line}' >> sub/.git/config; echo end"}
    out = deck.call_sync("terminal", command, approver=analyser_only(asked))
    assert "core.pager" in denied(out) and "alias.st" in denied(out)
    assert any("core.pager" in reason for reason in asked), asked
    code = "open('sub/.git/config', 'a').write('[core]\\n\\thooksPath = ../h\\n')\nprint('wrote')"
    ran = deck.call_sync("execute_code", {"code": code}, approver=analyser_only(asked))
    assert "core.hookspath" in denied(ran)
    assert "hooksPath" not in (project / "sub" / ".git" / "config").read_text()
    host_git_status(project / "sub")
    assert not marker.exists()
    # Ordinary files and the project's own dot-files change unasked, through every tool.
    ok = deck.call_sync(
        "terminal", {"command": "echo '*.log' >> .gitignore && echo hi > notes.txt && echo ok"}
    )
    assert ok.error is None and "ok" in ok.content
    ran = deck.call_sync("execute_code", {"code": "open('more.txt', 'w').write('x')\nprint('ok')"})
    assert ran.error is None and (project / "more.txt").read_text() == "x"
    assert (
        deck.call_sync("patch", {"path": ".gitignore", "old_string": "*.log", "new_string": "*.tmp"}).error
        is None
    )


def test_hooks_pointer_files_and_bare_repositories_at_any_depth(project: Path) -> None:
    subprocess.run(["git", "init", "-q", str(project / "a" / "b")], check=True)
    subprocess.run(["git", "init", "-q", "--bare", str(project / "store.git")], check=True)
    (project / "evil").mkdir()
    deck = deck_in(project)
    for path, content in (
        ("a/b/.git/hooks/pre-commit", "#!/bin/sh\ntouch /tmp/x\n"),
        ("a/b/.git/hooks", "not a folder"),
        ("store.git/hooks/post-update", "#!/bin/sh\n"),
        ("new/.git", "gitdir: ../evil\n"),
        ("a/b/.git/commondir", "../../evil\n"),
        ("store.git/config", "[core]\n\tsshCommand = sh -c id\n"),
        ("lib/team.gitconfig", "[include]\n\tpath = ../x\n"),
        (".gitmodules", '[submodule "s"]\n\tpath = s\n\tupdate = !sh -c id\n'),
    ):
        denied(deck.call_sync("write_file", {"path": path, "content": content}))
    # git's own samples, a pointer into git's layout and a plain `config` file land.
    assert deck.call_sync("write_file", {"path": "a/b/.git/hooks/x.sample", "content": "#"}).error is None
    module = {"path": "s/.git", "content": "gitdir: ../.git/modules/s\n"}
    assert deck.call_sync("write_file", module).error is None
    assert deck.call_sync("write_file", {"path": "app/config", "content": "debug=1\n"}).error is None
    # The same through the terminal's view: a hook in a nested repository is held.
    hook = {"command": "printf '#!/bin/sh\\n' > a/b/.git/hooks/post-checkout; echo end"}
    out = deck.call_sync("terminal", hook, approver=analyser_only([]))
    assert "a/b/.git/hooks/post-checkout" in denied(out)
    assert not (project / "a" / "b" / ".git" / "hooks" / "post-checkout").exists()


def test_the_git_config_reader_finds_hooks_path_on_the_header_line_and_in_the_global_config(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with (project / ".git" / "config").open("a") as fh:
        fh.write("[core] hooksPath = team-hooks\n")
    global_config = tmp_path / "global.gitconfig"
    global_config.write_text("[core]\n\thooksPath = .githooks\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(global_config))
    subprocess.run(["git", "init", "-q", str(project / "sub")], check=True)
    deck = deck_in(project)
    for path in ("team-hooks/pre-commit", ".githooks/pre-push", "sub/.githooks/pre-commit"):
        assert "hooks" in denied(deck.call_sync("write_file", {"path": path, "content": "#!/bin/sh\n"}))
    # A folder of that name outside any repository is nobody's hooks.
    assert deck.call_sync("write_file", {"path": "docs/.githooks/notes.md", "content": "x"}).error is None
