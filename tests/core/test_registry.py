"""R3: conflicts name both owners, explicit replace, generation counter, thread-safe snapshots."""

from __future__ import annotations

import threading

import pytest

from tooldeck import Tool, ToolConflictError
from tooldeck._core.registry import Registry
from tooldeck._core.tool import SourceKind


def make(name: str, *, source: SourceKind = "user", owner: str = "", toolset: str = "t") -> Tool:
    return Tool(name=name, description="d", parameters={}, source=source, owner=owner, toolset=toolset)


def test_conflict_names_both_owners() -> None:
    reg = Registry([make("search", owner="pkg.a:search")])
    with pytest.raises(ToolConflictError) as info:
        reg.register(make("search", owner="pkg.b:search"))
    assert "pkg.a:search" in str(info.value) and "pkg.b:search" in str(info.value)
    kept = reg.get("search")
    assert kept is not None and kept.owner == "pkg.a:search"


def test_replace_is_explicit_and_bumps_generation() -> None:
    reg = Registry()
    g0 = reg.generation
    reg.register(make("x", owner="one"))
    g1 = reg.generation
    reg.replace(make("x", owner="two"))
    assert reg.generation > g1 > g0
    replaced = reg.get("x")
    assert replaced is not None and replaced.owner == "two"
    assert reg.deregister("x") and "x" not in reg
    assert reg.deregister("x") == []


def test_same_name_from_different_sources_is_kept_for_the_dedup_gate() -> None:
    reg = Registry([make("read_file", source="builtin"), make("read_file", source="mcp")])
    assert len(reg) == 2
    first = reg.get("read_file")
    assert first is not None and first.source == "builtin"


def test_sync_replaces_what_one_source_offered_in_one_generation() -> None:
    reg = Registry()
    reg.sync("srv", [make("a", source="mcp"), make("b", source="mcp")])
    g = reg.generation
    reg.sync("srv", [make("b", source="mcp"), make("c", source="mcp")])
    assert reg.generation == g + 1
    assert sorted(t.name for t in reg.snapshot()) == ["b", "c"]
    with pytest.raises(ToolConflictError, match="claimed twice by mcp tools"):
        reg.sync("other", [make("c", source="mcp")])
    assert sorted(t.name for t in reg.snapshot()) == ["b", "c"]  # nothing changed


def test_snapshots_are_immutable_and_consistent_under_concurrent_registration() -> None:
    reg = Registry()
    errors: list[str] = []
    stop = threading.Event()

    def writer(prefix: str) -> None:
        for i in range(300):
            reg.register(make(f"{prefix}_{i}"))

    def reader() -> None:
        while not stop.is_set():
            snap = reg.snapshot()
            names = [t.name for t in snap]
            if len(names) != len(set(names)) or len(snap) != len(names):
                errors.append("inconsistent snapshot")

    readers = [threading.Thread(target=reader) for _ in range(2)]
    writers = [threading.Thread(target=writer, args=(p,)) for p in ("a", "b", "c")]
    for t in readers + writers:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    for t in readers:
        t.join()
    assert not errors
    snap = reg.snapshot()
    assert len(snap) == 900 and snap.generation == reg.generation
    reg.register(make("late"))
    assert len(snap) == 900  # an old snapshot does not change
    assert reg.snapshot() is reg.snapshot()  # cached per generation
