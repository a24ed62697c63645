"""`@tool(...)` options are typed: a misspelt one is a type error for mypy, and at run time an
error at definition that names it and the closest known option."""

from __future__ import annotations

import os
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from tooldeck import ToolDefinitionError, tool
from tooldeck._core.tool import TOOL_OPTIONS, ToolOptions


def test_the_typed_options_are_exactly_the_options_a_tool_takes() -> None:
    assert (
        set(typing.get_type_hints(ToolOptions, localns=vars(sys.modules["tooldeck._core.tool"])))
        == TOOL_OPTIONS
    )


def test_a_misspelt_option_fails_before_any_function_is_decorated() -> None:
    with pytest.raises(ToolDefinitionError) as raised:
        tool(tolset="web")  # type: ignore[call-arg]
    message = str(raised.value)
    assert "unknown option 'tolset' (did you mean 'toolset'?)" in message
    assert message.startswith("@tool: ")


def test_the_error_names_the_tool_and_every_unknown_option() -> None:
    with pytest.raises(ToolDefinitionError) as raised:
        tool(name="fetch", timout=3, colour="red")  # type: ignore[call-arg]
    message = str(raised.value)
    assert message.startswith(
        "@tool(name='fetch'): unknown option 'colour', 'timout' (did you mean 'timeout'?)"
    )


def test_known_options_still_build_the_tool() -> None:
    @tool(toolset="text", timeout=2.5, requires_env=["HOME"], read_only=True)
    def shout(text: str) -> str:
        """Upper-case a text."""
        return text.upper()

    assert (shout.toolset, shout.timeout, shout.requires_env, shout.read_only) == (
        "text",
        2.5,
        ("HOME",),
        True,
    )


def mypy_cache() -> Path:
    """mypy's cache for this test, kept with the package caches as scripts/test.sh keeps the
    project's: a cold check follows `tooldeck` into every module it imports (pydantic and the rest,
    ~15 s of CPU); a warm one rechecks only what changed (mypy compares each cached module's hash
    with its file, so a stale or another checkout's entry is checked again, never trusted)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "tooldeck-mypy-tests" / f"py{sys.version_info.major}.{sys.version_info.minor}"


def test_mypy_reports_a_misspelt_option_and_a_wrong_type(tmp_path: Path) -> None:
    program = tmp_path / "tools_with_typos.py"
    program.write_text(
        "from tooldeck import tool\n\n\n"
        '@tool(tolset="web")\n'
        "def a() -> str:\n    return ''\n\n\n"
        '@tool(timeout="soon")\n'
        "def b() -> str:\n    return ''\n\n\n"
        '@tool(toolset="web", timeout=3)\n'
        "def c() -> str:\n    return ''\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--follow-imports=silent",
            "--cache-dir",
            str(mypy_cache()),
            str(program),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    # (A decorator that fails to type-check also makes its function untyped: a second error.)
    calls = [line for line in done.stdout.splitlines() if "[call-overload]" in line]
    assert len(calls) == 2, done.stdout
    assert (
        'py:4: error: Unexpected keyword argument "tolset"' in calls[0]
        and 'did you mean "toolset"' in calls[0]
    )
    assert "py:9: error: No overload variant" in calls[1]
    assert ":14: " not in done.stdout  # the correct one passes
