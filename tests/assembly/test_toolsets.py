"""T1/T2: includes, cycles and unknown names are reported, never ignored."""

from __future__ import annotations

from tooldeck._core.toolsets import Toolset, ToolsetIndex

from .helpers import make

TOOLS = [make("a1", "alpha"), make("a2", "alpha"), make("b1", "beta"), make("g1", "gamma")]


def test_includes_resolve_recursively_with_the_path() -> None:
    index = ToolsetIndex(
        TOOLS,
        {
            "combo": Toolset("combo", includes=("alpha", "inner")),
            "inner": Toolset("inner", ("g1",), ("beta",)),
        },
    )
    res = index.resolve(["combo"], where="platform_toolsets.cli")
    assert set(res.tools) == {"a1", "a2", "b1", "g1"}
    assert res.tools["b1"] == "combo → inner → beta"
    assert not res.diagnostics


def test_cycles_are_reported_with_the_cycle() -> None:
    index = ToolsetIndex(
        TOOLS, {"x": Toolset("x", includes=("y",)), "y": Toolset("y", includes=("x", "alpha"))}
    )
    res = index.resolve(["x"], where="platform_toolsets.cli")
    assert set(res.tools) == {"a1", "a2"}
    assert [d.message for d in res.diagnostics] == ["toolset include cycle: x -> y -> x"]
    assert res.diagnostics[0].path == "toolsets.y.includes[0]"


def test_unknown_names_are_reported_with_a_suggestion() -> None:
    res = ToolsetIndex(TOOLS).resolve(["alpha", "betta"], where="disabled_toolsets")
    (diag,) = res.diagnostics
    assert diag.path == "disabled_toolsets[1]"
    assert "unknown toolset 'betta'" in diag.message and "did you mean 'beta'" in diag.message
