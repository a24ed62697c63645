"""A small MCP server over stdio for fault tests, standard library only (it starts in milliseconds).

It speaks the MCP handshake, paginated `tools/list` and `tools/call`, and misbehaves on request:

    --exit-at-start CODE   write to stderr and exit before reading anything
    --hang                 read requests, never answer (stuck in initialize)
    --linger               stay when stdin closes (until a signal ends it)
    --garbage              print a line that is not JSON-RPC before anything else
    --tools N --page K     offer N extra tools `t000`.. over pages of K
    --pid-file PATH        write the process id there at start
    --fail-relist          answer every tools/list after the first listing with an error
    --record PATH          append a JSON line there for each tools/call and each cancellation

Requests are answered one at a time, except `work`, which runs beside them and honours MCP's
`notifications/cancelled`: a cancelled `work` stops at once and is never answered, as the spec
asks of a receiver, so the next request is not kept waiting behind it.

Tools: echo (read-only), delete (destructive), work (sleeps `seconds`), crash (the process dies
mid-call), fail (an `isError` result), rpc_error (a JSON-RPC error), image (image content),
noisy (prints a line that is not JSON-RPC, then answers), add_tool (adds tool `name` and sends notifications/tools/list_changed), remove_tool (removes tool
`name`, announced the same way), where (cwd and TMPDIR).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
import threading
import time

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 24).decode()


def tool(name: str, description: str, props: dict | None = None, **hints: bool) -> dict:
    out = {
        "name": name,
        "description": description,
        "inputSchema": {"type": "object", "properties": props or {}},
    }
    if hints:
        out["annotations"] = hints
    return out


BASE = [
    tool("echo", "Echo the text back.", {"text": {"type": "string"}}, readOnlyHint=True, openWorldHint=False),
    tool("delete", "Delete a thing.", {"what": {"type": "string"}}, destructiveHint=True),
    tool("work", "Sleep a while.", {"seconds": {"type": "number"}}),
    tool("crash", "The server dies during this call."),
    tool("fail", "Report a tool-level error."),
    tool("rpc_error", "Answer with a JSON-RPC error."),
    tool("image", "Return an image.", readOnlyHint=True),
    tool("noisy", "Print a stray line, then answer.", readOnlyHint=True),
    tool("add_tool", "Add a tool and announce it.", {"name": {"type": "string"}}),
    tool("remove_tool", "Remove a tool and announce it.", {"name": {"type": "string"}}),
    tool("where", "Working and temporary directories.", readOnlyHint=True),
]


_WRITING = threading.Lock()  # `work` answers from a thread of its own


def send(message: dict) -> None:
    with _WRITING:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


class Calls:
    """The `work` calls in flight (request id -> what stops it), and the record of calls."""

    def __init__(self, record: str | None) -> None:
        self.record = record
        self.working: dict[object, threading.Event] = {}
        self.names: dict[object, str] = {}

    def note(self, **entry: object) -> None:
        if self.record:
            with open(self.record, "a", encoding="utf-8") as f:
                f.write(json.dumps(entry) + "\n")

    def work(self, mid: object, seconds: float) -> None:
        """Sleep `seconds` beside the other requests, then answer, unless cancelled first."""
        stop = self.working[mid] = threading.Event()

        def run() -> None:
            cancelled = stop.wait(seconds)
            self.working.pop(mid, None)
            if not cancelled:
                send({"jsonrpc": "2.0", "id": mid, "result": text("worked")})

        threading.Thread(target=run, daemon=True).start()

    def cancel(self, params: dict) -> None:
        """`notifications/cancelled`: stop that request if it is still running (else ignore it)."""
        mid = params.get("requestId")
        stop = self.working.get(mid)
        self.note(event="cancelled", id=mid, tool=self.names.get(mid), running=stop is not None)
        if stop is not None:
            stop.set()


def text(value: str, *, error: bool = False) -> dict:
    return {"content": [{"type": "text", "text": value}], "isError": error}


def call(name: str, args: dict, tools: list[dict]) -> dict | None:
    if name == "echo":
        return text(str(args.get("text", "")))
    if name == "delete":
        return text(f"deleted {args.get('what')}")
    if name == "crash":
        sys.stderr.write("crashing on purpose\n")
        sys.stderr.flush()
        os._exit(7)
    if name == "fail":
        return text("the thing you asked for does not exist", error=True)
    if name == "image":
        return {"content": [{"type": "image", "data": PNG, "mimeType": "image/png"}]}
    if name == "noisy":
        print("debug: a stray line on stdout", flush=True)
        return text("answered after the noise")
    if name == "add_tool":
        tools.append(tool(str(args["name"]), "Added at run time.", readOnlyHint=True))
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        return text("added")
    if name == "remove_tool":
        tools[:] = [t for t in tools if t["name"] != args["name"]]
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        return text("removed")
    if name == "where":
        return text(json.dumps({"cwd": os.getcwd(), "tmp": os.environ.get("TMPDIR")}))
    if any(t["name"] == name for t in tools):
        return text(f"{name} ran")
    return None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--exit-at-start", type=int)
    parser.add_argument("--hang", action="store_true")
    parser.add_argument("--linger", action="store_true")
    parser.add_argument("--garbage", action="store_true")
    parser.add_argument("--tools", type=int, default=0)
    parser.add_argument("--page", type=int, default=100)
    parser.add_argument("--pid-file")
    parser.add_argument("--fail-relist", action="store_true")
    parser.add_argument("--record")
    opts = parser.parse_args()
    if opts.pid_file:
        with open(opts.pid_file, "w") as f:
            f.write(str(os.getpid()))
    if opts.exit_at_start is not None:
        sys.stderr.write("cannot start: missing configuration\n")
        sys.exit(opts.exit_at_start)
    if opts.garbage:
        print("Starting tiny server v1 ...", flush=True)
    listed = False
    calls = Calls(opts.record)
    tools = BASE + [
        tool(f"t{i:03d}", f"Extra tool number {i}.", readOnlyHint=True) for i in range(opts.tools)
    ]
    for line in sys.stdin:
        if opts.hang or not line.strip():
            continue
        message = json.loads(line)
        method, mid = message.get("method"), message.get("id")
        params = message.get("params") or {}
        if method == "notifications/cancelled":
            calls.cancel(params)
        if mid is None:
            continue  # a notification
        if method == "initialize":
            result: dict = {
                "protocolVersion": params.get("protocolVersion"),
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "tiny", "version": "1"},
            }
        elif method == "tools/list" and listed and opts.fail_relist and not params.get("cursor"):
            send(
                {"jsonrpc": "2.0", "id": mid, "error": {"code": -32603, "message": "listing is broken today"}}
            )
            continue
        elif method == "tools/list":
            start = int(params.get("cursor") or 0)
            result = {"tools": tools[start : start + opts.page]}
            if start + opts.page < len(tools):
                result["nextCursor"] = str(start + opts.page)
            else:
                listed = True
        elif method == "tools/call":
            calls.names[mid] = params["name"]
            calls.note(event="call", id=mid, tool=params["name"])
            if params["name"] == "work":
                calls.work(mid, float((params.get("arguments") or {}).get("seconds", 0)))
                continue
            found = call(params["name"], params.get("arguments") or {}, tools)
            if params["name"] == "rpc_error" or found is None:
                send(
                    {
                        "jsonrpc": "2.0",
                        "id": mid,
                        "error": {"code": -32602, "message": f"no tool {params['name']}"},
                    }
                )
                continue
            result = found
        elif method == "ping":
            result = {}
        else:
            send(
                {
                    "jsonrpc": "2.0",
                    "id": mid,
                    "error": {"code": -32601, "message": f"unknown method {method}"},
                }
            )
            continue
        send({"jsonrpc": "2.0", "id": mid, "result": result})
    while opts.linger:
        time.sleep(3600)


if __name__ == "__main__":
    main()
