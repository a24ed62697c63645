"""`tooldeck tools --strict / --tokens` and the token share + strict reason in `tooldeck explain`,
through the real console script."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from ..cli.clirun import tooldeck_here

MODULE = """
    from tooldeck import Tool, tool

    @tool(toolset="demo")
    def echo(text: str, times: int = 1) -> str:
        '''Echo a text back.'''
        return text * times

    @tool(toolset="demo")
    def tag(labels: dict[str, str]) -> str:
        '''Attach free-form labels.'''
        return ",".join(labels)

    bfcl_style = Tool(
        name="plan_trip",
        toolset="demo",
        description="Plan a trip.",
        parameters={"type": "dict", "properties": {"km": {"type": "float"}}, "required": ["km"]},
        handler=lambda args: str(args),
    )
"""


def _config(tmp_path: Path, extra: str = "") -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "td_dialect_tools.py").write_text(textwrap.dedent(MODULE), encoding="utf-8")
    path = tmp_path / "tooldeck.yaml"
    body = """
        tools:
          - {use: "td_dialect_tools:echo"}
          - {use: "td_dialect_tools:tag"}
          - {use: "td_dialect_tools:bfcl_style"}
    """
    path.write_text(textwrap.dedent(body) + textwrap.dedent(extra), encoding="utf-8")
    return path


STRICT_CFG = """
    dialects: {openai: {strict: true}}
"""


def test_tools_strict_flag_and_config(tmp_path: Path) -> None:
    cfg = _config(tmp_path / "flag")
    loose = json.loads(tooldeck_here("tools", "--config", str(cfg), "--json").stdout)
    assert all("strict" not in t["function"] for t in loose)
    for args, config in ((("--strict",), cfg), ((), _config(tmp_path / "config", STRICT_CFG))):
        proc = tooldeck_here("tools", "--config", str(config), "--json", *args)
        assert proc.returncode == 0, proc.stderr
        by_name = {t["function"]["name"]: t["function"] for t in json.loads(proc.stdout)}
        assert by_name["echo"]["strict"] is True
        assert by_name["echo"]["parameters"]["additionalProperties"] is False
        assert "strict" not in by_name["tag"]  # a free-form map cannot be strict: sent as is
    proc = tooldeck_here("tools", "--config", str(cfg), "--json", "--strict", "-d", "responses")
    flags = {t["name"]: t["strict"] for t in json.loads(proc.stdout)}
    assert {n: flags[n] for n in ("echo", "plan_trip", "tag")} == {
        "echo": True,
        "plan_trip": True,
        "tag": False,
    }


def test_tools_tokens_per_dialect(tmp_path: Path) -> None:
    cfg = _config(tmp_path)
    proc = tooldeck_here("tools", "--config", str(cfg), "--tokens", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert set(out["tokens"]) == {"openai", "responses", "anthropic", "gemini"}
    for per_encoding in out["tokens"].values():
        assert set(per_encoding) == {"o200k_base", "cl100k_base"}
        assert all(n > 20 for n in per_encoding.values())
    loadout = json.loads(tooldeck_here("tools", "--config", str(cfg), "--json").stdout)
    assert out["tools"] == len(loadout) >= 3
    human = tooldeck_here("tools", "--config", str(cfg), "--tokens")
    assert human.returncode == 0, human.stderr
    for word in ("openai", "responses", "anthropic", "gemini", "o200k", "cl100k"):
        assert word in human.stdout


def test_explain_shows_token_share_and_strict_reason(tmp_path: Path) -> None:
    cfg = _config(tmp_path)
    rows = json.loads(tooldeck_here("explain", "--config", str(cfg), "--json", "--strict").stdout)
    exposed = {r["name"]: r for r in rows if r["status"] == "exposed"}
    assert {"echo", "tag", "plan_trip"} <= set(exposed)
    assert all(r["tokens"] is None for r in rows if r["status"] != "exposed")
    assert abs(sum(r["token_share"] for r in exposed.values()) - 1) < 0.01
    assert all(r["tokens"] > 0 for r in exposed.values())
    assert exposed["echo"]["strict_reason"] is None
    assert (
        "free-form" in exposed["tag"]["strict_reason"]
        or "additionalProperties" in exposed["tag"]["strict_reason"]
    )
    assert any("'dict'" in n for n in exposed["plan_trip"]["schema_notes"])
    human = tooldeck_here("explain", "--config", str(cfg), "--strict")
    assert human.returncode == 0, human.stderr
    assert "%" in human.stdout
    assert "strict" in human.stdout and "tag" in human.stdout
