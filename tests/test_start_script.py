"""The README's first command: the loadout without a model endpoint, an agent turn with one."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tooldeck.testing.scripted_server import ScriptedServer, Turn

REPO = Path(__file__).resolve().parents[1]
ENDPOINT_VARS = (
    "OPENAI_BASE_URL",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "BRAVE_API_KEY",
)


def start(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ENDPOINT_VARS}
    # Setup is what CI's own command runs first; here only the start-up logic is under test.
    return subprocess.run(
        ["bash", "scripts/start.sh"],
        cwd=REPO,
        env={**base, "TOOLDECK_SKIP_SETUP": "1", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_without_an_endpoint_it_explains_the_example_loadout(home: Path) -> None:
    proc = start({})
    assert proc.returncode == 0, proc.stderr
    assert "Why each tool is (not) visible" in proc.stdout and "host_shell" in proc.stdout
    assert "No model endpoint is set" in proc.stdout
    # The model of an agent run's view: the tools only an agent run offers are there.
    assert "agent_run" not in proc.stdout and "present_files" in proc.stdout
    # The built-in library, each hidden tool with what it misses.
    library = proc.stdout.split("The built-in web, browser, vision and skills tools")[1]
    for name in ("web_extract", "web_search", "browser_navigate", "vision_analyze", "skills_list"):
        assert name in library
    assert "BRAVE_API_KEY" in library and "supports_vision" in library


def test_with_an_endpoint_it_runs_an_agent_turn(scripted_server: ScriptedServer, home: Path) -> None:
    scripted_server.add(
        Turn(calls=[("word_count", {"text": "tools are only useful when the model can see them"})]),
        Turn(text="That sentence has 10 words."),
    )
    proc = start(
        {"OPENAI_BASE_URL": scripted_server.openai_url, "OPENAI_API_KEY": "test", "TOOLDECK_MODEL": "m"}
    )
    assert proc.returncode == 0, proc.stderr
    assert "That sentence has 10 words." in proc.stdout
    first, second = scripted_server.requests[:2]
    assert "word_count" in first.tool_names() and "run_command" not in first.tool_names()
    assert any('"words": 10' in content for _, content in second.tool_results())
