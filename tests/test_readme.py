"""The README's Python snippets run, and it opens with the two commands CI relies on."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


CONTINUES = re.compile(r'# Continues the snippets? under ((?:"[^"]+"[^"\n]*)+)')


def test_readme_python_snippets_run_each_on_its_own_or_after_those_it_names() -> None:
    """A reader may start at any section: each snippet runs in a namespace of its own, holding
    only what the snippets it says it continues (by their section's title) defined."""
    text = README.read_text(encoding="utf-8")
    sections = re.split(r"^## ", text, flags=re.MULTILINE)[1:]
    after: dict[str, dict[str, object]] = {}
    ran = 0
    for section in sections:
        title = section.split("\n", 1)[0].split(":")[0].strip()
        for block in re.findall(r"```python\n(.*?)```", section, re.DOTALL):
            namespace: dict[str, object] = {}
            first = block.split("\n", 1)[0]
            named = CONTINUES.match(first)
            for earlier in re.findall(r'"([^"]+)"', named.group(1)) if named else []:
                assert earlier in after, f"{title}: continues {earlier!r}, which has no snippet above"
                namespace.update(after[earlier])
            exec(compile(block, f"{README} ({title})", "exec"), namespace)
            after[title] = namespace
            ran += 1
    assert ran >= 5, "README has lost its python snippets"


def test_readme_starts_with_the_two_commands_and_ci_runs_the_second() -> None:
    text = README.read_text(encoding="utf-8")
    commands = re.findall(r"```bash\n(.*?)\n```", text, re.DOTALL)[:2]
    assert commands[0] == "bash scripts/start.sh"
    assert "scripts/setup.sh" in (README.parent / "scripts" / "start.sh").read_text(encoding="utf-8")
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert ci == commands[1]


def test_the_tool_options_paragraph_names_every_option() -> None:
    from tooldeck._core.tool import TOOL_OPTIONS

    text = README.read_text(encoding="utf-8")
    start = text.index("Options (both forms):")
    paragraph = text[start : text.index("\n\n", start)]
    named = set(re.findall(r"`([a-z_]+)`", paragraph))
    assert sorted(TOOL_OPTIONS - named) == []
