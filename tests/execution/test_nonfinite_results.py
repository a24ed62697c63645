"""Results holding NaN or infinite numbers are still valid JSON (those numbers as null) wherever
they are written: the text the model reads, `tooldeck call --json`, transcripts, batch lines."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from support.cli import tooldeck_command
from tooldeck import Deck, parse_config, tool
from tooldeck._utils.text import json_dumps, json_text
from tooldeck.batch.results import ItemResult, ResultWriter

BIN = Path(sys.executable).parent / "tooldeck"


def strict(text: str) -> Any:
    """json.loads refusing the NaN / Infinity spellings JSON does not have."""

    def refuse(constant: str) -> Any:
        raise AssertionError(f"{constant} is not JSON: {text!r}")

    return json.loads(text, parse_constant=refuse)


@tool(toolset="numbers")
def stats() -> dict[str, Any]:
    """Numbers no JSON can spell."""
    return {"v": float("nan"), "hi": math.inf, "series": [1.5, -math.inf, (2, float("nan"))], "ok": 0.5}


EXPECTED = {"v": None, "hi": None, "series": [1.5, None, [2, None]], "ok": 0.5}


def test_a_tool_result_with_nan_reads_as_json_with_nulls(tmp_path: Path) -> None:
    config = parse_config({"home": str(tmp_path / "home"), "plugins": {"enabled": False}})
    with Deck(config, tools=[stats]) as deck:
        result = deck.call_sync("stats")
    assert result.ok and strict(result.content) == EXPECTED


def test_tooldeck_call_json_prints_valid_json(tmp_path: Path) -> None:
    module = """
        import math
        from tooldeck import tool

        @tool(toolset="numbers")
        def stats() -> dict:
            '''Numbers no JSON can spell.'''
            return {"v": float("nan"), "hi": math.inf, "series": [1.5, -math.inf, (2, float("nan"))], "ok": 0.5}
    """
    (tmp_path / "td_nan_tools.py").write_text(textwrap.dedent(module), encoding="utf-8")
    cfg = tmp_path / "tooldeck.yaml"
    cfg.write_text(f'tools: [{{use: "td_nan_tools:stats"}}]\nhome: {tmp_path / "home"}\n', encoding="utf-8")
    proc = subprocess.run(
        [*tooldeck_command(), "call", "stats", "--json", "--config", str(cfg)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = strict(proc.stdout)
    assert out["ok"] is True and strict(out["content"]) == EXPECTED
    plain = subprocess.run(
        [*tooldeck_command(), "call", "stats", "--config", str(cfg)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert strict(plain.stdout) == EXPECTED


def test_transcripts_and_batch_lines_write_null(tmp_path: Path) -> None:
    # What `run --transcript`, `sessions show --json` and `call --json` print goes through json_text.
    assert strict(json_text({"usage": {"ratio": math.nan}, "keys": {math.inf: 1}})) == {
        "usage": {"ratio": None},
        "keys": {"Infinity": 1},
    }
    assert strict(json_dumps([-math.inf, "\ud800"])) == [None, "\ud800"]
    out = tmp_path / "results.jsonl"
    with ResultWriter(out) as writer:
        writer.write(ItemResult(id="a", status="ok", metadata={"score": math.nan}))
    [line] = out.read_text(encoding="utf-8").splitlines()
    assert strict(line)["metadata"] == {"score": None}


def test_a_cycle_is_still_refused_not_looped_over() -> None:
    loop: list[Any] = [math.nan]
    loop.append(loop)
    with pytest.raises(ValueError):
        json_dumps(loop)


def test_an_mcp_structured_result_with_nan_is_shown_as_valid_json() -> None:
    from mcp import types

    from tooldeck._core.sources.mcp.convert import result_text

    result = types.CallToolResult(
        content=[types.TextContent(type="text", text="measured")], structuredContent={"v": math.nan}
    )
    text = result_text(result, files=None, call_id="c1")
    assert strict(text.split("structured result:\n")[1]) == {"v": None}
