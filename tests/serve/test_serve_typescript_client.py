"""A real MCP client from another ecosystem: the official TypeScript SDK (installed by setup.sh)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from serve.helpers import BIN, HERE, REPO, make_config, tools_json_names

NODE_DIR = REPO / ".node"


def test_the_typescript_sdk_client_lists_and_calls(tmp_path: Path) -> None:
    node = shutil.which("node")
    assert node is not None, "node is not installed: run scripts/setup.sh"
    assert (NODE_DIR / "node_modules/@modelcontextprotocol/sdk").is_dir(), "run scripts/setup.sh"
    config = make_config(tmp_path)
    run = subprocess.run(
        [node, str(HERE / "ts_client.cjs"), str(NODE_DIR), str(BIN), "serve", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert seen["server"]["name"] == "tooldeck"
    assert seen["tools"] == tools_json_names(config)
    assert seen["annotations"]["shout"] == {"readOnlyHint": True, "idempotentHint": True}
    assert seen["annotations"]["explode"] == {"destructiveHint": True, "openWorldHint": False}
    assert seen["ok"] == {"isError": False, "text": "FROM NODE FROM NODE"}
    assert seen["bad"]["isError"] is True
    assert json.loads(seen["bad"]["text"])["error"]["type"] == "invalid_arguments"
    assert json.loads(seen["raised"]["text"])["error"] == {
        "type": "tool_error",
        "message": "tool 'explode' failed: RuntimeError: boom: no reason",
        "tool": "explode",
        "retryable": False,
    }
