"""Every code block of the docs site is checked: Python runs, YAML is a valid tooldeck config,
JSON parses, and every `tooldeck ...` command line is one the CLI accepts."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest
import yaml

from support.doc_blocks import Block, blocks, command_lines, run_python_snippets, write_files

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))


def page_blocks(page: str, *langs: str) -> list[Block]:
    return [b for b in blocks(DOCS / page) if b.lang in langs]


@pytest.mark.parametrize("page", [p for p in PAGES if page_blocks(p, "python")])
def test_python_blocks_run(page: str, tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a folder of their own, holding the page's files (titled blocks), as a reader's would."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    write_files(DOCS / page, tmp_path)
    untitled = [b for b in page_blocks(page, "python") if not b.title]
    assert run_python_snippets(DOCS / page) == len(untitled)


def env_names(text: str) -> set[str]:
    return set(re.findall(r"\$\{(\w+)", text))


@pytest.mark.parametrize("page", [p for p in PAGES if page_blocks(p, "yaml")])
def test_yaml_blocks_are_valid_configs(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each YAML block is a whole config or a part of one, and validates as it is shown (the
    variables it reads set to a placeholder, as its reader's environment would)."""
    from tooldeck import parse_config

    write_files(DOCS / page, tmp_path)
    for block in page_blocks(page, "yaml"):
        for name in env_names(block.body):
            monkeypatch.setenv(name, "placeholder-value")
        data = yaml.safe_load(block.body)
        assert isinstance(data, dict), f"{page}:{block.line}: not a mapping"
        parse_config(data, base_dir=str(tmp_path))  # raises ConfigError naming the key path


@pytest.mark.parametrize("page", [p for p in PAGES if page_blocks(p, "json")])
def test_json_blocks_parse(page: str) -> None:
    for block in page_blocks(page, "json"):
        json.loads(block.body)


def cli_problem(argv: list[str]) -> str | None:
    """Why the CLI would refuse these arguments (unknown command or option, a bad value), or None."""
    import argparse
    import importlib

    from tooldeck.cli.main import _WITH_ACTIONS, COMMANDS, _leading_options

    leading, rest = _leading_options(argv)
    if not rest or rest[0] not in COMMANDS:
        return f"unknown command {rest[:1]}"
    name, rest = rest[0], rest[1:]
    if name in _WITH_ACTIONS:
        between, rest = _leading_options(rest)
        leading += between
    parser = argparse.ArgumentParser(prog=f"tooldeck {name}", exit_on_error=False)
    importlib.import_module(COMMANDS[name][0]).configure(parser)
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            parser.parse_args(rest + leading)
    except (argparse.ArgumentError, SystemExit) as exc:
        return f"{exc} {err.getvalue()}".strip()
    return None


SHELL_PAGES = [p for p in PAGES if page_blocks(p, "bash", "console")]


@pytest.mark.parametrize("page", SHELL_PAGES)
def test_command_lines_are_ones_the_cli_accepts(page: str) -> None:
    refused = []
    for block in page_blocks(page, "bash", "console"):
        for argv in command_lines(block):
            if argv[0] != "tooldeck":
                continue
            if problem := cli_problem(argv[1:]):
                refused.append(f"{page}:{block.line}: {' '.join(argv)}: {problem}")
    assert refused == []


def test_the_command_line_check_catches_an_option_that_does_not_exist() -> None:
    block = Block("bash", None, "tooldeck explain --colour word_count\ntooldeck tools --json\n", "", 1)
    problems = [cli_problem(argv[1:]) for argv in command_lines(block)]
    assert problems[0] and "--colour" in problems[0] and problems[1] is None


def test_every_block_is_of_a_language_these_tests_check() -> None:
    """A block of another language (or none) would be shown to readers unchecked."""
    unchecked = [
        f"{page}:{b.line}: {b.lang or 'no language'}"
        for page in PAGES
        for b in blocks(DOCS / page)
        if b.lang not in ("python", "yaml", "json", "bash", "console")
    ]
    assert unchecked == []
