"""Hostile YAML in a config file: a key written twice, an alias bomb, deep nesting, a cycle."""

from __future__ import annotations

from pathlib import Path

import pytest

from tooldeck import load_config
from tooldeck._core.config_yaml import MAX_DEPTH, load_yaml
from tooldeck.errors import ConfigError


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "tooldeck.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_key_written_twice_is_an_error_naming_both_lines(tmp_path: Path) -> None:
    path = write(tmp_path, "platform: cli\nsandbox:\n  workspace: a\n  workspace: b\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "tooldeck.yaml: line 4: the key 'workspace' is written twice" in message
    assert "first at line 3" in message


def test_merge_keys_still_work_and_written_keys_override_merged_ones(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "x-server: &server {command: uvx, args: [mcp-server-time], timeout: 5}\n"
        "mcp_servers:\n"
        "  time: {<<: *server, timeout: 9}\n",
    )
    text = path.read_text(encoding="utf-8")
    data = load_yaml(text, "t")
    assert data["mcp_servers"]["time"] == {"command": "uvx", "args": ["mcp-server-time"], "timeout": 9}


def test_an_alias_bomb_is_refused_before_it_is_expanded(tmp_path: Path) -> None:
    lines = ["a0: &a0 [" + ", ".join(["xxxxxxxxxx"] * 10) + "]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    path = write(tmp_path, "\n".join(lines) + "\n")  # 10**9 strings once expanded: hours of CPU
    with pytest.raises(ConfigError, match=r"expands to more than 100,000 values through its aliases"):
        load_config(path)


def test_aliases_that_stay_small_are_fine() -> None:
    data = load_yaml("a: &a [1, 2]\nb: [*a, *a, *a]\n", "t")
    assert data == {"a": [1, 2], "b": [[1, 2], [1, 2], [1, 2]]}


@pytest.mark.parametrize("flow", [False, True])
def test_deep_nesting_is_an_error_not_a_crash(tmp_path: Path, flow: bool) -> None:
    depth = MAX_DEPTH + 50
    if flow:
        text = "a: " + "[" * depth + "]" * depth + "\n"
    else:
        text = "".join("  " * i + f"k{i}:\n" for i in range(depth)) + "  " * depth + "end\n"
    with pytest.raises(ConfigError, match="nest"):
        load_config(write(tmp_path, text))


def test_nesting_through_aliases_counts_as_expanded() -> None:
    lines = ["a0: &a0 [x]"] + [f"a{i}: &a{i} [[[[*a{i - 1}]]]]" for i in range(1, 30)]
    with pytest.raises(ConfigError, match=f"nested more than {MAX_DEPTH} levels"):
        load_yaml("\n".join(lines), "t")


def test_an_alias_inside_its_own_value_is_refused() -> None:
    with pytest.raises(ConfigError, match="an alias refers to a value that holds it"):
        load_yaml("a: &a [1, *a]\n", "t")
