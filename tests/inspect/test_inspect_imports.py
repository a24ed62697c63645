"""The web stack (Starlette, uvicorn) is imported only when `tooldeck inspect` runs: not by
`import tooldeck`, not by `tooldeck --help`, not by the commands whose records it shares."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .inspector import write_workspace

WEB = ("starlette", "uvicorn", "playwright")


def web_modules(args: list[str], cwd: Path) -> tuple[list[str], str]:
    """The web modules `python -X importtime ARGS` imported, and its stdout."""
    out = subprocess.run(
        [sys.executable, "-X", "importtime", *args], cwd=cwd, capture_output=True, text=True, timeout=90
    )
    imported = [
        ln.rsplit("|", 1)[-1].strip() for ln in out.stderr.splitlines() if ln.startswith("import time:")
    ]
    assert "tooldeck" in imported, out.stderr[-2000:]
    return [m for m in imported if m.split(".")[0] in WEB], out.stdout


def test_import_tooldeck_and_the_inspect_package_import_no_web_stack(tmp_path: Path) -> None:
    code = "import tooldeck, tooldeck.inspect, tooldeck.inspect.records; print(tooldeck.inspect.__all__)"
    modules, stdout = web_modules(["-c", code], tmp_path)
    assert "InspectorApi" in stdout
    assert modules == []


def test_cli_help_lists_inspect_and_imports_no_web_stack(tmp_path: Path) -> None:
    modules, stdout = web_modules(["-m", "tooldeck.cli.main", "--help"], tmp_path)
    assert "inspect" in stdout
    assert modules == []


def test_the_commands_sharing_its_records_import_no_web_stack(tmp_path: Path) -> None:
    config = write_workspace(tmp_path)
    for command in (["explain", "--json"], ["call", "echo", "--args", '{"text": "hi"}', "--json"]):
        modules, stdout = web_modules(
            ["-m", "tooldeck.cli.main", *command, "--config", str(config)], tmp_path
        )
        assert stdout.strip().startswith(("[", "{")), command
        assert modules == [], command
