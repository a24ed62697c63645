"""The helper behind `tooldeck shell-check`, command normalisation, and the cold import path."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

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
