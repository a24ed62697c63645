"""The docs' MCP client config (docs/serve.md) starts a working server; the `acp_agents:` example
(docs/interop.md) validates."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import yaml
from mcp import Client, StdioServerParameters

from serve.helpers import BIN, REPO, make_config, tools_json_names
from tooldeck import parse_config

SERVE_PAGE = (REPO / "docs" / "serve.md").read_text(encoding="utf-8")
INTEROP_PAGE = (REPO / "docs" / "interop.md").read_text(encoding="utf-8")


def test_the_client_config_snippet_starts_tooldeck_serve(tmp_path: Path) -> None:
    [snippet] = [b for b in re.findall(r"```json\n(.*?)```", SERVE_PAGE, re.DOTALL) if "mcpServers" in b]
    entry = json.loads(snippet)["mcpServers"]["tooldeck"]
    assert entry["command"] == "tooldeck" and entry["args"][:2] == ["serve", "--config"]
    config = make_config(tmp_path)
    args = [str(config) if a == "/path/to/tooldeck.yaml" else a for a in entry["args"]]

    async def names() -> list[str]:
        async with Client(StdioServerParameters(command=str(BIN), args=args)) as client:
            return [t.name for t in (await client.list_tools()).tools]

    assert asyncio.run(names()) == tools_json_names(config)


def test_the_acp_agents_snippet_is_a_valid_config() -> None:
    [snippet] = [b for b in re.findall(r"```yaml\n(.*?)```", INTEROP_PAGE, re.DOTALL) if "acp_agents" in b]
    config = parse_config(yaml.safe_load(snippet), env={"MY_AGENT_API_KEY": "k"})
    coder = config.acp_agents["coder"]
    assert (coder.command, coder.args, coder.env, coder.timeout_s) == (
        "my-acp-agent",
        ["--acp"],
        {"MY_AGENT_API_KEY": "k"},
        600,
    )
