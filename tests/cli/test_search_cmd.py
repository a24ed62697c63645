"""`tooldeck search`: over a catalog file (names verbatim), a queries file (one JSON line per
query), the configured deferred catalog, and exit 2 for every misuse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .clirun import tooldeck_here

CATALOG = [
    {
        "name": "weather.forecast",
        "description": "Weather forecast for a city.",
        "parameters": {"type": "dict"},
    },
    {
        "name": "Send Slack Message!",  # breaks tooldeck's naming rule: returned verbatim all the same
        "description": "Post a message to a channel.",
        "parameters": {"type": "object", "properties": {"channel": {"type": "string"}}},
    },
    {"name": "createGithubIssue", "description": "Open an issue.", "inputSchema": {"type": "object"}},
]


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(CATALOG), encoding="utf-8")
    return path


def test_a_catalog_file_is_searched_and_names_come_back_verbatim(catalog: Path, tmp_path: Path) -> None:
    out = tooldeck_here(
        "search", "--catalog", str(catalog), "post to a slack channel", "--json", cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    hits = json.loads(out.stdout)
    assert hits[0]["name"] == "Send Slack Message!" and set(hits[0]) == {"name", "score"}
    assert hits[0]["score"] > 0
    text = tooldeck_here("search", "--catalog", str(catalog), "github issue", "-k", "1", cwd=tmp_path)
    assert text.returncode == 0 and text.stdout.split() == [text.stdout.split()[0], "createGithubIssue"]
    picked = tooldeck_here(
        "search", "--catalog", str(catalog), "select:weather.forecast,nope", "--json", cwd=tmp_path
    )
    assert [h["name"] for h in json.loads(picked.stdout)] == ["weather.forecast"]


def test_a_queries_file_gives_one_json_line_per_query(catalog: Path, tmp_path: Path) -> None:
    queries = tmp_path / "q.jsonl"
    lines = [{"id": "q1", "query": "forecast in Paris"}, {"id": 2, "query": "+slack message"}]
    queries.write_text("\n".join(json.dumps(q) for q in lines) + "\n\n", encoding="utf-8")
    out = tooldeck_here(
        "search", "--catalog", str(catalog), "--queries", str(queries), "--limit", "2", cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert rows == [
        {"id": "q1", "results": ["weather.forecast"]},
        {"id": 2, "results": ["Send Slack Message!"]},
    ]


def searching_config(folder: Path, defer: str) -> Path:
    """A config in `folder` with tool search on and the toolsets `defer` (YAML) deferred."""
    config = folder / "tooldeck.yaml"
    config.write_text(
        f"home: {folder / 'home'}\nsandbox: {{workspace: {folder}}}\n"
        f"tool_search: {{enabled: true, defer: {defer}}}\n",
        encoding="utf-8",
    )
    return config


def test_the_configured_deferred_catalog_is_searched(tmp_path: Path) -> None:
    config = searching_config(tmp_path, "[web, browser]")
    out = tooldeck_here(
        "search", "--config", str(config), "extract the text of a web page", "--json", cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    names = [h["name"] for h in json.loads(out.stdout)]
    assert names[0] == "web_extract" and all(n.startswith(("web_", "browser_")) for n in names)
    # A tool that is not deferred is not in the catalog.
    none = tooldeck_here("search", "--config", str(config), "select:read_file", "--json", cwd=tmp_path)
    assert none.returncode == 0 and json.loads(none.stdout) == []
    plain = tmp_path / "plain.yaml"
    plain.write_text(f"home: {tmp_path / 'home'}\n", encoding="utf-8")
    off = tooldeck_here("search", "--config", str(plain), "anything", cwd=tmp_path)
    assert off.returncode == 2 and "tool_search.enabled is false" in off.stderr and "--catalog" in off.stderr


def test_prepare_embeds_the_configured_deferred_catalog_under_the_home(tmp_path: Path) -> None:
    config = searching_config(tmp_path, "[web, browser]")
    out = tooldeck_here("search", "--config", str(config), "--prepare", "--ranker", "hybrid", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("prepared ") and "for the hybrid ranker" in out.stdout
    assert list((tmp_path / "home" / "search").glob("*.npz"))  # what tool_search reads in a run
    both = tooldeck_here("search", "--config", str(config), "--prepare", "web page", cwd=tmp_path)
    assert both.returncode == 2 and "--prepare" in both.stderr


def test_tool_search_enabled_with_nothing_deferred_is_an_empty_result(tmp_path: Path) -> None:
    config = searching_config(tmp_path, "[]")
    out = tooldeck_here("search", "--config", str(config), "read a file", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == []
    assert "nothing is deferred" in out.stderr and "tooldeck explain tool_search" in out.stderr
    text = tooldeck_here("search", "--config", str(config), "read a file", cwd=tmp_path)
    assert text.returncode == 0 and text.stdout.strip() == "no tools found for 'read a file'"
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"id": 1, "query": "read a file"}\n', encoding="utf-8")
    batch = tooldeck_here("search", "--config", str(config), "--queries", str(queries), cwd=tmp_path)
    assert batch.returncode == 0 and json.loads(batch.stdout) == {"id": 1, "results": []}


def test_tool_search_called_with_a_bad_limit_is_an_argument_error_naming_it(tmp_path: Path) -> None:
    config = searching_config(tmp_path, "[web]")
    for limit in ("0", "-1", "26"):
        args = '{"query": "page", "limit": ' + limit + "}"
        out = tooldeck_here(
            "call", "tool_search", "--args", args, "--json", "--config", str(config), cwd=tmp_path
        )
        assert out.returncode == 1, out.stderr
        error = json.loads(out.stdout)["error"]
        assert error["type"] == "invalid_arguments" and "field 'limit'" in error["message"], limit
    ok = tooldeck_here(
        "call",
        "tool_search",
        "--args",
        '{"query": "page", "limit": 1}',
        "--config",
        str(config),
        cwd=tmp_path,
    )
    assert ok.returncode == 0 and len(json.loads(ok.stdout)["loaded"]) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "either a QUERY or --queries"),
        (["x", "--queries", "q.jsonl"], "either a QUERY or --queries"),
        (["x", "--limit", "0"], "--limit must be a positive whole number"),
        (["x", "--limit", "201"], "--limit must be a positive whole number (at most 200), got 201"),
        (["x", "--ranker", "magic"], "--ranker must be one of bm25, semantic, hybrid, auto"),
        (["x", "--catalog", "missing.json"], "cannot read catalog"),
        (["x", "--catalog", "bad.json"], "not valid JSON"),
        (["x", "--catalog", "dupes.json"], "duplicate tool name 'a'"),
        (["--queries", "missing.jsonl", "--catalog", "tools.json"], "cannot read queries file missing.jsonl"),
    ],
)
def test_misuse_exits_2_with_the_reason(catalog: Path, tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "bad.json").write_text("[{", encoding="utf-8")
    (tmp_path / "dupes.json").write_text(json.dumps([{"name": "a"}, {"name": "a"}]), encoding="utf-8")
    needs_catalog = "--catalog" not in args and args
    full = ["search", *args, *(["--catalog", str(catalog)] if needs_catalog else [])]
    out = tooldeck_here(*full, cwd=tmp_path)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert message in out.stderr and "Traceback" not in out.stderr
