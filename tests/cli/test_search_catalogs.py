"""`tooldeck search --catalog` reads what `tooldeck tools --json` prints in every dialect, names
bad fields, and never prints a tool name's escape sequences raw to a terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .clirun import tooldeck_here


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "tooldeck.yaml"
    path.write_text(f"home: {tmp_path / 'home'}\nsandbox: {{workspace: {tmp_path}}}\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("dialect", ["openai", "responses", "anthropic", "gemini"])
def test_the_output_of_tools_json_is_a_catalog_in_every_dialect(
    config: Path, tmp_path: Path, dialect: str
) -> None:
    listed = tooldeck_here("tools", "--config", str(config), "--json", "--dialect", dialect, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    catalog = tmp_path / f"{dialect}.json"
    catalog.write_text(listed.stdout, encoding="utf-8")
    out = tooldeck_here(
        "search", "replace text in a file", "--catalog", str(catalog), "--json", "-k", "3", cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    names = [hit["name"] for hit in json.loads(out.stdout)]
    assert "patch" in names and len(names) == 3


def test_a_description_that_is_not_text_is_named(tmp_path: Path) -> None:
    catalog = tmp_path / "tools.json"
    catalog.write_text(json.dumps([{"name": "a"}, {"name": "b", "description": 5}]), encoding="utf-8")
    out = tooldeck_here("search", "x", "--catalog", str(catalog), cwd=tmp_path)
    assert out.returncode == 2 and "tools[1].description ('b') must be a string" in out.stderr


def test_names_with_escape_sequences_are_shown_escaped_and_kept_exact_in_json(tmp_path: Path) -> None:
    evil = "weather\x1b]0;owned\x07\x1b[31m"
    catalog = tmp_path / "tools.json"
    catalog.write_text(json.dumps([{"name": evil, "description": "Weather forecast."}]), encoding="utf-8")
    text = tooldeck_here("search", "weather", "--catalog", str(catalog), cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    assert "\x1b" not in text.stdout and "\x07" not in text.stdout
    assert "weather\\x1b]0;owned\\x07\\x1b[31m" in text.stdout
    missing = tooldeck_here("search", f"select:{evil}x", "--catalog", str(catalog), cwd=tmp_path)
    assert "\x1b" not in missing.stdout and "not in the catalog: weather" in missing.stdout
    machine = tooldeck_here("search", "weather", "--catalog", str(catalog), "--json", cwd=tmp_path)
    assert [hit["name"] for hit in json.loads(machine.stdout)] == [evil]
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"id": 1, "query": "weather"}) + "\n", encoding="utf-8")
    lines = tooldeck_here("search", "--queries", str(queries), "--catalog", str(catalog), cwd=tmp_path)
    assert json.loads(lines.stdout) == {"id": 1, "results": [evil]}
