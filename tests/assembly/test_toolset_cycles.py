"""T1: an include cycle in a user toolset is reported whether or not a platform selects it -
a warning, an error under `strict: true` - and a cycle met both ways is reported once."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.clirun import tooldeck
from tooldeck.errors import ToolsetError

from .helpers import assembler, make

TOOLS = [make("a", "alpha"), make("b", "beta")]


def cycle_warnings(**config: object) -> list[tuple[str | None, str]]:
    lo = assembler(TOOLS, **config).assemble()
    return [(d.path, d.message) for d in lo.diagnostics if "cycle" in d.message]


def test_a_self_include_no_platform_selects_is_a_warning() -> None:
    found = cycle_warnings(toolsets={"x": {"includes": ["x"]}}, platform_toolsets={"cli": ["alpha"]})
    assert found == [("toolsets.x.includes[0]", "toolset include cycle: x -> x")]
    with pytest.raises(ToolsetError, match=r"toolsets\.x\.includes\[0\].*x -> x.*strict: true"):
        assembler(
            TOOLS, strict=True, toolsets={"x": {"includes": ["x"]}}, platform_toolsets={"cli": ["alpha"]}
        ).assemble()


def test_a_cycle_is_reported_once_however_it_is_reached() -> None:
    toolsets = {"x": {"includes": ["y"]}, "y": {"includes": ["alpha", "x"]}}
    expected = [("toolsets.y.includes[1]", "toolset include cycle: x -> y -> x")]
    assert cycle_warnings(toolsets=toolsets) == expected  # no platform: nothing selects them
    assert cycle_warnings(toolsets=toolsets, platform_toolsets={"cli": ["y"]}) == expected
    assert cycle_warnings(toolsets=toolsets, platform_toolsets={"cli": ["x", "y"]}) == expected


def test_a_toolset_without_a_cycle_is_not_flagged() -> None:
    toolsets = {"x": {"includes": ["y", "alpha"]}, "y": {"includes": ["beta"]}, "z": {"includes": ["y"]}}
    assert cycle_warnings(toolsets=toolsets) == []


def test_tooldeck_explain_reports_an_unselected_cycle(tmp_path: Path) -> None:
    cfg = tmp_path / "tooldeck.yaml"
    cfg.write_text("toolsets: {x: {includes: [x]}}\nplatform_toolsets: {cli: [file]}\n", encoding="utf-8")
    proc = tooldeck("explain", "read_file", "--config", str(cfg))
    assert proc.returncode == 0, proc.stderr
    assert "toolsets.x.includes[0]: toolset include cycle: x -> x" in proc.stdout
    cfg.write_text(cfg.read_text() + "strict: true\n", encoding="utf-8")
    strict = tooldeck("explain", "read_file", "--config", str(cfg))
    assert strict.returncode == 2 and "x -> x" in strict.stderr and "strict" in strict.stderr
