"""Incremental updates give exactly what a rebuild gives; readers are safe during updates."""

from __future__ import annotations

import random
import threading
from typing import Any

import numpy as np

from tooldeck.search.catalog import Catalog, CatalogEntry
from tooldeck.search.engine import ToolSearch

from .conftest import TOOLS, assert_same_hits

QUERIES = [
    "weather in paris",
    "send a slack message",
    "github issue",
    "factorial of 5",
    "movies comedy",
    "json",
]


def _extra(i: int) -> dict[str, Any]:
    return {
        "name": f"mcp__srv__tool_{i}",
        "description": f"Server tool number {i}: weather, messages and issues variant {i % 3}.",
        "parameters": {
            "type": "object",
            "properties": {f"arg{i}": {"type": "string", "description": "city"}},
        },
    }


def _same_results(a: ToolSearch, b: ToolSearch) -> None:
    for q in QUERIES:
        na, sa, _ = a.scores(q)
        nb, sb, _ = b.scores(q)
        assert na == nb
        # Equal up to rounding: an update adds the same terms in another order than a rebuild.
        assert np.allclose(sa, sb, rtol=1e-9, atol=1e-12), q
        assert_same_hits(a.search(q, limit=10), b.search(q, limit=10))


def test_add_and_remove_equal_a_rebuild() -> None:
    index = ToolSearch(Catalog.from_json(TOOLS))
    index.search("warm the index up")
    index.add(CatalogEntry.from_mapping(_extra(i)) for i in range(5))
    index.remove(["translate_text", "mcp__srv__tool_2", "not-there"])
    index.add([CatalogEntry.from_mapping(dict(_extra(1), description="Replaced text about stock prices."))])
    rebuilt = ToolSearch(index.catalog)
    assert index.catalog.names == rebuilt.catalog.names
    assert "translate_text" not in index.catalog
    assert index.catalog["mcp__srv__tool_1"].description.startswith("Replaced")
    _same_results(index, rebuilt)


def test_update_to_another_catalog_equals_a_rebuild() -> None:
    rng = random.Random(3)
    base = [*TOOLS, *(_extra(i) for i in range(20))]
    index = ToolSearch(Catalog.from_json(base))
    for _ in range(5):
        index.search("weather")
        changed = [t for t in base if rng.random() > 0.3] + [_extra(100 + rng.randrange(50))]
        changed = list({t["name"]: t for t in changed}.values())
        rng.shuffle(changed)
        index.update(Catalog.from_json(changed))
        _same_results(index, ToolSearch(Catalog.from_json(changed)))


def test_searches_from_many_threads_during_updates() -> None:
    catalogs = [Catalog.from_json([*TOOLS, *(_extra(i) for i in range(n))]) for n in (0, 10, 30)]
    index = ToolSearch(catalogs[0])
    errors: list[BaseException] = []
    stop = threading.Event()

    def reader() -> None:
        try:
            while not stop.is_set():
                for q in QUERIES:
                    names = index.search(q, limit=5).names
                    assert len(names) == len(set(names))
        except BaseException as exc:  # reported by the main thread's assert
            errors.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for t in threads:
        t.start()
    for round_ in range(30):
        index.update(catalogs[round_ % 3])
    stop.set()
    for t in threads:
        t.join(timeout=30)
    assert not errors, errors[0]
    assert index.search("weather", limit=3).names[0] == "get_current_weather"
