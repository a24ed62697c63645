"""How `tooldeck call` reads `--args`, and what every refused argument text says."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from support.cli import tooldeck_command
from tooldeck._core.execution.calls import parse_arguments
from tooldeck.errors import CallRejected

BIN = Path(sys.executable).parent / "tooldeck"

MODULE = """
    from tooldeck import tool

    @tool(toolset="demo")
    def echo(text: str) -> str:
        '''Echo a text back.'''
        return text
"""


@pytest.mark.parametrize(
    "raw",
    [
        '{"text": "a\x1bb"}',
        '{"text": "a\\qb"}',
        "[1, 2]",
        '"just text"',
        "5",
        '{"text": ',
        '{"text": NaN}',
        "[" * 100_000,
        '{"v": ' + "9" * 5000 + "}",
    ],
)
def test_every_refused_argument_text_says_the_call_was_not_run(raw: str) -> None:
    with pytest.raises(CallRejected) as caught:
        parse_arguments(raw, "echo")
    message = caught.value.error.message
    assert "the call was not run" in message.lower(), message
    assert " at at " not in message


def test_a_raw_control_character_is_named_with_its_escape() -> None:
    with pytest.raises(CallRejected) as caught:
        parse_arguments('{"text": "a\x1bb"}', "echo")
    message = caught.value.error.message
    assert "raw control character ('\\x1b') inside a string at line 1, column 12" in message
    assert "write it escaped (\\u001b)" in message


def call(tmp_path: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    (tmp_path / "td_args_tools.py").write_text(textwrap.dedent(MODULE), encoding="utf-8")
    cfg = tmp_path / "tooldeck.yaml"
    cfg.write_text(f'tools: [{{use: "td_args_tools:echo"}}]\nhome: {tmp_path / "home"}\n', encoding="utf-8")
    proc = subprocess.run(
        [*tooldeck_command(), "call", "echo", *args, "--config", str(cfg)],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode())


def test_the_command_line_messages(tmp_path: Path) -> None:
    esc = call(tmp_path, "--args", '{"text": "a\x1bb"}', "--json")
    assert esc.returncode == 1
    message = json.loads(esc.stdout)["error"]["message"]
    assert "raw control character" in message and "at at" not in message
    array = call(tmp_path, "--args", "[1,2]", "--json")
    assert array.returncode == 1 and "the call was not run" in json.loads(array.stdout)["error"]["message"]
    bare = call(tmp_path, "--args", "@")
    assert bare.returncode == 2 and "needs a file name after the @" in bare.stderr
    assert "Is a directory" not in bare.stderr


def test_a_bom_at_the_start_of_an_arguments_file_or_stdin_is_dropped(tmp_path: Path) -> None:
    args = tmp_path / "args.json"
    args.write_bytes(b'\xef\xbb\xbf{"text": "from a file"}')
    from_file = call(tmp_path, "--args", f"@{args}")
    assert (from_file.returncode, from_file.stdout) == (0, "from a file\n"), from_file.stderr
    from_stdin = call(tmp_path, "--args", "-", stdin='\ufeff{"text": "from stdin"}'.encode())
    assert (from_stdin.returncode, from_stdin.stdout) == (0, "from stdin\n"), from_stdin.stderr
    # A BOM anywhere else is part of the text, as any other character.
    inside = call(tmp_path, "--args", '{"text": "\ufeffkept"}', "--json")
    assert json.loads(inside.stdout)["content"] == "\ufeffkept"
