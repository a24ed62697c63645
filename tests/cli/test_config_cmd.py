"""`tooldeck config` as a user runs it: secrets hidden, `--json` accepted, options before the command."""

from __future__ import annotations

import json
from pathlib import Path

from .clirun import tooldeck_here

SECRET = "sk-SECRET-do-not-print"
CONFIG = """\
web:
  search: {provider: brave, api_key: "${FAKE_KEY}"}
mcp_servers:
  remote: {url: "http://127.0.0.1:9/mcp", headers: {Authorization: "Bearer ${FAKE_KEY}"}}
  local: {command: some-server, env: {TOKEN: "${FAKE_KEY}"}}
acp_agents:
  helper: {command: some-agent, env: {KEY: "${FAKE_KEY}"}}
"""


def test_the_effective_config_hides_every_secret_but_keeps_the_keys(tmp_path: Path) -> None:
    (tmp_path / "tooldeck.yaml").write_text(CONFIG, encoding="utf-8")
    proc = tooldeck_here("config", "--json", cwd=tmp_path, env={"FAKE_KEY": SECRET})
    assert proc.returncode == 0, proc.stderr
    assert SECRET not in proc.stdout and SECRET not in proc.stderr
    config = json.loads(proc.stdout)["config"]
    assert config["web"]["search"] == {**config["web"]["search"], "provider": "brave", "api_key": "<hidden>"}
    assert config["mcp_servers"]["remote"]["headers"] == {"Authorization": "<hidden>"}
    assert config["mcp_servers"]["local"]["env"] == {"TOKEN": "<hidden>"}
    assert config["acp_agents"]["helper"]["env"] == {"KEY": "<hidden>"}
    assert config["mcp_servers"]["local"]["command"] == "some-server"  # not a secret: shown


def test_options_every_command_takes_may_come_before_the_command(tmp_path: Path) -> None:
    config = tmp_path / "elsewhere.yaml"
    config.write_text("platform_toolsets: {cli: [file]}\n", encoding="utf-8")
    before = tooldeck_here("--config", str(config), "--json", "tools", cwd=tmp_path)
    after = tooldeck_here("tools", "--config", str(config), "--json", cwd=tmp_path)
    assert before.returncode == after.returncode == 0, before.stderr
    assert before.stdout == after.stdout
    assert {t["function"]["name"] for t in json.loads(before.stdout)} >= {"read_file", "write_file"}
    reference = tooldeck_here("config", "--reference", "--json", cwd=tmp_path)
    assert reference.returncode == 2 and "--schema is its machine-readable form" in reference.stderr


def test_an_empty_config_path_says_a_file_name_is_needed(tmp_path: Path) -> None:
    proc = tooldeck_here("tools", "--config", "", cwd=tmp_path)
    assert proc.returncode == 2 and "--config/-c: needs a file name" in proc.stderr


def test_options_may_come_between_a_command_and_its_action(tmp_path: Path) -> None:
    config = tmp_path / "servers.yaml"
    config.write_text("mcp_servers: {broken: {command: /nonexistent/mcp-server}}\n", encoding="utf-8")
    proc = tooldeck_here("mcp", "--config", str(config), "--json", "list", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (server,) = json.loads(proc.stdout)
    assert server["name"] == "broken" and server["state"] != "ready"
