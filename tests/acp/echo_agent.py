"""A small ACP agent for the tests, written with the agent-client-protocol SDK.

What it does depends on the prompt's first word:
- `echo TEXT`: answers "echo: TEXT" in two streamed chunks (and says which folder it runs in);
- `write NAME`: asks permission to write NAME; when allowed writes it in its working directory
  and answers "wrote NAME", otherwise answers "not allowed to write NAME";
- `sleep`: starts a grandchild `sleep 300` (its pid written to `sleeper.pid`), then never answers;
- `fswrite PATH TEXT`: writes TEXT to PATH (relative to its folder unless absolute) through the
  client's `fs/write_text_file`, answering "fs wrote PATH" or "fs refused PATH: CODE MESSAGE";
  `fswrite` with several `PATH=TEXT` words separated by ` ; ` writes each in turn;
- `fsread PATH [LINE LIMIT]`: reads through `fs/read_text_file`, answering the text or the refusal;
- `caps`: answers the file system capabilities the client declared, as "read=B write=B";
- `crash`: exits with code 7 in the middle of the turn, after a message on stderr.
With `--fail-start` it exits with code 3 before answering `initialize`.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, run_agent, text_block, update_agent_message
from acp.schema import (
    AgentCapabilities,
    InitializeResponse,
    NewSessionResponse,
    PermissionOption,
    PromptResponse,
    ToolCallUpdate,
)


class EchoAgent:
    def __init__(self) -> None:
        self.conn: Any = None
        self.cwd = "."

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        self.capabilities = kwargs.get("client_capabilities")
        return InitializeResponse(protocol_version=PROTOCOL_VERSION, agent_capabilities=AgentCapabilities())

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        self.cwd = cwd
        return NewSessionResponse(session_id="s1")

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        Path(self.cwd, "cancelled.flag").write_text("yes")

    async def say(self, session_id: str, text: str) -> None:
        await self.conn.session_update(session_id=session_id, update=update_agent_message(text_block(text)))

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        text = "".join(getattr(block, "text", "") for block in prompt)
        word, _, rest = text.partition(" ")
        if word == "echo":
            await self.say(session_id, "echo: ")
            await self.say(session_id, f"{rest} (in {os.path.basename(os.getcwd())})")
        elif word == "write":
            await self.write(session_id, rest.strip())
        elif word == "sleep":
            child = subprocess.Popen(["sleep", "300"])
            Path(self.cwd, "sleeper.pid").write_text(str(child.pid))
            await asyncio.sleep(3600)
        elif word == "fswrite":
            for item in rest.split(" ; "):
                target, _, content = item.partition(" ")
                await self.fs(
                    session_id,
                    "wrote",
                    target,
                    lambda p, c=content: self.conn.write_text_file(session_id=session_id, path=p, content=c),
                )
        elif word == "fsread":
            target, *window = rest.split()
            line, limit = (int(window[0]), int(window[1])) if window else (None, None)

            async def read(p: str) -> Any:
                return await self.conn.read_text_file(session_id=session_id, path=p, line=line, limit=limit)

            await self.fs(session_id, "read", target, read)
        elif word == "caps":
            fs = getattr(self.capabilities, "fs", None)
            await self.say(
                session_id,
                f"read={getattr(fs, 'read_text_file', None)} write={getattr(fs, 'write_text_file', None)}",
            )
        elif word == "crash":
            await self.say(session_id, "about to crash")
            print("agent: something went badly wrong", file=sys.stderr, flush=True)
            os._exit(7)
        else:
            await self.say(session_id, f"unknown command {word!r}")
        return PromptResponse(stop_reason="end_turn")

    async def fs(self, session_id: str, verb: str, target: str, request: Any) -> None:
        path = target if os.path.isabs(target) else os.path.join(self.cwd, target)
        try:
            response = await request(path)
        except Exception as exc:  # the client's refusal: a JSON-RPC error
            await self.say(session_id, f"fs refused {target}: {getattr(exc, 'code', '?')} {exc}\n")
            return
        content = getattr(response, "content", None)
        await self.say(
            session_id, content if verb == "read" and content is not None else f"fs {verb} {target}\n"
        )

    async def write(self, session_id: str, name: str) -> None:
        options = [
            PermissionOption(option_id="yes", name="Allow", kind="allow_once"),
            PermissionOption(option_id="no", name="Reject", kind="reject_once"),
        ]
        call = ToolCallUpdate(tool_call_id="t1", title=f"Write {name}", kind="edit")
        answer = await self.conn.request_permission(session_id=session_id, tool_call=call, options=options)
        outcome = answer.outcome
        if getattr(outcome, "option_id", None) == "yes":
            Path(self.cwd, name).write_text("written by the agent\n")
            await self.say(session_id, f"wrote {name}")
        else:
            await self.say(session_id, f"not allowed to write {name}")


if __name__ == "__main__":
    if "--fail-start" in sys.argv:
        print("agent: cannot start (missing credentials)", file=sys.stderr, flush=True)
        sys.exit(3)
    asyncio.run(run_agent(EchoAgent()))
