"""`terminal`: run a shell command in the workspace, inside the sandbox, in the toolset `terminal`.

Before a command runs, the executor's safety policy analyses it: a blocked command is refused, a
flagged one needs approval (bound to the exact normalised command), a safe one runs. The command
then runs with `bash -c` in the workspace root: inside bubblewrap when it works here (read-only
system, writable workspace, private /tmp, empty home folders, no network unless
`sandbox.network`), on the host only with `sandbox.allow_host_shell`. Standard output and error
are merged and capped (the head and the tail are kept); at the timeout, or when the call is
stopped, the command and every process it started are killed. The result ends with a status
line: the exit code (also the result's `meta.exit_code`), the time taken and where it ran; a
command killed at its timeout is a `timeout` error that keeps the output so far.

Without a sandbox configured (`sandbox.kind: bwrap`) or `allow_host_shell`, the host-shell gate
hides this tool from the model.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from tooldeck.core import (
    Bounds,
    DescriptionContext,
    ExecutionConfig,
    SandboxConfig,
    ToolContext,
    ToolOutput,
    Workspace,
    service,
    tool,
)
from tooldeck.errors import ToolError

if TYPE_CHECKING:
    from tooldeck.safety.sandbox.bubblewrap import CommandRunner, SandboxSettings
    from tooldeck.safety.sandbox.capture import RunResult

# The most a single command may take (its `timeout` argument is capped by this and by the
# executor's limits), and what it gets when the model does not say.
MAX_TIMEOUT_S = 1800
DEFAULT_TIMEOUT_S = 120
OUTPUT_LIMIT = 64 * 1024


def sandbox_settings(context: ToolContext | None, timeout_s: float) -> SandboxSettings:
    """The sandbox a call of a shell tool runs in, from the config the executor runs under."""
    from tooldeck.safety.sandbox.bubblewrap import SandboxLimits, SandboxSettings

    sandbox = service(context, SandboxConfig)
    workspace = service(context, Workspace)
    plane = workspace.plane
    if plane is None:
        raise ToolError(
            f"the workspace {workspace.root} has no protected and hidden sets; run this tool through "
            "tooldeck's executor (deck.call, tooldeck call, an agent), which gives them"
        )
    return SandboxSettings(
        workspace.root,
        network=sandbox.network,
        timeout_s=timeout_s,
        output_limit=OUTPUT_LIMIT,
        hidden=tuple(Path(p) for p in plane.hidden),
        protected=(*plane.sandbox_paths(), *plane.unborn_hidden()),
        placeholder_texts=plane.placeholder_texts(),
        limits=SandboxLimits(**dataclasses.asdict(sandbox.limits)),
        uid=sandbox.uid,
    )


@dataclass(frozen=True, slots=True)
class CommandLimit:
    """How long a command may run: what was asked, and what it is given."""

    # The limit that applies: the `timeout` argument, or the call's time limit when lower.
    asked_s: float
    # True when the `timeout` argument set `asked_s`, False when the call's time limit did.
    by_argument: bool
    # What the command runs for: a little less than the call's limit, so the result can still
    # say what happened before the executor's own deadline passes.
    run_s: float
    # The call's time limit (the executor's deadline for this tool).
    call_s: float


def command_limit(context: ToolContext | None, requested: float) -> CommandLimit:
    """The command's own timeout, from the `timeout` argument and the executor's limits."""
    deadline = service(context, ExecutionConfig).timeout_for(MAX_TIMEOUT_S)
    margin = deadline - 0.5 if deadline > 1 else deadline * 0.9
    run_s = max(0.1, min(float(requested), margin))
    if requested <= deadline:
        return CommandLimit(float(requested), True, run_s, deadline)
    return CommandLimit(deadline, False, run_s, deadline)


def runner(context: ToolContext | None, settings: SandboxSettings) -> CommandRunner:
    """The sandbox runner, or the host runner when host shells are allowed and bwrap cannot run."""
    from tooldeck.safety.sandbox.bubblewrap import SandboxUnavailable
    from tooldeck.safety.sandbox.probe import probe_bwrap_cached, runner_for

    sandbox = service(context, SandboxConfig)
    home = context.home if context is not None else None
    if home is None:
        raise ToolError(
            "this tool needs the tooldeck home of the call it serves; run it through tooldeck's "
            "executor (deck.call, tooldeck call, an agent), not by calling its handler"
        )
    # The probe remembered in the home (as the host-shell gate left it) saves a sandbox start.
    probe = probe_bwrap_cached(home / "cache")
    try:
        return runner_for(settings, allow_host=sandbox.allow_host_shell, probe=probe)
    except SandboxUnavailable as exc:
        raise ToolError(str(exc), type="unavailable") from None


def report(result: RunResult, limit: CommandLimit, what: str = "command", *, landed: str = "") -> ToolOutput:
    """The output, then a status line the model can rely on; its exit code in `meta`.

    A command killed at its time limit is no result: it raises a `timeout` error that names the
    limit that was asked and keeps the output so far. One that ran into a resource limit of the
    sandbox is an error naming that limit, with its output."""
    where = "sandboxed" if result.sandboxed else "on the host"
    body = result.output if result.output.strip() else "(no output)\n"
    if not body.endswith("\n"):
        body += "\n"
    if landed:  # what of the command's effects reached the workspace (see tools/effects.py)
        body += landed + "\n"
    if result.limit is not None:
        ended = "it was killed at its time limit" if result.timed_out else f"exit code {result.exit_code}"
        raise ToolError(f"{result.limit}; {ended}", output=body)
    if result.timed_out:
        # A longer `timeout` can help only when the call's own limit leaves room for one.
        longer = limit.by_argument and limit.asked_s < limit.call_s
        raise ToolError(_timed_out(limit, what), type="timeout", retryable=longer, output=body)
    status = f"exit code {result.exit_code}"
    text = f"{body}[{status}; {result.duration_s:.2f} s; {where}]"
    return ToolOutput(text, meta={"exit_code": result.exit_code})


def _timed_out(limit: CommandLimit, what: str) -> str:
    killed = f"the {what} did not finish within {{}} and was killed, with every process it started"
    if limit.by_argument:
        text = killed.format(f"its timeout of {limit.asked_s:g} s")
        if limit.asked_s < limit.call_s:
            text += f"; give a larger timeout (up to {limit.call_s:g}) if it needs longer"
        return text
    where = "execution.max_timeout_s, or tooldeck call --timeout"
    return killed.format(f"the call's time limit of {limit.asked_s:g} s ({where})")


def confinement(ctx: DescriptionContext) -> str:
    """What a shell tool's description says about where it runs, from the config."""
    if ctx.config is None:  # described without a config: nothing to say about its sandbox yet
        return (
            "It runs in the sandbox the configuration sets up (`sandbox:`), or on this machine if it allows."
        )
    sandbox = ctx.config.sandbox
    net = "the network is reachable" if sandbox.network else "there is no network"
    caps = sandbox.limits
    jail = (
        f"only the workspace is writable, /tmp is private and emptied afterwards, {net}, and it may "
        f"run up to {caps.processes} processes, each with {caps.memory_mb} MiB of memory and "
        f"{caps.cpu_s} s of CPU, and write files up to {caps.file_size_mb} MiB, {caps.disk_mb} MiB in all"
    )
    if sandbox.kind == "bwrap" and not sandbox.allow_host_shell:
        return f"It runs in a sandbox: {jail}."
    return f"It runs in a sandbox when bubblewrap works here ({jail}); otherwise directly on this machine."


def _description(ctx: DescriptionContext) -> str:
    held = (
        " Its changes to the workspace are checked before they land: a command that would delete many "
        "files or touch protected ones is stopped for the user's approval, and the rest can be undone."
        if ctx.config is not None and ctx.config.effects.enabled
        else ""
    )
    return (
        "Run a shell command (bash) in the workspace root and return its output and exit code. "
        f"{confinement(ctx)}{held} Dangerous commands are refused or need the user's approval. "
        "Background processes do not outlive the command."
    )


@tool(toolset="terminal", shell=True, destructive=True, timeout=MAX_TIMEOUT_S, needs_workspace=True)
def terminal(
    command: str,
    timeout: Annotated[int, Bounds(1, MAX_TIMEOUT_S)] = DEFAULT_TIMEOUT_S,
    context: ToolContext | None = None,
) -> ToolOutput:
    """Run a shell command.

    Args:
        command: The command line, e.g. `ls -la src` or `pytest -q tests/test_api.py`.
        timeout: Seconds before the command and everything it started are killed.
    """
    if not command.strip():
        raise ToolError("command is empty; give a shell command to run", retryable=True)
    limit = command_limit(context, timeout)
    settings = sandbox_settings(context, limit.run_s)
    chosen = runner(context, settings)
    cancel = context.cancelled if context is not None else None
    from tooldeck.tools.effects import run_judged

    judged = run_judged(
        context,
        chosen,
        [settings.shell, "-c", command],
        timeout_s=limit.run_s,
        cancel=cancel,
        subject=command,
    )
    return report(judged.result, limit, landed=judged.landed)


terminal = terminal.with_options(description=_description)
