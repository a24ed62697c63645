"""`tooldeck shell-check` given bytes that are not UTF-8: valid UTF-8 out, and a reason that names
the byte (not a NUL or a surrogate the user never typed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from support.cli import tooldeck_command
from tooldeck.safety import analyse_command

BIN = Path(sys.executable).with_name("tooldeck")


def shell_check(
    args: list[bytes], cwd: Path, stdin: bytes = b"", **env: str
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*map(os.fsencode, tooldeck_command()), b"shell-check", *args],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        timeout=60,
        check=False,
        env={**os.environ, **env},
    )


def test_reasons_name_what_is_wrong() -> None:
    invalid_byte = analyse_command("ls \udcff")  # how Python reads the byte 0xff from argv or stdin
    assert (invalid_byte.verdict, invalid_byte.rule) == ("approve", "unsupported-characters")
    assert "not valid UTF-8" in invalid_byte.reason and "0xff" in invalid_byte.reason
    assert "surrogate" not in invalid_byte.reason and "NUL" not in invalid_byte.reason
    nul = analyse_command("ls\x00-la")
    assert "NUL" in nul.reason and "UTF-8" not in nul.reason
    surrogate = analyse_command("ls \ud800")
    assert "unpaired surrogate (U+D800)" in surrogate.reason and "NUL" not in surrogate.reason


def test_json_lines_are_valid_utf8_and_read_back_as_the_argument(tmp_path: Path) -> None:
    out = shell_check([b"--json", b"ls \xff", b"git status"], tmp_path)
    assert out.returncode == 0, out.stderr
    text = out.stdout.decode("utf-8")  # strict: raises on the raw byte the command used to write
    records = [json.loads(line) for line in text.splitlines()]
    assert records[0]["command"] == os.fsdecode(b"ls \xff") == "ls \udcff"
    assert "0xff" in records[0]["reason"] and "surrogate" not in records[0]["reason"]
    assert records[1] == {
        "command": "git status",
        "verdict": "safe",
        "rule": None,
        "reason": "no rule matched",
    }


def test_stdin_with_a_bad_byte_is_read_in_any_locale_and_shown_safely(tmp_path: Path) -> None:
    # PYTHONIOENCODING makes stdin strict, as under a UTF-8 locale outside Python's UTF-8 mode.
    strict = {"PYTHONIOENCODING": "utf-8:strict"}
    piped = shell_check([b"--json"], tmp_path, stdin=b"ls \xff\nls\n", **strict)
    assert piped.returncode == 0, piped.stderr
    first, second = (json.loads(line) for line in piped.stdout.decode("utf-8").splitlines())
    assert first["rule"] == "unsupported-characters" and "0xff" in first["reason"]
    assert second["verdict"] == "safe"
    readable = shell_check([], tmp_path, stdin=b"ls \xff\n", **strict)
    assert readable.returncode == 0, readable.stderr
    line = readable.stdout.decode("utf-8")
    assert line.startswith("APPROVE") and "not valid UTF-8" in line
