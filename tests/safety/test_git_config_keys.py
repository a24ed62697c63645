"""The git-config reader: git's syntax (headers with subsections, entries on a header's line,
booleans, quotes, comments, continued lines), the keys that make git run a program, and what
ordinary git work writes (which holds none of them)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tooldeck._core.git_config import entries, looks_like_config, named_paths, run_keys, unreadable


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('[core]\n\tfsmonitor = "touch /tmp/x; false"\n', "core.fsmonitor"),
        ("[core] hooksPath = .hooks\n", "core.hookspath"),
        ("[CORE]\n\tSSHCommand = ssh -o ProxyCommand=x\n", "core.sshcommand"),
        ("[core]\n\tpager = less; id\n", "core.pager"),
        ("[core]\n\teditor = vim\n", "core.editor"),
        ("[core]\n\taskPass = /tmp/a\n", "core.askpass"),
        ('[credential "https://x"]\n\thelper = !f() { id; }; f\n', "credential.https://x.helper"),
        ('[filter "lfs"]\n\tsmudge = sh -c id\n', "filter.lfs.smudge"),
        ('[diff "bin"]\n\ttextconv = hexdump\n', "diff.bin.textconv"),
        ('[merge "ours"]\n\tdriver = true\n', "merge.ours.driver"),
        ("[alias]\n\tst = !sh -c id\n", "alias.st"),
        ("[include]\n\tpath = ../other\n", "include.path"),
        ('[includeIf "gitdir:~/"]\n\tpath = x\n', "includeif.gitdir:~/.path"),
        ("[gpg]\n\tprogram = /tmp/gpg\n", "gpg.program"),
        ('[remote "o"]\n\tuploadpack = sh -c id\n', "remote.o.uploadpack"),
        ("[sequence]\n\teditor = x\n", "sequence.editor"),
        ('[url "ext::sh -c id"]\n\tinsteadOf = https://\n', "url.ext::sh -c id.insteadof"),
        ("[protocol]\n\tallow = always\n", "protocol.allow"),
        ("[core.x]\n\tfoo = 1\n[pager]\n\tlog = sh -c id\n", "pager.log"),
        ("[core]\n\tfsmonitor = touch \\\n /tmp/x\n", "core.fsmonitor"),
    ],
)
def test_keys_that_make_git_run_a_program_are_found(text: str, key: str) -> None:
    found = run_keys(text)
    assert found and found[0].split(" = ")[0].lower() == key.lower(), found


@pytest.mark.parametrize(
    "text",
    [
        "[core]\n\tfsmonitor = true\n\tfilemode = false\n",
        "[alias]\n\tst = status\n",
        "[pager]\n\tbranch = false\n",
        '[user]\n\tname = "a # b"\n; pager = sh\n# editor = x\n',
        '[submodule "s"]\n\tupdate = rebase\n',
    ],
)
def test_entries_that_run_nothing_are_not_flagged(text: str) -> None:
    assert run_keys(text) == []


def test_what_ordinary_git_work_writes_holds_no_key_that_runs_a_program(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for args in (["remote", "add", "origin", "../x"], ["config", "user.name", "t"], ["branch", "-q", "b"]):
        subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=False)
    subprocess.run(["git", "-C", str(repo), "config", "branch.main.remote", "origin"], check=True)
    text = (repo / ".git" / "config").read_text()
    assert looks_like_config(text) and run_keys(text) == [] and unreadable(text) == []


def test_the_reader_follows_gits_syntax() -> None:
    text = '[core] hooksPath = "a\\"b" ; comment\n[section.Sub]\n\tflag\n[x "Q"]\n\tk = v # c\n'
    assert [(e.name, e.value) for e in entries(text)] == [
        ("core.hookspath", 'a"b'),
        ("section.sub.flag", None),
        ("x.Q.k", "v"),
    ]
    assert named_paths("[core] hooksPath = h\n[include]\n\tpath = i\n") == [
        ("h", "the hooks folder core.hooksPath names"),
        ("i", "a file the repository's git config includes"),
    ]
    assert unreadable("../evil\n") == ["../evil"] and not looks_like_config("key = value\n")
