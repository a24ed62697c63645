"""The control plane is out of the model's reach: protected paths need consent in the file
tools and are read-only in the sandbox; the tooldeck home is invisible; forged grants are
ignored. Real files, real bubblewrap, the real executor."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tooldeck import Deck, load_config, parse_config
from tooldeck._core.execution.approval_store import AlwaysGrants
from tooldeck._core.execution.policy import ApprovalAnswer, ApprovalRequest, CallbackApprover
from tooldeck._core.execution.types import ToolResult
from tooldeck.errors import ConfigError

CONFIG = (
    "sandbox: {kind: bwrap}\nhome: .tooldeck\nplatform_toolsets: {cli: [file, terminal, code_execution]}\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "tooldeck.yaml").write_text(CONFIG)
    (root / ".tooldeck").mkdir()
    (root / ".tooldeck" / "grants.jsonl").write_text('{"secret": 1}\n')
    return root


def deck_in(root: Path) -> Deck:
    return Deck(load_config(root / "tooldeck.yaml"))


def error_of(result: ToolResult) -> dict[str, object]:
    return dict(json.loads(result.content)["error"])


def test_the_file_tools_refuse_protected_paths_however_they_are_named(project: Path) -> None:
    os.link(project / "tooldeck.yaml", project / "same.yaml")
    (project / "alias.yaml").symlink_to("tooldeck.yaml")
    deck = deck_in(project)
    for path in (
        "tooldeck.yaml",
        "/workspace/tooldeck.yaml",
        str(project / "tooldeck.yaml"),
        "same.yaml",
        "alias.yaml",
        ".git/hooks/pre-commit",
        ".GIT/Hooks/pre-commit",
        ".git/config",
        ".vscode/settings.json",
        ".mcp.json",
    ):
        err = error_of(deck.call_sync("write_file", {"path": path, "content": "approvals: {mode: allow}\n"}))
        assert err["type"] == "denied" and "is protected" in str(err["message"]), (path, err)
    assert (project / "tooldeck.yaml").read_text() == CONFIG
    assert not (project / ".git/hooks/pre-commit").exists() and not (project / ".mcp.json").exists()
    replaced = deck.call_sync(
        "patch", {"path": "tooldeck.yaml", "old_string": "kind: bwrap", "new_string": "kind: none"}
    )
    assert error_of(replaced)["type"] == "denied"
    for body in (
        "*** Delete File: tooldeck.yaml",
        "*** Move File: tooldeck.yaml -> gone.yaml",
        "*** Add File: .git/hooks/post-checkout\n+#!/bin/sh",
    ):
        err = error_of(
            deck.call_sync("patch", {"mode": "patch", "patch": f"*** Begin Patch\n{body}\n*** End Patch"})
        )
        assert err["type"] == "denied" and "protected" in str(err["message"]), body
    assert (project / "tooldeck.yaml").read_text() == CONFIG
    # Ordinary edits keep working unasked, and protected files stay readable.
    assert not deck.call_sync("write_file", {"path": "notes.txt", "content": "ok\n"}).error is not None
    assert "kind: bwrap" in deck.call_sync("read_file", {"path": "tooldeck.yaml"}).content


def test_a_protected_edit_the_user_approves_goes_through_bound_to_the_path(project: Path) -> None:
    asked: list[tuple[str | None, str]] = []

    def approve(request: ApprovalRequest) -> bool:
        asked.append((request.rule, request.reason))
        return True

    deck = deck_in(project)
    done = deck.call_sync(
        "write_file", {"path": ".mcp.json", "content": "{}\n"}, approver=CallbackApprover(approve)
    )
    assert done.error is None, done.content
    assert asked == [("protected-path:.mcp.json", asked[0][1])] and ".mcp.json" in asked[0][1]
    audit = [
        json.loads(line) for line in (project / ".tooldeck" / "approvals.jsonl").read_text().splitlines()
    ]
    assert [(a["rule"], a["outcome"]) for a in audit if a["rule"].startswith("protected-path")] == [
        ("protected-path:.mcp.json", "approved")
    ]
    # An 'always' answer is a signed grant bound to that one path: honoured later with nobody to
    # ask, and for no other protected path.
    deck.call_sync(
        "write_file",
        {"path": ".mcp.json", "content": "{}\n"},
        approver=CallbackApprover(lambda request: ApprovalAnswer(True, "always")),
    )
    assert deck_in(project).call_sync("write_file", {"path": ".mcp.json", "content": "[]\n"}).error is None
    other = deck_in(project).call_sync("write_file", {"path": ".git/config", "content": ""})
    assert error_of(other)["type"] == "denied" and (project / ".mcp.json").read_text() == "[]\n"


def test_a_protected_write_under_approvals_mode_ask_asks_once(project: Path) -> None:
    # The pre-call policy lets the built-in file edits run (their own approval is allow), so the
    # one question is the file tool's own, mid-call, about the protected path.
    (project / "tooldeck.yaml").write_text(CONFIG + "approvals: {mode: ask}\n")
    asked: list[str | None] = []

    def approve(request: ApprovalRequest) -> bool:
        asked.append(request.rule)
        return True

    deck, approver = deck_in(project), CallbackApprover(approve)
    assert deck.call_sync("write_file", {"path": ".mcp.json", "content": "{}\n"}, approver=approver).ok
    assert asked == ["protected-path:.mcp.json"] and (project / ".mcp.json").read_text() == "{}\n"
    patch = "*** Begin Patch\n*** Add File: .vscode/tasks.json\n+{}\n*** End Patch"
    assert deck.call_sync("patch", {"mode": "patch", "patch": patch}, approver=approver).ok
    assert asked[1:] == ["protected-path:.vscode/tasks.json"]
    assert deck.call_sync("write_file", {"path": "notes.txt", "content": "x\n"}, approver=approver).ok
    assert len(asked) == 2  # an ordinary write asks nobody


def test_the_home_is_not_found_listed_or_suggested(project: Path) -> None:
    deck = deck_in(project)
    for path in (".tooldeck/grants.jsonl", ".tooldeck", "/workspace/.tooldeck/grants.jsonl"):
        read = error_of(deck.call_sync("read_file", {"path": path}))
        assert read["message"] == f"file not found: {path!r}"
    wrote = error_of(deck.call_sync("write_file", {"path": ".tooldeck/grants.jsonl", "content": "{}"}))
    assert "not found" in str(wrote["message"])
    assert (project / ".tooldeck/grants.jsonl").read_text() == '{"secret": 1}\n'
    missing = error_of(deck.call_sync("read_file", {"path": "grants.jsonl"}))
    assert "did you mean" not in str(missing["message"])
    (project / "peek").symlink_to(".tooldeck")
    assert "not found" in str(error_of(deck.call_sync("read_file", {"path": "peek/grants.jsonl"}))["message"])
    listed = deck.call_sync("search_files", {"pattern": "*", "target": "files"}).content
    assert "tooldeck.yaml" in listed and "grants" not in listed
    for backend_pattern in ("secret", "secr[e]t"):
        found = deck.call_sync("search_files", {"pattern": backend_pattern, "target": "content"}).content
        assert found.startswith("no lines matching"), found


def test_the_sandbox_keeps_protected_paths_read_only_and_the_home_masked(project: Path) -> None:
    deck = deck_in(project)
    script = (
        "echo evil >> tooldeck.yaml; echo x > .git/hooks/pre-commit; echo '{}' > .mcp.json;"
        " mkdir -p .vscode/x; mv .git .old; cat .tooldeck/grants.jsonl; echo fine > ok.txt; echo end"
    )
    # Writing a git hook asks first (write-git-hook); approved, the sandbox's wall still holds.
    asked: list[str | None] = []

    def approve(request: ApprovalRequest) -> ApprovalAnswer:
        asked.append(request.rule)
        return ApprovalAnswer(True, "once")

    out = deck.call_sync("terminal", {"command": script}, approver=CallbackApprover(approve)).content
    assert asked == ["write-git-hook"]
    assert "end" in out and "secret" not in out and "Device or resource busy" in out
    assert (project / "tooldeck.yaml").read_text() == CONFIG
    assert (project / "ok.txt").read_text() == "fine\n"
    assert (project / ".git/config").exists()
    # The placeholders that kept new protected paths from being made are gone afterwards.
    for made in (".git/hooks/pre-commit", ".mcp.json", ".vscode"):
        assert not (project / made).exists(), made


def test_execute_code_and_its_nested_calls_meet_the_same_walls(project: Path) -> None:
    deck = deck_in(project)
    code = (
        "from tooldeck_tools import write_file, read_file\n"
        "for call in (lambda: write_file(path='tooldeck.yaml', content='x'),\n"
        "             lambda: read_file(path='.tooldeck/grants.jsonl')):\n"
        "    try:\n        print(call())\n    except Exception as e:\n        print('nested', e)\n"
        "try:\n    open('tooldeck.yaml', 'a').write('evil')\nexcept OSError as e:\n    print('direct', e.strerror)\n"
    )
    out = deck.call_sync("execute_code", {"code": code}).content
    assert "is protected" in out and "file not found" in out and "direct Read-only file system" in out
    assert (project / "tooldeck.yaml").read_text() == CONFIG


def test_a_grant_tooldeck_did_not_sign_is_never_honoured(tmp_path: Path) -> None:
    grants = AlwaysGrants(tmp_path / "grants.jsonl", tmp_path / "ws")
    forged = {
        "workspace": str(tmp_path / "ws"),
        "tool": "terminal",
        "rule": "git-reset",
        "subject": "git reset --hard",
    }
    fd = os.open(tmp_path / "grants.jsonl", os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, (json.dumps(forged) + "\n" + json.dumps({**forged, "mac": "0" * 64}) + "\n").encode())
    os.close(fd)
    assert not grants.covers("terminal", "git-reset", "git reset --hard") and grants.rejected == 2
    grants.add("terminal", "git-reset", "git reset --hard")
    assert grants.covers("terminal", "git-reset", "git reset --hard") and grants.rejected == 2
    assert oct((tmp_path / "grants.key").stat().st_mode & 0o777) == "0o600"


def test_run_in_the_home_folder_the_default_home_and_config_cache_are_hidden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # tooldeck started in ~: the workspace is ~, the home ~/.tooldeck, the config cache ~/.cache.
    user = tmp_path / "user"
    (user / ".tooldeck").mkdir(parents=True)
    (user / ".tooldeck" / "approvals.jsonl").write_text('{"decision": "granted"}\n')
    (user / "cache" / "config").mkdir(parents=True)
    (user / "cache" / "config" / "entry").write_text("pickled config\n")
    (user / "tooldeck.yaml").write_text("platform_toolsets: {cli: [file]}\n")
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.delenv("TOOLDECK_HOME", raising=False)
    monkeypatch.setenv("TOOLDECK_CACHE_DIR", str(user / "cache"))
    deck = deck_in(user)
    for path in (".tooldeck/approvals.jsonl", "cache/config/entry", "~/.tooldeck/approvals.jsonl"):
        assert "not found" in str(error_of(deck.call_sync("read_file", {"path": path}))["message"]), path
    patched = deck.call_sync(
        "patch", {"path": ".tooldeck/approvals.jsonl", "old_string": "granted", "new_string": "x"}
    )
    assert "not found" in str(error_of(patched)["message"])
    # tooldeck itself still logs there; the tool changed nothing.
    assert (user / ".tooldeck" / "approvals.jsonl").read_text().startswith('{"decision": "granted"}\n')
    listed = deck.call_sync("search_files", {"pattern": "*", "target": "files"}).content
    assert "tooldeck.yaml" in listed and "entry" not in listed


def test_a_sandboxed_command_cannot_make_hidden_stores_before_tooldeck_does(tmp_path: Path) -> None:
    # A sessions database (or a home) made first by a command would be the command's to shape.
    root = tmp_path / "fresh"
    root.mkdir()
    (root / "tooldeck.yaml").write_text(CONFIG + "agent: {sessions_db: db/state.db}\n")
    deck = deck_in(root)
    script = "mkdir -p db; echo forged > db/state.db; echo key > .tooldeck/grants.key; echo end"
    out = deck.call_sync("terminal", {"command": script}).content
    assert "end" in out and not (root / ".tooldeck" / "grants.key").exists()
    assert not (root / "db").exists()  # the placeholder went with the command


def test_without_a_repository_none_can_be_made_to_run_hooks_later(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    (root / "tooldeck.yaml").write_text(CONFIG)
    deck = deck_in(root)
    # A `.git` file naming a repository the model made would run its hooks at the next commit.
    pointer = deck.call_sync("write_file", {"path": ".git", "content": "gitdir: fake\n"})
    assert error_of(pointer)["type"] == "denied" and "'.git/hooks'" in str(error_of(pointer)["message"])
    assert deck.call_sync("write_file", {"path": "fake/config", "content": "[core]\n"}).error is None
    out = deck.call_sync(
        "terminal", {"command": "echo 'gitdir: fake' > .git; git init -q .; echo end"}
    ).content
    assert "end" in out and not (root / ".git").exists()


def test_sandbox_protected_adds_to_the_defaults_drops_with_a_bang_and_refuses_bad_paths(
    project: Path,
) -> None:
    (project / "tooldeck.yaml").write_text(
        CONFIG.replace("{kind: bwrap}", "{kind: bwrap, protected: ['deploy/*.sh', '!.mcp.json']}")
    )
    deck = deck_in(project)
    assert (
        error_of(deck.call_sync("write_file", {"path": "deploy/run.sh", "content": "x"}))["type"] == "denied"
    )
    assert deck.call_sync("write_file", {"path": "deploy/notes.txt", "content": "x"}).error is None
    assert deck.call_sync("write_file", {"path": ".mcp.json", "content": "{}"}).error is None
    assert (
        error_of(deck.call_sync("write_file", {"path": ".vscode/x.json", "content": "{}"}))["type"]
        == "denied"
    )
    for bad in ("/etc/passwd", "../up", "!"):
        with pytest.raises(ConfigError, match=r"sandbox\.protected\[0\]"):
            parse_config({"sandbox": {"protected": [bad]}})


def git_status(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(root), "status", "--short"], capture_output=True, text=True)


def test_git_cannot_be_pointed_at_a_repository_of_the_models_making(project: Path) -> None:
    # `.git/commondir` names where git reads config and hooks: `../ev` would run ../ev's hooks
    # at the user's next git command. It is protected in the file tools and in the sandbox, where
    # its placeholder says "." (the repository itself) so git keeps working there.
    (project / "ev" / "hooks").mkdir(parents=True)
    (project / "ev" / "config").write_text("[core]\n\tpager = touch /tmp/pwned-by-commondir\n")
    deck = deck_in(project)
    for path in (".git/commondir", ".git/config.worktree"):
        err = error_of(deck.call_sync("write_file", {"path": path, "content": "../ev\n"}))
        assert err["type"] == "denied" and path in str(err["message"]), (path, err)
    script = (
        "echo ../ev > .git/commondir; echo '[core] x = 1' > .git/config.worktree;"
        " git status --short >/dev/null && echo git-works; echo end"
    )
    out = deck.call_sync("terminal", {"command": script}).content
    assert "end" in out and "git-works" in out and "Read-only file system" in out, out
    assert not (project / ".git" / "commondir").exists()
    assert not (project / ".git" / "config.worktree").exists()
    assert git_status(project).returncode == 0
    # A linked worktree's commondir exists: it is kept read-only as it is.
    subprocess.run(["git", "-C", str(project), "commit", "-q", "--allow-empty", "-m", "a"], check=True)
    subprocess.run(
        ["git", "-C", str(project), "worktree", "add", "-q", str(project.parent / "wt")], check=True
    )
    commondir = next((project / ".git" / "worktrees").iterdir()) / "commondir"
    before = commondir.read_text()
    out = deck.call_sync("terminal", {"command": f"echo ../../../ev > {commondir}; echo end"}).content
    assert "end" in out and "Read-only file system" in out and commondir.read_text() == before


def test_files_the_repositorys_git_config_includes_are_protected(project: Path) -> None:
    subprocess.run(["git", "-C", str(project), "config", "include.path", "../team.gitconfig"], check=True)
    subprocess.run(
        ["git", "-C", str(project), "config", "includeIf.onbranch:main.path", "../branch.gitconfig"],
        check=True,
    )
    (project / "team.gitconfig").write_text("[user]\n\tname = team\n")
    deck = deck_in(project)
    for path in ("team.gitconfig", "branch.gitconfig"):
        err = error_of(deck.call_sync("write_file", {"path": path, "content": "[core]\n\tpager = sh\n"}))
        assert err["type"] == "denied" and "includes" in str(err["message"]), (path, err)
    out = deck.call_sync(
        "terminal", {"command": "echo x >> team.gitconfig; echo y > branch.gitconfig; echo end"}
    ).content
    refused = [line for line in out.splitlines() if "Read-only" in line or "Permission denied" in line]
    assert "end" in out and len(refused) == 2, out
    assert (project / "team.gitconfig").read_text() == "[user]\n\tname = team\n"
    assert not (project / "branch.gitconfig").exists()
    assert git_status(project).returncode == 0
