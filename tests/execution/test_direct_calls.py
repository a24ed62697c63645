"""Deferred tools called directly by a person or program (`tooldeck call`, `deck.call`), while the
model still has to load them with `tool_search` first. Every other gate applies to direct calls."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from support.cli import tooldeck_command
from tooldeck import Deck
from tooldeck._core.execution.types import ToolCall

BIN = Path(sys.executable).parent / "tooldeck"

MODULE = """
    from tooldeck import tool

    @tool(toolset="later")
    def echo(text: str, times: int = 1) -> str:
        '''Echo a text back.'''
        return text * times

    @tool(toolset="later", requires_approval=True)
    def launch(target: str) -> str:
        '''Needs approval.'''
        return f"launched {target}"

    @tool(toolset="later", requires_env=["TD_DIRECT_MISSING_KEY"])
    def keyed() -> str:
        '''Needs a key nobody set.'''
        return "never"
"""


def setup(tmp_path: Path) -> Path:
    (tmp_path / "td_direct_tools.py").write_text(textwrap.dedent(MODULE), encoding="utf-8")
    cfg = tmp_path / "tooldeck.yaml"
    cfg.write_text(
        textwrap.dedent(
            f"""
            tools: [{{use: "td_direct_tools:echo"}}, {{use: "td_direct_tools:launch"}},
                    {{use: "td_direct_tools:keyed"}}]
            tool_search: {{enabled: true, defer: [later]}}
            home: {tmp_path / "home"}
            plugins: {{enabled: false}}
            """
        ),
        encoding="utf-8",
    )
    return cfg


def tooldeck(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*tooldeck_command(), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def test_tooldeck_call_runs_a_deferred_tool_directly(tmp_path: Path) -> None:
    cfg = setup(tmp_path)
    with Deck.load(cfg) as deck:
        assert "echo" in deck.loadout().deferred_names  # the premise: echo is deferred
    proc = tooldeck(
        "call", "echo", "--args", '{"text": "ab", "times": 2}', "--json", "--config", str(cfg), cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout) == {"ok": True, "content": "abab", "error": None, "meta": {}}


def test_a_direct_call_of_a_deferred_tool_still_passes_every_other_gate(tmp_path: Path) -> None:
    cfg = setup(tmp_path)

    def error_of(*args: str) -> dict[str, object]:
        proc = tooldeck("call", *args, "--json", "--config", str(cfg), cwd=tmp_path)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        error: dict[str, object] = json.loads(proc.stdout)["error"]
        return error

    invalid = error_of("echo", "--args", '{"times": 2}')
    assert invalid["type"] == "invalid_arguments" and "text" in str(invalid["message"])
    assert error_of("launch", "--args", '{"target": "moon"}')["type"] == "denied"  # nobody to approve
    unavailable = error_of("keyed")
    assert unavailable["type"] == "unavailable" and "TD_DIRECT_MISSING_KEY" in str(unavailable["message"])
    approved = tooldeck(
        "call", "launch", "--args", '{"target": "moon"}', "--yes", "--config", str(cfg), cwd=tmp_path
    )
    assert (approved.returncode, approved.stdout) == (0, "launched moon\n")


def test_deck_call_is_direct_and_the_models_executor_still_needs_tool_search(tmp_path: Path) -> None:
    cfg = setup(tmp_path)
    with Deck.load(cfg) as deck:
        assert deck.call_sync("echo", {"text": "x", "times": 3}).content == "xxx"
        assert deck.run(deck.call("echo", {"text": "y"})).content == "y"
        batch = deck.call_batch_sync(
            [ToolCall("a", "echo", {"text": "1"}), ToolCall("b", "echo", '{"text": "2"}')]
        )
        assert [r.content for r in batch] == ["1", "2"]
        refused = deck.call_sync("echo", {"times": 1})
        assert refused.error is not None and refused.error.type == "invalid_arguments"
        # The executor a model's calls go through (the agent's, a `deck.session(direct=False)`) is unchanged.
        [model_call] = (
            deck.session(direct=False).executor().execute_sync([ToolCall("m", "echo", {"text": "z"})])
        )
        assert model_call.error is not None and model_call.error.type == "not_promoted"
        assert "tool_search" in model_call.error.message
