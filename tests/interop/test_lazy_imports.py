"""No agent framework is imported unless one of its tools is configured: not by `import tooldeck`,
`tooldeck --help`, `tools` and `call` on plain tools, nor a plain deck in code; a config with only
LangChain tools imports neither pydantic-ai nor the Agents SDK, and so on."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

FRAMEWORKS = ("langchain_core", "pydantic_ai", "agents")
BIN = Path(sys.executable).parent / "tooldeck"

PLAIN = """
from tooldeck import tool


@tool(toolset="mine")
def shout(text: str) -> str:
    "Upper-case a text."
    return text.upper()
"""

FOREIGN = {
    "langchain_core": 'from langchain_core.tools import tool\n\n@tool\ndef lc_echo(text: str) -> str:\n    "Echo."\n    return text\n',
    "pydantic_ai": 'from pydantic_ai import Tool\n\ndef pa_echo(text: str) -> str:\n    "Echo."\n    return text\n\npa_tool = Tool(pa_echo)\n',
    "agents": 'from agents import function_tool\n\n@function_tool\ndef oa_echo(text: str) -> str:\n    "Echo."\n    return text\n',
}
ATTRIBUTE = {"langchain_core": "lc_echo", "pydantic_ai": "pa_tool", "agents": "oa_echo"}
NAME = {"langchain_core": "lc_echo", "pydantic_ai": "pa_echo", "agents": "oa_echo"}


def frameworks_imported(args: list[str], cwd: Path) -> tuple[list[str], str]:
    """The frameworks `python -X importtime ARGS` imported (its stderr names every module as it is
    imported), and its stdout."""
    out = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "TOOLDECK_HOME": str(cwd / "home"), "HOME": str(cwd)},
    )
    imported = {
        ln.rsplit("|", 1)[-1].strip() for ln in out.stderr.splitlines() if ln.startswith("import time:")
    }
    assert "tooldeck" in imported, out.stderr[-2000:]
    return sorted(f for f in FRAMEWORKS if f in imported), out.stdout


def project(tmp_path: Path, uses: list[str]) -> Path:
    (tmp_path / "plain_tools.py").write_text(textwrap.dedent(PLAIN))
    for framework, text in FOREIGN.items():
        (tmp_path / f"{framework}_tools.py").write_text(text)
    entries = "".join(f'  - {{use: "{u}"}}\n' for u in ["plain_tools:shout", *uses])
    (tmp_path / "tooldeck.yaml").write_text(f"plugins: {{enabled: false}}\ntools:\n{entries}")
    return tmp_path


def test_import_tooldeck_and_its_interop_package_import_no_framework(tmp_path: Path) -> None:
    found, _ = frameworks_imported(["-c", "import tooldeck, tooldeck.interop, tooldeck.core"], tmp_path)
    assert found == []


def test_cli_help_imports_no_framework(tmp_path: Path) -> None:
    found, stdout = frameworks_imported([str(BIN), "--help"], tmp_path)
    assert "usage: tooldeck" in stdout and found == []


def test_tools_and_call_on_plain_tools_import_no_framework(tmp_path: Path) -> None:
    root = project(tmp_path, [])
    found, stdout = frameworks_imported([str(BIN), "tools", "--json"], root)
    assert '"shout"' in stdout and found == []
    found, stdout = frameworks_imported([str(BIN), "call", "shout", "--args", '{"text": "hi"}'], root)
    assert "HI" in stdout and found == []


def test_a_plain_deck_in_code_imports_no_framework(tmp_path: Path) -> None:
    (tmp_path / "plain_tools.py").write_text(textwrap.dedent(PLAIN))
    code = (
        "from tooldeck import Config, Deck; from plain_tools import shout; "
        "deck = Deck(Config(), tools=[shout]); print(deck.call_sync('shout', {'text': 'hi'}).content)"
    )
    found, stdout = frameworks_imported(["-c", code], tmp_path)
    assert stdout.strip() == "HI" and found == []


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_config_with_one_frameworks_tools_imports_that_framework_alone(
    tmp_path: Path, framework: str
) -> None:
    root = project(tmp_path, [f"{framework}_tools:{ATTRIBUTE[framework]}"])
    found, stdout = frameworks_imported([str(BIN), "call", NAME[framework], "--args", '{"text": "hi"}'], root)
    assert stdout.strip() == "hi"
    assert found == [framework]
