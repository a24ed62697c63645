"""The helper behind `tooldeck shell-check`, command normalisation, and the cold import path."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from support.cli import tooldeck_command
from tooldeck.safety import commands_from, normalise_command, shell_check_lines


def test_json_lines_have_the_cli_shape() -> None:
    lines = list(shell_check_lines(["rm -rf /", "ls", 'echo "rm -rf /"'], as_json=True))
    records = [json.loads(line) for line in lines]
    assert [r["verdict"] for r in records] == ["block", "safe", "safe"]
    assert all(set(r) == {"command", "verdict", "rule", "reason"} for r in records)
    assert records[0]["rule"] == "delete-root" and records[1]["rule"] is None


def test_readable_lines_show_verdict_rule_and_reason() -> None:
    block, safe = shell_check_lines(["sudo reboot", "git status"])
    assert block.startswith("APPROVE") and "[power-state]" in block and "sudo reboot" in block
    assert safe.split() == ["SAFE", "git", "status"]


def test_commands_come_from_arguments_else_stdin_lines() -> None:
    assert list(commands_from(["a", "b"], io.StringIO("c\n"))) == ["a", "b"]
    assert list(commands_from([], io.StringIO("ls\n\n  \nrm -rf ~\r\n"))) == ["ls", "rm -rf ~"]
    assert list(commands_from([], None)) == []


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("rm   -rf  build   # old", "rm -rf build"),
        ("  ls;  pwd ", "ls; pwd"),
        ("a=1   b=2 cmd", "a=1 b=2 cmd"),
    ],
)
def test_normalisation_collapses_layout(left: str, right: str) -> None:
    assert normalise_command(left) == normalise_command(right) == right


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ('echo "a  b"', 'echo "a b"'),
        ("rm -rf 'a b'", "rm -rf a b"),
        ("ls\nrm x", "ls rm x"),
        ("rm -rf ./build", "rm -rf ./build/.."),
    ],
)
def test_normalisation_keeps_meaning_apart(left: str, right: str) -> None:
    assert normalise_command(left) != normalise_command(right)


def test_normalisation_keeps_heredoc_bodies_and_unparseable_text() -> None:
    assert normalise_command("cat <<EOF\n  a   b\nEOF") == "cat <<EOF\n  a   b\nEOF"
    assert normalise_command("  echo 'x  ") == "echo 'x"


def test_importing_tooldeck_safety_does_not_load_the_parser() -> None:
    code = "import sys, tooldeck, tooldeck.safety; print('tree_sitter' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _shell_check(args: list[str], cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*tooldeck_command(), "shell-check", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
    )


def test_the_command_reads_arguments_or_stdin_and_exits_0(tmp_path: Path) -> None:
    out = _shell_check(["--json", "rm -rf /", "git status"], tmp_path)
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert [(r["command"], r["verdict"], r["rule"]) for r in records] == [
        ("rm -rf /", "block", "delete-root"),
        ("git status", "safe", None),
    ]
    piped = _shell_check([], tmp_path, stdin="sudo reboot\n\necho '\x1b[31m'\n")
    assert piped.returncode == 0
    lines = piped.stdout.splitlines()
    assert lines[0].startswith("APPROVE") and "[power-state]" in lines[0]
    assert lines[1].startswith("SAFE") and "\x1b" not in piped.stdout and "\\x1b[31m" in lines[1]


def test_the_config_moves_rules_and_a_typo_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "tooldeck.yaml").write_text("shell: {block: [git_destruction], approve: [delete-root]}\n")
    out = _shell_check(["--json", "git reset --hard", "rm -rf /"], tmp_path)
    assert [json.loads(line)["verdict"] for line in out.stdout.splitlines()] == ["block", "approve"]
    (tmp_path / "tooldeck.yaml").write_text("shell: {block: [git-reset]}\n")
    bad = _shell_check(["ls"], tmp_path)
    assert bad.returncode == 2 and "shell.block[0]: unknown rule or category 'git-reset'" in bad.stderr
