"""A workspace of `/` (however spelt: `/..`, `//`, a symbolic link to `/`) confines nothing: as
config it is an error naming `sandbox.workspace`; reached otherwise (no config run from `/`, a
link changed after the config was read) every workspace-bound tool is hidden with that reason."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tooldeck import Deck, parse_config
from tooldeck.errors import ConfigError

from .clirun import tooldeck

WORKSPACE_TOOLS = {"execute_code", "patch", "read_file", "search_files", "terminal", "write_file"}


@pytest.mark.parametrize("spelling", ["/", "/..", "//", "/tmp/../", "link"])
def test_a_workspace_of_the_root_is_a_config_error(tmp_path: Path, spelling: str) -> None:
    (tmp_path / "link").symlink_to("/")
    with pytest.raises(ConfigError, match="root of the file system") as caught:
        parse_config({"sandbox": {"workspace": spelling}}, base_dir=str(tmp_path))
    assert caught.value.path == "sandbox.workspace"


def test_tooldeck_refuses_the_config_before_any_tool_runs(tmp_path: Path) -> None:
    cfg = tmp_path / "tooldeck.yaml"
    cfg.write_text("sandbox: {kind: bwrap, workspace: /}\n", encoding="utf-8")
    explained = tooldeck("explain", "terminal", "--config", str(cfg))
    assert explained.returncode == 2 and "sandbox.workspace" in explained.stderr
    read = tooldeck("call", "read_file", "--args", '{"path": "etc/passwd"}', "--json", "--config", str(cfg))
    assert read.returncode == 2 and "root of the file system" in read.stderr
    assert "root:" not in read.stdout


def test_without_a_config_run_from_the_root_workspace_tools_are_hidden(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "TOOLDECK_HOME": str(tmp_path / "home")}
    proc = tooldeck("explain", "--json", cwd=Path("/"), env=env)
    assert proc.returncode == 0, proc.stderr
    rows = {r["name"]: r for r in json.loads(proc.stdout)}
    for name in WORKSPACE_TOOLS & set(rows):
        assert rows[name]["status"] == "hidden" and rows[name]["gate"] in ("availability", "host_shell")
    assert rows["read_file"]["gate"] == "availability"
    assert "root of the file system" in rows["read_file"]["reason"]
    read = tooldeck("call", "read_file", "--args", '{"path": "etc/passwd"}', "--json", cwd=Path("/"), env=env)
    out = json.loads(read.stdout)
    assert read.returncode == 1 and out["error"]["type"] == "unavailable"
    assert "root of the file system" in out["error"]["message"] and "root:" not in out["content"]


def test_a_workspace_link_turned_to_the_root_later_hides_the_tools(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "ws").symlink_to(tmp_path / "project")
    config = parse_config({"sandbox": {"workspace": "ws"}, "home": "home"}, base_dir=str(tmp_path))
    deck = Deck(config)
    assert deck.call_sync("read_file", {"path": "missing.txt"}).error is not None  # runs: no such file
    assert deck.explain("read_file").fates[0].status == "exposed"
    os.unlink(tmp_path / "ws")
    (tmp_path / "ws").symlink_to("/")
    deck.invalidate()
    [fate] = deck.explain("read_file").fates
    assert (fate.status, fate.gate) == ("hidden", "availability")
    assert "root of the file system" in (fate.reason or "")
    result = deck.call_sync("read_file", {"path": "etc/passwd"})
    assert result.error is not None and result.error.type == "unavailable"
    assert "root:" not in result.content
