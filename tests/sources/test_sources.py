"""R4: package discovery with reported skips, entry-point plugins, config `use:` entries, priority."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from tooldeck import parse_config
from tooldeck._core.sources.discovery import discover_package
from tooldeck._core.sources.entry_points import load_plugins
from tooldeck._deck import Deck
from tooldeck.errors import ConfigError


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")


@pytest.fixture
def pkg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A throw-away package `tdpkg_<n>` with tool modules, a plain module and a broken one."""
    name = f"tdpkg_{abs(hash(tmp_path)) % 10**8}"
    root = tmp_path / name
    write(root / "__init__.py", "")
    write(
        root / "good.py",
        """
        from tooldeck import tool

        @tool(toolset="good")
        def shout(text: str) -> str:
            '''Upper-case a text.'''
            return text.upper()
    """,
    )
    write(root / "plain.py", "raise RuntimeError('must never be imported')\n")
    write(root / "_private.py", "from tooldeck import tool\n")
    write(
        root / "broken.py",
        "from tooldeck import tool\nimport td_missing_dependency\n\n@tool\ndef f() -> None: ...\n",
    )
    write(root / "sub" / "__init__.py", "")
    write(
        root / "sub" / "more.py",
        """
        from tooldeck import Tool
        EXTRA = Tool(name="extra", description="Extra.", parameters={}, toolset="more")
    """,
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def test_discovery_reports_every_skip_and_failure(pkg: str) -> None:
    tools, notes = discover_package(pkg, source="user")
    assert sorted(t.name for t in tools) == ["extra", "shout"]
    assert all(t.source == "user" for t in tools)
    shout = next(t for t in tools if t.name == "shout")
    assert shout.owner.endswith(".good:shout")
    text = "\n".join(str(n) for n in notes)
    assert f"skipped {pkg}.plain: no tool definitions" in text  # pre-check, never imported
    assert f"skipped {pkg}._private: private module" in text
    assert f"cannot import module '{pkg}.broken': ModuleNotFoundError" in text
    assert f"{pkg}.plain" not in sys.modules


def test_entry_point_plugins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(
        tmp_path / "tdplug" / "__init__.py",
        """
        from tooldeck import Tool, tool

        @tool(toolset="plug")
        def ping() -> str:
            '''Ping.'''
            return "pong"

        def factory():
            return [Tool(name="made", description="Made.", parameters={}, toolset="plug")]

        NOT_A_TOOL = 42
    """,
    )
    dist = tmp_path / "tdplug-0.1.dist-info"
    write(dist / "METADATA", "Metadata-Version: 2.1\nName: tdplug\nVersion: 0.1\n")
    write(
        dist / "entry_points.txt",
        "[tooldeck.tools]\nping = tdplug:ping\nmade = tdplug:factory\n"
        "bad = tdplug:NOT_A_TOOL\nmissing = tdplug_nope:x\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    tools, notes = load_plugins()
    assert sorted(t.name for t in tools) == ["made", "ping"] and all(t.source == "plugin" for t in tools)
    text = "\n".join(str(n) for n in notes)
    assert "plugin bad (tdplug:NOT_A_TOOL) is a int, not a tool" in text
    assert (
        "plugin missing (tdplug_nope:x) failed to load: cannot import module 'tdplug_nope': ModuleNotFoundError"
        in text
    )
    tools, notes = load_plugins(disabled=frozenset({"ping", "bad", "missing"}))
    assert [t.name for t in tools] == ["made"]


def test_config_use_entries_options_and_name_mismatch(pkg: str) -> None:
    cfg = parse_config(
        {
            "tools": [
                {"name": "shout", "use": f"{pkg}.good:shout", "group": "text", "timeout": 3},
                {"name": "yell", "use": f"{pkg}.sub.more:EXTRA"},
            ]
        }
    )
    deck = Deck(cfg, builtins=False)
    shout = deck.registry.get("shout")
    assert shout is not None and shout.source == "config" and shout.group == "text" and shout.timeout == 3
    assert [d.path for d in deck.diagnostics()] == ["tools[1].name"]
    assert "'yell' differs from the tool's own name 'extra'" in deck.diagnostics()[0].message


@pytest.mark.parametrize(
    ("use", "message"),
    [
        ("td_no_module:x", r"tools\[0\]\.use: cannot import module 'td_no_module'"),
        ("json:nope", r"tools\[0\]\.use: module 'json' has no attribute 'nope'"),
        ("json:__name__", r"tools\[0\]\.use: json:__name__ is a str, not a tool"),
    ],
)
def test_bad_use_entries_name_the_entry(use: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Deck(parse_config({"tools": [{"use": use}]}), builtins=False)


def test_config_beats_discovered_and_the_loser_is_reported(pkg: str) -> None:
    cfg = parse_config({"discover": [pkg], "tools": [{"use": f"{pkg}.good:shout"}]})
    lo = Deck(cfg, builtins=False).loadout()
    fates = [(f.name, f.tool.source, f.status, f.gate) for f in lo.fates() if f.name == "shout"]
    assert fates == [("shout", "config", "exposed", None), ("shout", "user", "hidden", "dedup")]


def test_same_source_conflict_is_a_config_error(pkg: str) -> None:
    cfg = parse_config({"tools": [{"use": f"{pkg}.good:shout"}, {"use": f"{pkg}.good:shout", "timeout": 2}]})
    with pytest.raises(
        ConfigError,
        match=r"claimed twice by config tools: by config tools\[0\].* and by config tools\[1\].*rename one",
    ):
        Deck(cfg, builtins=False)


def test_entry_point_scan_agrees_with_importlib_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from importlib import metadata

    from tooldeck._core.sources.entry_points import entry_points

    for i, group in enumerate(["tooldeck.tools", "console_scripts"]):
        dist = tmp_path / f"td_scan{i}-1.0.dist-info"
        write(dist / "METADATA", f"Metadata-Version: 2.1\nName: td-scan{i}\nVersion: 1.0\n")
        write(dist / "entry_points.txt", f"[{group}]\nthing{i} = td_scan{i}.mod:attr [extra]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for group in ("tooldeck.tools", "console_scripts"):
        ours = sorted((e.name, e.value) for e in entry_points(group))
        theirs = sorted((e.name, e.value.split("[")[0].strip()) for e in metadata.entry_points(group=group))
        assert ours == theirs
