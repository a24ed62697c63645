"""`terminal`: run a shell command in the workspace, inside the sandbox, in the toolset `terminal`.

Before a command runs, the executor's safety policy analyses it: a blocked command is refused, a
flagged one needs approval (bound to the exact normalised command), a safe one runs. The command
then runs with `bash -c` in the workspace root: inside bubblewrap when it works here (read-only
system, writable workspace, private /tmp, empty home folders, no network unless
`sandbox.network`), on the host only with `sandbox.allow_host_shell`. Standard output and error
are merged and capped (the head and the tail are kept); at the timeout, or when the call is
stopped, the command and every process it started are killed. The result ends with a status
line: the exit code, the time taken and where it ran.

Without a sandbox configured (`sandbox.kind: bwrap`) or `allow_host_shell`, the host-shell gate
hides this tool from the model.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from tooldeck.config import Config, ExecutionConfig
from tooldeck.context import ToolContext
from tooldeck.control_plane import ControlPlane
from tooldeck.decorator import Bounds, tool
from tooldeck.errors import ToolError
from tooldeck.home import tooldeck_home
from tooldeck.tool import DescriptionContext
from tooldeck.workspace import Workspace

if TYPE_CHECKING:
    from tooldeck.safety.capture import RunResult
    from tooldeck.safety.sandbox import CommandRunner, SandboxSettings

# The most a single command may take (its `timeout` argument is capped by this and by the
# executor's limits), and what it gets when the model does not say.
MAX_TIMEOUT_S = 1800
DEFAULT_TIMEOUT_S = 120
OUTPUT_LIMIT = 64 * 1024


def sandbox_settings(context: ToolContext | None, timeout_s: float) -> SandboxSettings:
    """The sandbox a call of a shell tool runs in, from the config the executor runs under."""
    from tooldeck.safety.sandbox import SandboxSettings

    config = (context.get(Config) if context is not None else None) or Config()
    workspace = (context.get(Workspace) if context is not None else None) or Workspace.of(config.workspace)
    plane = workspace.plane or ControlPlane.of(config, workspace.root)
    return SandboxSettings(
        workspace.root,
        network=config.sandbox.network,
        timeout_s=timeout_s,
        output_limit=OUTPUT_LIMIT,
        hidden=tuple(Path(p) for p in plane.hidden),
        protected=(*plane.sandbox_paths(), *plane.unborn_hidden()),
    )


def command_timeout(context: ToolContext | None, requested: float) -> float:
    """The command's own timeout: what was asked, ending a little before the executor's deadline
    so the result can still say what happened."""
    limits = (context.get(ExecutionConfig) if context is not None else None) or ExecutionConfig()
    deadline = limits.timeout_for(MAX_TIMEOUT_S)
    return max(0.1, min(float(requested), deadline - 0.5 if deadline > 1 else deadline * 0.9))


def runner(context: ToolContext | None, settings: SandboxSettings) -> CommandRunner:
    """The sandbox runner, or the host runner when host shells are allowed and bwrap cannot run."""
    from tooldeck.safety.probe import probe_bwrap_cached
    from tooldeck.safety.sandbox import SandboxUnavailable, runner_for

    config = (context.get(Config) if context is not None else None) or Config()
    # The probe remembered in the home (as the host-shell gate left it) saves a sandbox start.
    probe = probe_bwrap_cached(tooldeck_home(config.home, base_dir=config.base_dir) / "cache")
    try:
        return runner_for(settings, allow_host=config.sandbox.allow_host_shell, probe=probe)
    except SandboxUnavailable as exc:
        raise ToolError(str(exc), type="unavailable") from None


def report(result: RunResult, timeout_s: float) -> str:
    """The output, then a status line the model can rely on."""
    where = "sandboxed" if result.sandboxed else "on the host"
    if result.timed_out:
        status = f"timed out after {timeout_s:g} s: the command and its child processes were killed"
    else:
        status = f"exit code {result.exit_code}"
    body = result.output if result.output.strip() else "(no output)\n"
    if not body.endswith("\n"):
        body += "\n"
    return f"{body}[{status}; {result.duration_s:.2f} s; {where}]"


def confinement(ctx: DescriptionContext) -> str:
    """What a shell tool's description says about where it runs, from the config."""
    sandbox = ctx.config.sandbox if ctx.config is not None else Config().sandbox
    net = "the network is reachable" if sandbox.network else "there is no network"
    jail = f"only the workspace is writable, /tmp is private and emptied afterwards, and {net}"
    if sandbox.kind == "bwrap" and not sandbox.allow_host_shell:
        return f"It runs in a sandbox: {jail}."
    return f"It runs in a sandbox when bubblewrap works here ({jail}); otherwise directly on this machine."


def _description(ctx: DescriptionContext) -> str:
    return (
        "Run a shell command (bash) in the workspace root and return its output and exit code. "
        f"{confinement(ctx)} Dangerous commands are refused or need the user's approval. "
        "Background processes do not outlive the command."
    )


@tool(toolset="terminal", shell=True, destructive=True, timeout=MAX_TIMEOUT_S, needs_workspace=True)
def terminal(
    command: str,
    timeout: Annotated[int, Bounds(1, MAX_TIMEOUT_S)] = DEFAULT_TIMEOUT_S,
    context: ToolContext | None = None,
) -> str:
    """Run a shell command.

    Args:
        command: The command line, e.g. `ls -la src` or `pytest -q tests/test_api.py`.
        timeout: Seconds before the command and everything it started are killed.
    """
    if not command.strip():
        raise ToolError("command is empty; give a shell command to run", retryable=True)
    timeout_s = command_timeout(context, timeout)
    settings = sandbox_settings(context, timeout_s)
    chosen = runner(context, settings)
    cancel = context.cancelled if context is not None else None
    result = chosen.run(command, timeout_s=timeout_s, cancel=cancel)
    return report(result, timeout_s)


terminal = terminal.with_options(description=_description)
