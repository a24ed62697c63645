"""Every config key changes what a user can observe, through the Python API and through the CLI.

One row per key: a config that sets it, and a probe that reads what the key should change. The
probe runs twice - on `Deck` (the API) and on the `tooldeck` command (its argparse path, run in
process) - and must see a different answer with the key set than without it. A key that cannot
change anything is refused by the config (see test_config.py), never silently accepted.
"""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tooldeck import Deck, load_config
from tooldeck.cli.main import dispatch
from tooldeck.testing.scripted_server import Recorded, ScriptedServer, Turn

TOOLS_MODULE = '''
import time
from tooldeck import tool


@tool(toolset="text")
def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


@tool(toolset="slow")
def nap(seconds: float) -> str:
    """Sleep a while."""
    time.sleep(seconds)
    return "rested"


@tool(toolset="big")
def blob(n: int) -> str:
    """A long text."""
    return "x" * n


@tool(toolset="shell", shell=True)
def run_command(command: str) -> str:
    """Run a shell command (never really: a test stand-in)."""
    return command


@tool(toolset="vision", needs_vision=True)
def look(path: str) -> str:
    """Describe an image."""
    return path


@tool(toolset="gated", requires_approval=True)
def launch(target: str) -> str:
    """Needs approval."""
    return "launched " + target


@tool(toolset="web", open_world=True)
def fetch(url: str) -> str:
    """Fetch a page (a stand-in)."""
    return "page " + url
'''

BASE: dict[str, Any] = {
    "tools": [
        {"use": "keytools:shout"},
        {"use": "keytools:nap"},
        {"use": "keytools:blob"},
        {"use": "keytools:run_command"},
        {"use": "keytools:look"},
        {"use": "keytools:launch"},
        {"use": "keytools:fetch"},
    ],
    "plugins": {"enabled": False},
}


@dataclass(frozen=True)
class Probe:
    """What to read: the exposed names, one call's outcome, or the config itself."""

    kind: str  # "exposed" | "call" | "explain" | "warnings" | "description"
    name: str = ""
    args: str = "{}"
    platform: str | None = None
    # Read the loadout an agent run gets (`tools --agent`): for the tools only an agent run offers.
    agent: bool = False


def exposed() -> Probe:
    return Probe("exposed")


# The sandbox's limits, read inside it by a real terminal call (bwrap is preferred whenever it
# works, host shells allowed or not); padded so that the status line with the call's duration
# falls outside the part of the content compared.
SHOW_LIMITS = (
    "echo $(ulimit -u) $(ulimit -v) $(ulimit -f) $(ulimit -t) $(ulimit -n) $(df -m --output=size /tmp | tail -1);"
    "printf '=%.0s' $(seq 80)"
)
LIMIT_SETTINGS = {
    "processes": 40,
    "memory_mb": 700,
    "file_size_mb": 3,
    "cpu_s": 9,
    "open_files": 99,
    "tmp_mb": 5,
}
LET_TERMINAL_RUN: dict[str, Any] = {"approvals": {"tools": {"terminal": "allow"}}}

ROWS: list[tuple[str, dict[str, Any], Probe]] = [
    ("platform", {"platform": "gw", "platform_toolsets": {"cli": ["text"], "gw": ["slow"]}}, exposed()),
    ("platform_toolsets", {"platform_toolsets": {"cli": ["text"]}}, exposed()),
    ("disabled_toolsets", {"disabled_toolsets": ["text"]}, exposed()),
    (
        "toolsets.tools",
        {"toolsets": {"mine": {"tools": ["shout"]}}, "platform_toolsets": {"cli": ["mine"]}},
        exposed(),
    ),
    (
        "toolsets.includes",
        {"toolsets": {"mine": {"includes": ["slow"]}}, "platform_toolsets": {"cli": ["mine"]}},
        exposed(),
    ),
    ("tool_groups", {"tool_groups": ["text"]}, exposed()),
    ("tools[].name", {"tools[0]": {"name": "yell"}}, Probe("warnings")),
    ("tools[].group", {"tools[0]": {"group": "loud"}, "tool_groups": ["loud", "slow"]}, exposed()),
    ("tools[].toolset", {"tools[0]": {"toolset": "other"}, "disabled_toolsets": ["other"]}, exposed()),
    ("tools[].requires_env", {"tools[0]": {"requires_env": ["TD_KEYS_UNSET_VAR"]}}, exposed()),
    ("tools[].requires_bins", {"tools[0]": {"requires_bins": ["td-no-such-binary"]}}, exposed()),
    ("tools[].requires_modules", {"tools[0]": {"requires_modules": ["td_no_such_module"]}}, exposed()),
    (
        "tools[].requires_approval",
        {"tools[0]": {"requires_approval": True}},
        Probe("call", "shout", '{"text": "a"}'),
    ),
    ("tools[].timeout", {"tools[1]": {"timeout": 0.2}}, Probe("call", "nap", '{"seconds": 1}')),
    ("tools[].max_result_chars", {"tools[2]": {"max_result_chars": 10}}, Probe("call", "blob", '{"n": 50}')),
    ("tools[].shell", {"tools[0]": {"shell": True}}, exposed()),
    ("tools[].needs_vision", {"tools[0]": {"needs_vision": True}}, exposed()),
    (
        "tools[].input_examples",
        {"tools[0]": {"input_examples": [{"text": "hi"}]}},
        Probe("description", "shout"),
    ),
    ("tools[].open_world", {"tools[0]": {"open_world": True}}, Probe("call", "shout", '{"text": "a"}')),
    (
        "tools[].read_only",
        {"tools[1]": {"read_only": True, "timeout": 0.2}},
        Probe("call", "nap", '{"seconds": 1}'),
    ),
    (
        "tools[].idempotent",
        {"tools[1]": {"idempotent": True, "timeout": 0.2}},
        Probe("call", "nap", '{"seconds": 1}'),
    ),
    ("sandbox.allow_host_shell", {"sandbox": {"allow_host_shell": True}}, exposed()),
    ("sandbox.kind", {"sandbox": {"kind": "bwrap"}}, Probe("explain", "run_command")),
    (
        "sandbox.workspace",
        {"sandbox": {"workspace": "inside"}},
        Probe("call", "read_file", '{"path": "cwdfile.txt"}'),
    ),
    (
        "sandbox.protected",
        {"sandbox": {"protected": ["cwdfile.txt"]}},
        Probe("call", "write_file", '{"path": "cwdfile.txt", "content": "changed"}'),
    ),
    ("model.supports_vision", {"model": {"supports_vision": True}}, exposed()),
    ("model.name", {"model": {"name": "tiny-text-model"}}, Probe("explain", "look")),
    ("approvals.mode", {"approvals": {"mode": "allow"}}, Probe("call", "launch", '{"target": "x"}')),
    (
        "approvals.tools",
        {"approvals": {"tools": {"run_*": "allow"}}, "sandbox": {"allow_host_shell": True}},
        Probe("call", "run_command", '{"command": "git reset --hard"}'),
    ),
    (
        "approvals.audit_log",
        {"approvals": {"audit_log": "inside"}, "sandbox": {"allow_host_shell": True}},
        Probe("call", "run_command", '{"command": "ls"}'),
    ),
    (
        "shell.block",
        {"shell": {"block": ["git_destruction"]}, "sandbox": {"allow_host_shell": True}},
        Probe("call", "run_command", '{"command": "git reset --hard"}'),
    ),
    (
        "shell.approve",
        {"shell": {"approve": ["delete-root"]}, "sandbox": {"allow_host_shell": True}},
        Probe("call", "run_command", '{"command": "rm -rf /"}'),
    ),
    (
        "sandbox.network",
        {"sandbox": {"allow_host_shell": True, "network": True}},
        Probe("description", "terminal"),
    ),
    *(
        (
            f"sandbox.limits.{name}",
            {"sandbox": {"allow_host_shell": True, "limits": {name: value}}, **LET_TERMINAL_RUN},
            Probe("call", "terminal", json.dumps({"command": SHOW_LIMITS})),
        )
        for name, value in LIMIT_SETTINGS.items()
    ),
    ("skills", {"skills": [{"name": "s", "allowed_tools": ["shout"]}]}, exposed()),
    ("skills[].active", {"skills": [{"name": "s", "allowed_tools": ["shout"], "active": False}]}, exposed()),
    (
        "execution.default_timeout_s",
        {"execution": {"default_timeout_s": 0.2}},
        Probe("call", "nap", '{"seconds": 1}'),
    ),
    (
        "execution.max_timeout_s",
        {"execution": {"max_timeout_s": 0.2}, "tools[1]": {"timeout": 30}},
        Probe("call", "nap", '{"seconds": 1}'),
    ),
    (
        "execution.max_result_chars",
        {"execution": {"max_result_chars": 10}},
        Probe("call", "blob", '{"n": 50}'),
    ),
    (
        "execution.normalize_names",
        {"execution": {"normalize_names": False}},
        Probe("call", "Shout", '{"text": "a"}'),
    ),
    ("checks.budget_ms", {"checks": {"budget_ms": 1}, "tools[0]": {"requires_env": []}}, exposed()),
    ("discover", {"discover": ["keypkg"]}, exposed()),
    ("plugins.enabled", {"plugins": {"enabled": True}}, exposed()),
    ("plugins.disabled", {"plugins": {"enabled": True, "disabled": ["whisper"]}}, exposed()),
    (
        "agent.delegation_max_concurrency",
        {"agent": {"delegation_max_concurrency": 7}},
        Probe("description", "delegate_task", agent=True),
    ),
    ("strict", {"strict": True, "disabled_toolsets": ["txet"]}, exposed()),
    (
        "home",
        {"home": "otherhome", "execution": {"max_result_chars": 10}},
        Probe("call", "blob", '{"n": 50}'),
    ),
]


# Rows whose key is best seen against a baseline other than "not set".
BASELINES: dict[str, dict[str, Any]] = {
    "approvals.tools": {"sandbox": {"allow_host_shell": True}},
    "approvals.audit_log": {"sandbox": {"allow_host_shell": True}},
    "shell.block": {"sandbox": {"allow_host_shell": True}},
    "shell.approve": {"sandbox": {"allow_host_shell": True}},
    "sandbox.network": {"sandbox": {"allow_host_shell": True}},
    **{
        f"sandbox.limits.{name}": {"sandbox": {"allow_host_shell": True}, **LET_TERMINAL_RUN}
        for name in LIMIT_SETTINGS
    },
    "skills[].active": {"skills": [{"name": "s", "allowed_tools": ["shout"], "active": True}]},
    "plugins.disabled": {"plugins": {"enabled": True}},
}


def _config(rows_config: dict[str, Any]) -> dict[str, Any]:
    data = json.loads(json.dumps(BASE))
    for key, value in rows_config.items():
        if key.startswith("tools["):
            data["tools"][int(key[6:-1])].update(value)
        elif key == "plugins":
            data["plugins"] = value
        else:
            data[key] = value
    return data


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "keytools.py").write_text(textwrap.dedent(TOOLS_MODULE), encoding="utf-8")
    pkg = tmp_path / "keypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "extra.py").write_text(
        "from tooldeck import tool\n\n@tool(toolset='text')\ndef whisper(text: str) -> str:\n"
        "    'Lower-case.'\n    return text.lower()\n"
    )
    (tmp_path / "cwdfile.txt").write_text("outside the workspace\n")
    # An installed plugin: a distribution's entry point in the group tooldeck.tools, in a
    # folder of its own on sys.path (one next to the config is not read: tools write there).
    dist = tmp_path / "site" / "keyplugin-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "entry_points.txt").write_text("[tooldeck.tools]\nwhisper = keypkg.extra:whisper\n")
    (tmp_path / "inside").mkdir()
    monkeypatch.chdir(tmp_path)
    # Decks put their config folder on sys.path; restore it so this folder's plugin
    # (keyplugin-1.0.dist-info) does not show up in later tests' entry-point scans.
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delenv("TD_KEYS_UNSET_VAR", raising=False)
    # A deck makes the config file's folder importable: restore sys.path (and forget the test
    # modules) afterwards, so the plugin installed here is not seen by later tests.
    monkeypatch.setattr(sys, "path", [*sys.path, str(tmp_path / "site")])
    for name in [m for m in sys.modules if m in ("keytools", "keypkg") or m.startswith("keypkg.")]:
        monkeypatch.delitem(sys.modules, name)
    # A check that takes longer than a 1 ms budget: shows what checks.budget_ms does.
    (tmp_path / "keytools.py").write_text(
        textwrap.dedent(TOOLS_MODULE) + "\nimport time as _t\n"
        "def _slow_check():\n    _t.sleep(0.05)\n    return True\n\n"
        "shout = shout.with_options(check=_slow_check)\n",
        encoding="utf-8",
    )
    return tmp_path


def _api(path: Path, probe: Probe) -> Any:
    deck = Deck(load_config(path))
    try:
        if probe.kind == "exposed":
            return sorted(t["function"]["name"] for t in deck.tools(platform=probe.platform))
        if probe.kind == "explain":
            [fate] = deck.explain(probe.name).fates
            return (fate.status, fate.gate, fate.reason, fate.tool.name)
        if probe.kind == "warnings":
            return [str(d) for d in deck.explain().diagnostics if d.level != "info"]
        if probe.kind == "description":
            tools = deck.tools(agent=probe.agent)
            return [t["function"]["description"] for t in tools if t["function"]["name"] == probe.name]
        result = deck.call_sync(probe.name, probe.args)
        return _outcome(result.ok, result.content, result.error.envelope()["error"] if result.error else None)
    except Exception as exc:
        return f"error: {type(exc).__name__}: {exc}"


def _cli(path: Path, probe: Probe, capsys: pytest.CaptureFixture[str]) -> Any:
    argv = (
        {
            "exposed": ["tools", "--json"],
            "explain": ["explain", probe.name, "--json"],
            "warnings": ["explain", "--json"],
            "description": ["tools", "--json"],
            "call": ["call", probe.name, "--args", probe.args, "--json"],
        }[probe.kind]
        + ["--config", str(path)]
        + (["--agent"] if probe.agent else [])
    )
    try:
        code = dispatch(argv)
    except Exception as exc:
        return f"error: {type(exc).__name__}: {exc}"
    captured = capsys.readouterr()
    out = captured.out
    if probe.kind == "warnings":
        return [line for line in captured.err.splitlines() if line.startswith("tooldeck: warning")]
    if code not in (0, 1) or not out.strip():
        return f"exit {code}"
    data = json.loads(out)
    if probe.kind == "exposed":
        return sorted(t["function"]["name"] for t in data)
    if probe.kind == "description":
        return [t["function"]["description"] for t in data if t["function"]["name"] == probe.name]
    if probe.kind == "explain":
        row = data[0]
        return (row["status"], row["gate"], row["reason"], row["name"])
    return _outcome(data["ok"], data["content"], data["error"])


def _outcome(ok: bool, content: str, error: dict[str, Any] | None) -> Any:
    if error is not None:
        return (ok, error["type"], error["retryable"], error["message"][:60])
    return (ok, content[:80])


@pytest.mark.parametrize(("key", "setting", "probe"), ROWS, ids=[r[0] for r in ROWS])
def test_each_key_changes_what_the_api_and_the_cli_show(
    key: str, setting: dict[str, Any], probe: Probe, workdir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    without = workdir / "without.yaml"
    with_key = workdir / "with.yaml"
    base = _config(BASELINES.get(key, {}))
    without.write_text(yaml.safe_dump(base), encoding="utf-8")
    with_key.write_text(yaml.safe_dump(_config(setting)), encoding="utf-8")
    views: dict[str, Callable[[Path], Any]] = {
        "api": lambda p: _api(p, probe),
        "cli": lambda p: _cli(p, probe, capsys),
    }
    for path_name, view in views.items():
        before, after = view(without), view(with_key)
        assert before != after, f"{key} has no effect through the {path_name}: {before!r}"


# -- the agent and model keys: one turn through `deck.agent()` and through `tooldeck run` ------

AGENT_TOOLS = [{"use": "keytools:shout"}]


def _step(recorded: Recorded) -> Turn:
    """Call shout once, then answer: a turn of two model calls."""
    if recorded.tool_results():
        return Turn(text="done")
    return Turn(calls=[("shout", {"text": "hi"})])


AGENT_ROWS: list[tuple[str, dict[str, Any]]] = [
    ("model.provider", {"model": {"provider": "anthropic"}}),
    ("model.name", {"model": {"name": "other-model"}}),
    ("model.api_key_env", {"model": {"api_key_env": "TD_KEYS_API_KEY"}}),
    ("model.max_tokens", {"model": {"max_tokens": 77}}),
    ("model.temperature", {"model": {"temperature": 0.25}}),
    ("model.stream", {"model": {"stream": True}}),
    ("model.reasoning.effort", {"model": {"reasoning": {"effort": "high"}}}),
    (
        "model.reasoning.budget_tokens",
        {"model": {"provider": "anthropic", "reasoning": {"budget_tokens": 2048}}},
    ),
    ("dialects.openai.strict", {"dialects": {"openai": {"strict": True}}}),
    ("agent.max_iterations", {"agent": {"max_iterations": 1}}),
    ("agent.system_prompt", {"agent": {"system_prompt": "Be terse."}}),
    ("agent.sessions_db", {"agent": {"sessions_db": "elsewhere.db"}}),
    ("home", {"home": "home2"}),
]


def _agent_config(server: ScriptedServer, setting: dict[str, Any]) -> dict[str, Any]:
    model = {"provider": "openai", "name": "scripted-model", "base_url": server.openai_url}
    data: dict[str, Any] = {
        "tools": AGENT_TOOLS,
        "plugins": {"enabled": False},
        "model": model,
        "home": "home1",
    }
    for key, value in setting.items():
        if key == "model":
            data["model"] = {**model, **value}
        else:
            data[key] = value
    return data


def _observe_turn(server: ScriptedServer, folder: Path, outcome: Any) -> Any:
    first = server.requests[0]
    body = first.body
    seen = {
        "path": first.path,
        "model": body.get("model"),
        "auth": first.headers.get("authorization") or first.headers.get("x-api-key"),
        "max_tokens": body.get("max_tokens")
        or body.get("max_completion_tokens")
        or body.get("max_output_tokens"),
        "temperature": body.get("temperature"),
        "stream": body.get("stream"),
        "reasoning": [body.get(k) for k in ("reasoning_effort", "reasoning", "thinking")],
        "strict": [t.get("function", t).get("strict") for t in body.get("tools") or []],
        "system": first.system,
        "requests": len(server.requests),
        "outcome": outcome,
        "databases": sorted(str(p.relative_to(folder)) for p in folder.rglob("*.db")),
    }
    server.requests.clear()
    return seen


def _turn_api(path: Path, server: ScriptedServer) -> Any:
    import asyncio

    server.add(_step, _step)
    deck = Deck(load_config(path))
    agent = deck.agent()

    async def turn() -> Any:
        try:
            result = await agent.run(agent.new_conversation(), "hi")
            return (result.status, result.text)
        finally:
            await agent.aclose()

    return _observe_turn(server, path.parent, asyncio.run(turn()))


def _turn_cli(path: Path, server: ScriptedServer, capsys: pytest.CaptureFixture[str]) -> Any:
    server.add(_step, _step)
    code = dispatch(["run", "hi", "--json", "--config", str(path)])
    out = json.loads(capsys.readouterr().out)
    return _observe_turn(server, path.parent, (code, out["status"], out["text"]))


@pytest.mark.parametrize(("key", "setting"), AGENT_ROWS, ids=[r[0] for r in AGENT_ROWS])
def test_each_agent_key_changes_the_turn_through_the_api_and_the_cli(
    key: str,
    setting: dict[str, Any],
    workdir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TD_KEYS_API_KEY", "secret-from-env")
    monkeypatch.delenv("TOOLDECK_HOME", raising=False)
    with ScriptedServer().start() as server:
        for path_name, runner in (("api", _turn_api), ("cli", _turn_cli)):
            folder = workdir / path_name
            folder.mkdir(exist_ok=True)
            (folder / "keytools.py").write_text((workdir / "keytools.py").read_text(), encoding="utf-8")
            without, with_key = folder / "without.yaml", folder / "with.yaml"
            without.write_text(yaml.safe_dump(_agent_config(server, {})), encoding="utf-8")
            with_key.write_text(yaml.safe_dump(_agent_config(server, setting)), encoding="utf-8")
            args = (server,) if path_name == "api" else (server, capsys)
            before = runner(without, *args)
            after = runner(with_key, *args)
            changed = {k for k in before if before[k] != after[k]}
            assert changed, f"{key} has no effect through the {path_name}: {before!r}"
