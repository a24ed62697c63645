"""The README's Python snippets run, and it opens with the two commands CI relies on."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_snippets_run() -> None:
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    assert blocks, "README has no python snippet"
    namespace: dict[str, object] = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)


def test_readme_starts_with_the_two_commands_and_ci_runs_the_second() -> None:
    text = README.read_text(encoding="utf-8")
    commands = re.findall(r"```bash\n(.*?)\n```", text, re.DOTALL)[:2]
    assert commands[0] == "bash scripts/start.sh"
    assert "scripts/setup.sh" in (README.parent / "scripts" / "start.sh").read_text(encoding="utf-8")
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert ci == commands[1]


def test_the_tool_options_paragraph_names_every_option() -> None:
    from tooldeck.tool import TOOL_OPTIONS

    text = README.read_text(encoding="utf-8")
    start = text.index("Options (both forms):")
    paragraph = text[start : text.index("\n\n", start)]
    named = set(re.findall(r"`([a-z_]+)`", paragraph))
    assert sorted(TOOL_OPTIONS - named) == []
