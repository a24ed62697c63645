"""Platforms through the real console script and the API: the known platforms are those
`platform_toolsets` defines (without any, only `cli`), and any other name is an error naming
them, whether it comes from the `platform` key or from `--platform`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tooldeck import Config, ConfigError, Deck, UnknownPlatformError

from .clirun import tooldeck_here

WITH = "platform_toolsets: {cli: [file], gateway: [file, web]}\n"


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "tooldeck.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "flag", "expected"),
    [
        # The key, with and without platform_toolsets: refused when the config is read.
        (
            WITH + "platform: mars\n",
            None,
            "platform: unknown platform 'mars'; known platforms (platform_toolsets): cli, gateway",
        ),
        (
            "platform: mars\n",
            None,
            "platform: unknown platform 'mars'; known platforms: cli (the config defines no platform_toolsets",
        ),
        # The flag, with and without platform_toolsets: the same rule, the same words.
        (WITH, "mars", "unknown platform 'mars'; known platforms (platform_toolsets): cli, gateway"),
        (
            "",
            "venus",
            "unknown platform 'venus'; known platforms: cli (the config defines no platform_toolsets",
        ),
        (WITH, "", "unknown platform ''; known platforms (platform_toolsets): cli, gateway"),
    ],
)
def test_an_unknown_platform_is_an_error_on_every_path(
    tmp_path: Path, text: str, flag: str | None, expected: str
) -> None:
    path = _config(tmp_path, text)
    extra = () if flag is None else ("--platform", flag)
    for command in (("tools", "--json"), ("explain", "--json"), ("call", "read_file", "--args", "{}")):
        proc = tooldeck_here(*command, "--config", str(path), *extra, cwd=tmp_path)
        assert proc.returncode == 2, (command, proc.stdout, proc.stderr)
        assert f"tooldeck: config error: {expected}" in proc.stderr, proc.stderr
        assert proc.stdout == ""


def test_the_platform_key_is_checked_wherever_the_config_is_read(tmp_path: Path) -> None:
    path = _config(tmp_path, WITH + "platform: gatewy\n")
    proc = tooldeck_here("config", "--config", str(path))  # prints the effective config: not this one
    assert proc.returncode == 2 and "did you mean 'gateway'?" in proc.stderr
    with pytest.raises(ConfigError, match=r"^platform: unknown platform 'mars'; known platforms: cli \("):
        Config(platform="mars")
    # A config defining only other platforms loads (commands pick one with --platform); the
    # default platform is refused where it is used.
    only_gateway = Deck(Config(platform_toolsets={"gateway": ["web"]}), builtins=False)
    assert only_gateway.loadout("gateway").platform == "gateway"
    with pytest.raises(UnknownPlatformError, match=r"unknown platform 'cli'; known platforms .*: gateway$"):
        only_gateway.loadout()


def test_known_platforms_work_by_key_and_by_flag(tmp_path: Path) -> None:
    path = _config(tmp_path, WITH + "platform: gateway\n")
    by_key = tooldeck_here("tools", "--json", "--config", str(path), cwd=tmp_path)
    by_flag = tooldeck_here("tools", "--json", "--config", str(path), "--platform", "cli", cwd=tmp_path)
    assert by_key.returncode == 0 and by_flag.returncode == 0, by_key.stderr + by_flag.stderr
    names = {t["function"]["name"] for t in json.loads(by_key.stdout)}
    assert "web_extract" in names and "read_file" in names
    assert "web_extract" not in {t["function"]["name"] for t in json.loads(by_flag.stdout)}
    deck = Deck(Config(), builtins=False)
    assert deck.loadout("cli").platform == "cli"
    with pytest.raises(UnknownPlatformError, match="known platforms: cli"):
        deck.loadout("gateway")


def test_an_empty_platform_name_is_a_config_error_with_its_key(tmp_path: Path) -> None:
    path = _config(tmp_path, 'platform_toolsets: {"": [file], cli: [file]}\n')
    proc = tooldeck_here("tools", "--config", str(path))
    assert proc.returncode == 2
    assert (
        "config error: platform_toolsets: a platform name must not be empty or blank, got ''" in proc.stderr
    )
