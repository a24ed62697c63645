"""`tooldeck search --queries`: every printed line is valid JSON with a real id; bad lines are
named by number and skipped while the others run (exit 1); `-` reads stdin."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from .clirun import BIN, tooldeck

CATALOG = [
    {"name": "get_weather", "description": "Weather forecast for a city."},
    {"name": "send_mail", "description": "Send an email message."},
]

LINES = [
    '{"id": NaN, "query": "weather"}',  # 1: would print {"id": NaN}, which is not JSON
    '{"query": "weather"}',  # 2: no id, would print "id": null
    '{"id": "w", "query": "weather"}',  # 3: fine
    "",  # 4: blank, ignored
    '{"id": Infinity, "query": "mail"}',  # 5
    '{"id": 1.5, "query": "mail"}',  # 6
    '{"id": "w", "query": "mail"}',  # 7: repeats line 3's id
    '{"id": 7, "query": "send an email"}',  # 8: fine
    "{oops",  # 9
]


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(CATALOG), encoding="utf-8")
    return path


def strict_json(line: str) -> object:
    def refuse(constant: str) -> object:
        raise ValueError(f"{constant} is not JSON")

    return json.loads(line, parse_constant=refuse)


def test_bad_lines_are_named_and_skipped_and_every_printed_line_is_json(
    catalog: Path, tmp_path: Path
) -> None:
    queries = tmp_path / "q.jsonl"
    queries.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    out = tooldeck("search", "--catalog", str(catalog), "--queries", str(queries), "-k", "1", cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    rows = [strict_json(line) for line in out.stdout.splitlines()]
    assert rows == [{"id": "w", "results": ["get_weather"]}, {"id": 7, "results": ["send_mail"]}]
    prefix = f"tooldeck: {queries}:"
    errors = [e.removeprefix(prefix) for e in out.stderr.splitlines() if e.startswith(prefix)]
    assert [e.split(":")[0] for e in errors] == ["1", "2", "5", "6", "7", "9"]
    assert len(errors) == len(out.stderr.splitlines()) and all(e.endswith("; skipped") for e in errors)
    assert "got NaN" in errors[0] and 'no "id"' in errors[1] and "got Infinity" in errors[2]
    assert "got 1.5" in errors[3] and "duplicate id 'w' (first on line 3)" in errors[4]
    assert "not valid JSON" in errors[5]


def test_queries_come_from_stdin_with_a_dash_and_a_bom_is_allowed(catalog: Path, tmp_path: Path) -> None:
    text = '\ufeff{"id": "a", "query": "weather"}\n{"id": 2, "query": "email"}\n'
    proc = subprocess.run(
        [str(BIN), "search", "--catalog", str(catalog), "--queries", "-", "-k", "1"],
        input=text.encode("utf-8"),
        capture_output=True,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    rows = [strict_json(line) for line in proc.stdout.decode().splitlines()]
    assert rows == [{"id": "a", "results": ["get_weather"]}, {"id": 2, "results": ["send_mail"]}]
    bad = subprocess.run(
        [str(BIN), "search", "--catalog", str(catalog), "--queries", "-"],
        input=b'{"query": "x"}\n',
        capture_output=True,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 1 and bad.stdout == b"" and b"stdin:1: the line has no" in bad.stderr
