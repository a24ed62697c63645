"""Catalogs: loading, verbatim names, duplicates, hashes, tooldeck Tools mapped onto entries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tooldeck._core.tool import Tool
from tooldeck.search.catalog import Catalog, CatalogEntry
from tooldeck.search.errors import CatalogError

from .conftest import TOOLS


def test_names_are_kept_exactly(small_catalog: Catalog) -> None:
    assert small_catalog.names[-1] == "search files"
    assert "HTTPRequest2JSON" in small_catalog
    assert small_catalog["math.factorial"].parameters == {"type": "dict"}


def test_mcp_input_schema_spelling_is_accepted() -> None:
    entry = CatalogEntry.from_mapping({"name": "t", "inputSchema": {"type": "object"}})
    assert entry.parameters == {"type": "object"}
    assert CatalogEntry.from_mapping({"name": "t", "description": None}).description == ""


def test_duplicates_and_bad_entries_are_errors() -> None:
    with pytest.raises(CatalogError, match="duplicate"):
        Catalog.from_json([{"name": "a"}, {"name": "a"}])
    with pytest.raises(CatalogError, match=r"tools\[1\]"):
        Catalog.from_json([{"name": "a"}, {"description": "no name"}])
    with pytest.raises(CatalogError, match="JSON list"):
        Catalog.from_json({"name": "a"})
    with pytest.raises(CatalogError, match="parameters"):
        Catalog.from_json([{"name": "a", "parameters": [1]}])


def test_load_reports_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="cannot read"):
        Catalog.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("[{", encoding="utf-8")
    with pytest.raises(CatalogError, match="not valid JSON"):
        Catalog.load(bad)


def test_content_hash_follows_content() -> None:
    a = Catalog.from_json(TOOLS)
    b = Catalog.from_json(json.loads(json.dumps(TOOLS)))
    assert a.content_hash == b.content_hash
    changed = [dict(TOOLS[0], description="Different."), *TOOLS[1:]]
    assert Catalog.from_json(changed).content_hash != a.content_hash
    assert Catalog.from_json(list(reversed(TOOLS))).content_hash != a.content_hash


def test_tooldeck_tools_map_onto_entries() -> None:
    tool = Tool(
        name="get_weather", description="Weather now.", parameters={"type": "object", "properties": {}}
    )
    catalog = Catalog.from_tools([tool], descriptions={"get_weather": "Weather now (rendered)."})
    assert catalog["get_weather"].description == "Weather now (rendered)."
    assert Catalog.from_tools([tool])["get_weather"].parameters == {"type": "object", "properties": {}}


def test_lone_surrogates_in_descriptions_do_not_break_hashing() -> None:
    entry = CatalogEntry.from_mapping(json.loads('{"name": "x\\ud800", "description": "bad \\udfff text"}'))
    assert entry.name == "x\ud800"
    assert Catalog([entry]).content_hash
