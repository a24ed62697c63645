"""`tooldeck tools` / `tooldeck explain` as SPEC section C says, through the real console script."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from .clirun import tooldeck, tooldeck_here

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "tooldeck.yaml"


def write_config(tmp_path: Path, text: str, module: str | None = None) -> Path:
    if module is not None:
        (tmp_path / "td_cli_tools.py").write_text(textwrap.dedent(module), encoding="utf-8")
    path = tmp_path / "tooldeck.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


TOOLS_MODULE = """
    import threading
    from tooldeck import tool

    def hang() -> bool:
        threading.Event().wait()  # never returns
        return True

    @tool(toolset="demo")
    def echo(text: str) -> str:
        '''Echo a text back.'''
        return text

    @tool(toolset="demo", check=hang)
    def stuck() -> str:
        '''Guarded by a check that never answers.'''
        return "never"

    @tool(toolset="extra")
    def other() -> str:
        '''Another tool.'''
        return "x"
"""


def test_tools_json_is_the_openai_tools_array() -> None:
    proc = tooldeck_here("tools", "--config", str(EXAMPLE), "--json", env={"OPENWEATHER_API_KEY": ""})
    assert proc.returncode == 0, proc.stderr
    tools = json.loads(proc.stdout)
    names = [t["function"]["name"] for t in tools]
    assert {"word_count", "current_time", "search_notes", "slugify", "summarize_loadout", "fetch_url"} <= set(
        names
    )
    assert not {"weather", "run_command", "describe_image", "delete_note", "purge_cache"} & set(names)
    for t in tools:
        assert t["type"] == "function" and set(t["function"]) == {"name", "description", "parameters"}
        assert t["function"]["parameters"]["type"] == "object"
    live = next(t for t in tools if t["function"]["name"] == "summarize_loadout")
    assert "word_count" in live["function"]["description"]


def test_explain_json_shows_every_gate_of_the_example() -> None:
    proc = tooldeck_here("explain", "--config", str(EXAMPLE), "--json", env={"OPENWEATHER_API_KEY": ""})
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    for row in rows:
        assert {"name", "toolset", "source", "status", "gate", "reason"} <= set(row)
        assert row["status"] in {"exposed", "deferred", "hidden"}
    gates = {r["gate"] for r in rows if r["status"] == "hidden"}
    assert gates >= {
        "dedup",
        "toolset",
        "disabled_toolsets",
        "tool_groups",
        "host_shell",
        "model_capability",
        "availability",
        "skills",
    }
    weather = next(r for r in rows if r["name"] == "weather")
    assert weather["gate"] == "availability" and weather["reason"] == "env OPENWEATHER_API_KEY not set"
    # The same config with the key set exposes it: availability is read per run.
    proc = tooldeck_here(
        "explain", "weather", "--config", str(EXAMPLE), "--json", env={"OPENWEATHER_API_KEY": "k"}
    )
    assert json.loads(proc.stdout)[0]["status"] == "exposed"


def test_explain_human_output_names_the_gate_and_warnings(tmp_path: Path) -> None:
    cfg = write_config(
        tmp_path,
        """
        tools: [{use: "td_cli_tools:echo"}, {use: "td_cli_tools:other"}]
        disabled_toolsets: [extar]
        checks: {budget_ms: 200}
    """,
        TOOLS_MODULE,
    )
    proc = tooldeck_here("explain", "--config", str(cfg))
    assert proc.returncode == 0, proc.stderr
    assert "echo" in proc.stdout and "exposed" in proc.stdout
    assert "disabled_toolsets[0]: unknown toolset 'extar'" in proc.stdout
    assert "did you mean 'extra'" in proc.stdout
    strict = write_config(
        tmp_path,
        """
        strict: true
        tools: [{use: "td_cli_tools:echo"}]
        disabled_toolsets: [extar]
    """,
    )
    proc = tooldeck_here("explain", "--config", str(strict))
    assert proc.returncode == 2 and "disabled_toolsets[0]" in proc.stderr and "strict" in proc.stderr


def test_a_hung_check_costs_only_the_budget_and_the_process_exits(tmp_path: Path) -> None:
    base = write_config(
        tmp_path,
        """
        tools: [{use: "td_cli_tools:echo"}]
        checks: {budget_ms: 300}
    """,
        TOOLS_MODULE,
    )
    proc = tooldeck("tools", "--config", str(base), "--json", timeout=60)
    assert proc.returncode == 0, proc.stderr
    hung = tmp_path / "hung.yaml"
    hung.write_text(
        'tools: [{use: "td_cli_tools:echo"}, {use: "td_cli_tools:stuck"}]\n'
        "platform_toolsets: {cli: [demo]}\nchecks: {budget_ms: 300}\n"
    )
    # The check never returns: a process that exits at all did not wait for it (a hang would
    # raise TimeoutExpired), and the reason says it was given the budget, no more.
    proc = tooldeck("tools", "--config", str(hung), "--json", timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert [t["function"]["name"] for t in json.loads(proc.stdout)] == ["echo"]
    proc = tooldeck("explain", "stuck", "--config", str(hung), "--json", timeout=60)
    (row,) = json.loads(proc.stdout)
    assert row["gate"] == "availability" and row["reason"] == "check hang timed out after 300 ms"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("platform: cli\ntools: [\n  - : :\n", "invalid YAML at line"),
        ("sandbox:\n  allow_host_shel: true\n", "sandbox.allow_host_shel: unknown key"),
        ("checks:\n  budget_ms: soon\n", "checks.budget_ms: Input should be a valid number"),
        (
            "model:\n  api_key_env: ${TD_SURELY_UNSET_VAR}\n",
            "model.api_key_env: environment variable TD_SURELY_UNSET_VAR is not set",
        ),
        (
            "tools:\n  - use: td_no_such_module:thing\n",
            "tools[0].use: cannot import module 'td_no_such_module'",
        ),
    ],
)
def test_config_errors_print_the_key_path_and_exit_2(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    for command in ("tools", "explain"):
        proc = tooldeck_here(command, "--config", str(path))
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert expected in proc.stderr
        assert "Traceback" not in proc.stderr


def test_unreadable_config_and_bad_dialect_are_usage_errors(tmp_path: Path) -> None:
    proc = tooldeck_here("tools", "--config", str(tmp_path / "nope.yaml"))
    assert proc.returncode == 2 and "cannot read config file" in proc.stderr
    proc = tooldeck_here("tools", "--dialect", "klingon")
    assert proc.returncode == 2 and "--dialect" in proc.stderr


def test_platform_flag_selects_other_toolsets() -> None:
    proc = tooldeck_here("tools", "--config", str(EXAMPLE), "--platform", "gateway", "--json")
    assert proc.returncode == 0, proc.stderr
    assert sorted(t["function"]["name"] for t in json.loads(proc.stdout)) == [
        "current_time",
        "slugify",
        "word_count",
    ]


def test_explain_unknown_name_suggests_close_ones() -> None:
    proc = tooldeck_here("explain", "wordcount", "--config", str(EXAMPLE))
    assert proc.returncode == 1 and "did you mean word_count" in proc.stderr
