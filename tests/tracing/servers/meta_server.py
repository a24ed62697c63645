"""An MCP server over stdio, standard library only, whose one tool `meta` answers with the
`_meta` object of the `tools/call` request it received (as JSON text)."""

from __future__ import annotations

import json
import sys

META_TOOL = {
    "name": "meta",
    "description": "The _meta of this request.",
    "inputSchema": {"type": "object", "properties": {}},
    "annotations": {"readOnlyHint": True},
}


def answer(mid: object, result: dict[str, object]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}) + "\n")
    sys.stdout.flush()


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        method, mid, params = message.get("method"), message.get("id"), message.get("params") or {}
        if mid is None:
            continue  # a notification
        if method == "initialize":
            answer(
                mid,
                {
                    "protocolVersion": params.get("protocolVersion"),
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "meta", "version": "1"},
                },
            )
        elif method == "tools/list":
            answer(mid, {"tools": [META_TOOL]})
        elif method == "tools/call":
            text = json.dumps(params.get("_meta") or {})
            answer(mid, {"content": [{"type": "text", "text": text}], "isError": False})
        else:
            answer(mid, {})


if __name__ == "__main__":
    main()
