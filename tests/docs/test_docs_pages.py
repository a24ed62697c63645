"""What the pages must say stays said: every tool option is named in the tools guide, and every
page of docs/ is in the site's navigation."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def test_the_tool_options_paragraph_names_every_option() -> None:
    from tooldeck._core.tool import TOOL_OPTIONS

    text = (DOCS / "tools.md").read_text(encoding="utf-8")
    start = text.index("Options (both forms):")
    paragraph = text[start : text.index("\n\n", start)]
    named = set(re.findall(r"`([a-z_]+)`", paragraph))
    assert sorted(TOOL_OPTIONS - named) == []


def nav_pages(entries: list[object]) -> list[str]:
    pages: list[str] = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages += nav_pages(value) if isinstance(value, list) else [str(value)]
    return pages


def test_every_page_is_in_the_navigation_once() -> None:
    nav = nav_pages(yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"])
    assert len(nav) == len(set(nav))
    assert sorted(nav) == sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
