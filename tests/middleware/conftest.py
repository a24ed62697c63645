"""A project whose config names a recording middleware and two tools of its own.

The middleware (`recorder.py`, beside the config) appends one JSON line per call it sees to the
file `$MW_LOG` names: the tool, the call id, the arguments it passes on and the session. It
rewrites `shout`'s text (adds "!"), and answers `forbidden` itself: that tool, run, would write
the file RAN.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

TOOLS = '''
import json
import os
from pathlib import Path

from tooldeck import ToolContext, tool


@tool
def shout(text: str, ctx: ToolContext) -> str:
    """Upper-case the text."""
    with open(os.environ["MW_LOG"] + ".ctx", "a", encoding="utf-8") as log:
        where = {"workspace": str(ctx.workspace), "home": str(ctx.home), "session": ctx.session_id}
        log.write(json.dumps(where) + "\\n")
    return text.upper()


@tool
def forbidden() -> str:
    """Must never run: a middleware answers for it."""
    Path(__file__).with_name("RAN").write_text("ran")
    return "ran"
'''

RECORDER = """
import json
import os

from tooldeck import ToolResult


class Recorder:
    async def on_call(self, call, call_next):
        if call.name == "shout":
            call = call.replace(arguments={**call.arguments, "text": call.arguments["text"] + "!"})
        with open(os.environ["MW_LOG"], "a", encoding="utf-8") as log:
            seen = {"name": call.name, "id": call.id, "arguments": call.arguments, "session": call.session_id}
            log.write(json.dumps(seen) + "\\n")
        if call.name == "forbidden":
            return ToolResult(call_id=call.id, name=call.name, content="short-circuited")
        return await call_next(call)
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "mytools.py").write_text(TOOLS)
    (root / "recorder.py").write_text(RECORDER)
    (root / "tooldeck.yaml").write_text(
        f"home: {tmp_path / 'home'}\n"
        "sandbox: {workspace: ., kind: bwrap}\n"
        "tools: [{use: 'mytools:shout'}, {use: 'mytools:forbidden'}]\n"
        "middleware: [{use: 'recorder:Recorder'}]\n"
    )
    monkeypatch.setenv("MW_LOG", str(tmp_path / "mw.jsonl"))
    return root


def contexts(project: Path) -> list[dict[str, str]]:
    """What `shout` saw of its ToolContext on each call: workspace, home, session."""
    return [{k: str(v) for k, v in record.items()} for record in seen(project, ".ctx")]


def seen(project: Path, suffix: str = "") -> list[dict[str, object]]:
    log = Path(os.environ["MW_LOG"] + suffix)
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]
