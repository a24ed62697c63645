"""The README's Python snippets run, it opens with the two commands CI relies on, fits on a page,
and every link it has into the docs lands on a page."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from support.doc_blocks import blocks, run_python_snippets

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_snippets_run_each_on_its_own_or_after_those_it_names(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run_python_snippets(README) >= 1, "README has lost its example"


def test_readme_starts_with_the_two_commands_and_ci_runs_the_second() -> None:
    commands = [b.body.strip() for b in blocks(README) if b.lang == "bash"][:2]
    assert commands[0] == "bash scripts/start.sh"
    assert "scripts/setup.sh" in (README.parent / "scripts" / "start.sh").read_text(encoding="utf-8")
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert ci == commands[1]


def test_readme_fits_on_a_page_and_says_how_to_install() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    installs = [b.body.strip() for b in blocks(README) if "pip install" in b.body]
    assert shlex.split(installs[0]) == ["pip", "install", "tooldeck[all]"]


def test_every_link_of_the_readme_lands_on_a_file_and_its_heading() -> None:
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\((?!https?:)([^)#]+)(?:#([^)]+))?\)", text)
    assert len(links) >= 20, "the table of what is in the box links into the docs"
    for target, anchor in links:
        page = README.parent / target
        assert page.is_file(), target
        if anchor:
            headings = re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.M)
            slugs = {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-") for h in headings}
            assert anchor in slugs, f"{target}#{anchor}"
