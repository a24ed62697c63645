"""What `tools` and `explain` report besides the tools, through the real console script: every
diagnostic the API has, each under a heading that tells the truth about `strict: true`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from .clirun import tooldeck_here

# The command is missing: that is known at once, so the generous timeout is never waited out (a
# short one could pass before a loaded machine has even imported the MCP client).
DOWN = "mcp_servers: {a: {command: /nonexistent/mcp-server, connect_timeout: 60}}\n"
DOWN_NOTE = (
    "mcp_servers.a: MCP server 'a' (/nonexistent/mcp-server) is not available, its tools are unknown: "
    "command not found: /nonexistent/mcp-server"
)


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "tooldeck.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_server_that_fails_to_connect_is_a_warning_that_strict_leaves_alone(tmp_path: Path) -> None:
    config = _config(tmp_path, DOWN + "strict: true\n")
    tools = tooldeck_here("tools", "--config", str(config), "--json")
    assert tools.returncode == 0, tools.stderr
    assert f"tooldeck: warning: {DOWN_NOTE}" in tools.stderr.splitlines()
    assert "error:" not in tools.stderr  # nothing claims the command failed
    explain = tooldeck_here("explain", "--config", str(config))
    assert explain.returncode == 0, explain.stderr
    tail = explain.stdout[explain.stdout.rindex("└") :]
    assert "strict" not in tail  # the heading does not claim strict: true would fail on it
    assert f"Warnings:\n  • {DOWN_NOTE}" in tail


def test_config_mistakes_and_runtime_conditions_are_listed_apart(tmp_path: Path) -> None:
    config = _config(tmp_path, DOWN + "disabled_toolsets: [fiel]\n")
    explain = tooldeck_here("explain", "--config", str(config))
    assert explain.returncode == 0, explain.stderr
    tail = explain.stdout[explain.stdout.rindex("└") :]
    assert (
        "Config warnings (strict: true makes these errors):\n"
        "  • disabled_toolsets[0]: unknown toolset 'fiel'; did you mean 'file'?\n"
        f"Warnings:\n  • {DOWN_NOTE}\n"
    ) in tail
    # And it is true: under strict the config mistake fails the command, the server does not.
    config.write_text(DOWN + "disabled_toolsets: [fiel]\nstrict: true\n", encoding="utf-8")
    strict = tooldeck_here("explain", "--config", str(config), "--json")
    assert strict.returncode == 2 and "disabled_toolsets[0]: unknown toolset 'fiel'" in strict.stderr
    assert json.loads(tooldeck_here("tools", "--config", str(_config(tmp_path, DOWN)), "--json").stdout)


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tooldeck.yaml"
API_DIAGNOSTICS = """
import json, sys
from tooldeck import Deck
with Deck.load(sys.argv[1]) as deck:
    print(json.dumps([[d.level, str(d)] for d in deck.explain().diagnostics]))
"""


def _api_diagnostics(config: Path) -> list[list[str]]:
    proc = subprocess.run(
        [sys.executable, "-c", API_DIAGNOSTICS, str(config)], capture_output=True, text=True, check=True
    )
    found: list[list[str]] = json.loads(proc.stdout)
    return found


def test_explain_shows_every_diagnostic_the_api_reports() -> None:
    api = _api_diagnostics(EXAMPLE)
    skipped = "discover[0]: skipped demo_pkg.helpers: no tool definitions (no @tool, Tool( or __tools__ in its text)"
    assert ["info", skipped] in api  # the example's comment says so
    human = tooldeck_here("explain", "--config", str(EXAMPLE))
    assert human.returncode == 0, human.stderr
    tail = human.stdout[human.stdout.rindex("└") :]
    assert f"Notes:\n  • {skipped}\n" in tail
    for _, text in api:
        assert f"  • {text}\n" in tail
    # --json keeps stdout the array of fates; the diagnostics, notes included, are on stderr.
    machine = tooldeck_here("explain", "--config", str(EXAMPLE), "--json")
    assert machine.returncode == 0 and isinstance(json.loads(machine.stdout), list)
    assert sorted(machine.stderr.splitlines()) == sorted(f"tooldeck: {lvl}: {text}" for lvl, text in api)


def test_explain_json_without_a_match_is_an_empty_array_and_a_hint() -> None:
    proc = tooldeck_here("explain", "wordcount", "--config", str(EXAMPLE), "--json")
    assert proc.returncode == 1 and json.loads(proc.stdout) == []
    assert "tooldeck: no candidate tool named 'wordcount'; did you mean word_count?" in proc.stderr


def test_explain_by_a_config_name_points_at_the_name_the_model_sees() -> None:
    hint = (
        "tooldeck: no candidate tool named 'time': tools[1] calls it 'time', but the tool's own name, "
        "which the model sees, is 'current_time' (tooldeck explain current_time)"
    )
    for extra in ((), ("--json",)):
        proc = tooldeck_here("explain", "time", "--config", str(EXAMPLE), *extra)
        assert proc.returncode == 1 and hint in proc.stderr.splitlines(), proc.stderr
    proc = tooldeck_here("explain", "current_time", "--config", str(EXAMPLE), "--json")
    assert [row["status"] for row in json.loads(proc.stdout)] == ["exposed"]
