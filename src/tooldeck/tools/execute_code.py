"""`execute_code`: run a Python program in the sandbox; it may call the other exposed tools.

The program runs as a subprocess of the same Python, in the same sandbox as `terminal` (the
workspace writable, nothing else; no network unless `sandbox.network`), with a timeout that
kills it and everything it started, and with its output capped like a command's. Before it
runs, the safety policy analyses the code as the program it is (`os.system('rm -rf ~')` is
caught). The program imports `tooldeck_tools` to call tools: each call goes through the same
executor as the model's own calls, approvals included. The description lists exactly the
tools the program may call: those exposed to the model right now, except this tool and tools
that need the user.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Annotated

from tooldeck.core import Bounds, DescriptionContext, Tool, ToolContext, ToolOutput, tool
from tooldeck.errors import ToolError
from tooldeck.tools.effects import run_judged
from tooldeck.tools.terminal import (
    DEFAULT_TIMEOUT_S,
    MAX_TIMEOUT_S,
    command_limit,
    confinement,
    report,
    runner,
    sandbox_settings,
)

HELPER_MODULE = "tooldeck_tools"
INTRO = (
    "Run a Python 3 program and return its output (stdout and stderr) and exit code. Use it for "
    "computations, data processing, and for chaining many tool calls in one step. Its working "
    "directory is the workspace."
)


# This tool's owner: a program never calls execute_code itself, whatever name it has.
EXECUTE_CODE = "tooldeck.tools.execute_code:execute_code"


def callable_tools(tools: dict[str, Tool] | None, exposed: frozenset[str], me: str) -> list[str]:
    """The tools a program may call: the exposed ones, minus this tool and interactive ones."""
    found = []
    for name in sorted(exposed):
        t = (tools or {}).get(name)
        if name == me or (t is not None and (t.interactive or t.owner == EXECUTE_CODE)):
            continue
        found.append(name)
    return found


def _description(ctx: DescriptionContext) -> str:
    names = callable_tools(dict(ctx.tools), ctx.exposed, "execute_code")
    intro = f"{INTRO} {confinement(ctx)}"
    if not names:
        return intro + " No other tools can be called from the program."
    listed = ", ".join(names)
    example = names[0]
    return (
        f"{intro} The program can call these tools: {listed}. Import them from the module "
        f"`{HELPER_MODULE}` (`from {HELPER_MODULE} import {example}`) and call them with keyword "
        f"arguments, or use `call(name, **arguments)`; each returns the tool's text result and "
        "raises `ToolCallError` when the call fails. Tool calls made this way need the same "
        "approvals as direct ones."
    )


# Sequential: the program may call any tool, so it does not overlap the batch's other calls.
@tool(
    toolset="code_execution",
    shell=True,
    destructive=True,
    sequential=True,
    timeout=MAX_TIMEOUT_S,
    needs_workspace=True,
)
def execute_code(
    code: str,
    timeout: Annotated[int, Bounds(1, MAX_TIMEOUT_S)] = DEFAULT_TIMEOUT_S,
    context: ToolContext | None = None,
) -> ToolOutput:
    """Run a Python program.

    Args:
        code: The complete Python 3 program.
        timeout: Seconds before the program and everything it started are killed.
    """
    if not code.strip():
        raise ToolError("code is empty; give a Python program to run", retryable=True)
    from tooldeck.core import ToolCaller
    from tooldeck.tools.execute_code_rpc import RpcServer, helper_source

    caller = context.get(ToolCaller) if context is not None else None
    me = context.tool_name if context is not None else "execute_code"
    exposed = {t.name: t for t in caller.exposed} if caller is not None else {}
    names = callable_tools(exposed, frozenset(exposed), me)
    limit = command_limit(context, timeout)
    timeout_s = limit.run_s
    folder = Path(tempfile.mkdtemp(prefix="tooldeck-code-"))
    server = RpcServer(caller, names) if caller is not None else None
    try:
        (folder / "main.py").write_text(code, encoding="utf-8")
        (folder / f"{HELPER_MODULE}.py").write_text(helper_source(names), encoding="utf-8")
        settings = sandbox_settings(context, timeout_s)
        if os.geteuid() == 0:  # the sandbox runs as settings.uid, which must read the program
            os.chown(folder, settings.uid, settings.uid)
        env = {
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONUNBUFFERED": "1",
            **(server.environment if server else {}),
        }
        python = Path(sys.executable)
        visible = (folder, python.parent, Path(sys.prefix), Path(sys.base_prefix))
        settings = replace(settings, env={**settings.env, **env}, read_only=(*settings.read_only, *visible))
        chosen = runner(context, settings)
        cancel = context.cancelled if context is not None else None
        if server is not None:
            server.start()
        argv = [str(python), "-B", str(folder / "main.py")]
        fds = server.child_fds if server is not None else ()
        # Judged by a look before and after, not in a copy-on-write view: the program's tool calls
        # act on the workspace itself and must see what the program did (tools/effects.py).
        judged = run_judged(
            context, chosen, argv, timeout_s=timeout_s, cancel=cancel, subject=code, pass_fds=fds, view=False
        )
    finally:
        if server is not None:
            server.child_started()  # the child has ended: its requests end too
            server.close()
        shutil.rmtree(folder, ignore_errors=True)
    return report(judged.result, limit, "program", landed=judged.landed)


execute_code = execute_code.with_options(description=_description, calls_tools=True)
