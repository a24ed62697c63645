"""Every public exception of tooldeck, in two families.

    TooldeckError                 -- something is wrong (user misuse, bad config, tool or provider failure)
      ├── ToolDefinitionError     -- a Tool, @prompt or @resource could not be built (bad name, schema)
      ├── ToolConflictError       -- two owners claim one tool name (prompt name, resource URI)
      ├── ConfigError             -- the configuration is invalid (carries the key path)
      │     ├── UnknownPlatformError  -- a platform no config names ("did you mean ...")
      │     ├── ModelNotConfigured    -- no model endpoint, key or name to call
      │     └── ShellPolicyError      -- a shell block/approve list names an unknown rule
      ├── SourceError             -- a `use:` entry, plugin, package or server could not be loaded
      ├── ToolsetError            -- unknown toolset or include cycle (strict mode)
      ├── DialectError            -- an unknown dialect, or tools a dialect cannot carry
      ├── ArgumentsError          -- a declared prompt or resource got arguments it cannot take
      ├── RenderError             -- a declared prompt or resource function failed or returned a bad value
      ├── ToolError               -- raised by a handler: a clean failure the model is told about
      │     ├── ToolUnavailableError  -- what the tool needs is gone right now
      │     ├── WorkspaceError        -- a path outside the workspace (reported as `denied`)
      │     ├── AddressDenied         -- a URL's host is an address the web policy refuses
      │     ├── ProtocolError         -- the request itself failed (serve: a JSON-RPC error)
      │     └── StartupFailed         -- an ACP agent did not start or open a session
      ├── ModelError              -- a model provider call failed
      ├── SessionError            -- an unknown session id, or an unusable session database
      │     └── DecisionError         -- a decision for a call that is not waiting (unknown, decided, untrusted)
      ├── StoreError              -- a grants file or audit log that cannot be used safely
      ├── CheckpointError         -- a checkpoint store or id that cannot be used
      │     └── CheckpointConflict    -- undo would overwrite later changes (names each file)
      ├── Refused                 -- a path a confined root does not allow (escape, symlink, loop)
      ├── SandboxUnavailable      -- no sandbox can run here and host shells are not allowed
      ├── ProgramTableError       -- the shell analyser's program table or rule examples are malformed
      ├── ListenError             -- `tooldeck serve` cannot listen where it was asked to
      ├── BatchInputError         -- a batch run cannot start as asked (input, output)
      ├── BatchRunError           -- a batch run itself failed (workers, engine)
      ├── CatalogError            -- a search catalog could not be read or is invalid
      ├── SemanticUnavailable     -- the semantic ranker's model files are not installed
      ├── SearchUsageError        -- `tooldeck search` was called wrongly (exit status 2)
      └── ScriptExhausted         -- a ScriptedModel was asked for more replies than it has

    TooldeckSignal                -- control flow, not failure
      ├── CallRejected            -- a call is answered with an error before it runs
      └── ApprovalPending         -- a call waits for a decision nobody can give now (the run stops)

Signals steer the run and are caught by the layer that raised them; errors are reported to the
user, or, for tool failures, to the model as an `ErrorEnvelope` (the record defined here).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

ErrorType = Literal[
    "invalid_arguments",
    "unknown_tool",
    "timeout",
    "tool_error",
    "denied",
    "not_promoted",
    "unavailable",
    "cancelled",
]
"""What kind of failure a tool call ended in: the `type` of its `ErrorEnvelope`."""

ModelErrorKind = Literal[
    "auth",
    "not_found",
    "context_length",
    "rate_limit",
    "server",
    "connection",
    "timeout",
    "bad_request",
    "bad_response",
]
"""What went wrong with a model provider call: the `kind` of a `ModelError`."""
RETRYABLE_MODEL_ERRORS: frozenset[str] = frozenset({"rate_limit", "server", "connection", "timeout"})


@dataclass(frozen=True, slots=True)
class ErrorEnvelope:
    """What the model is told when a call fails: one envelope for every kind of failure."""

    type: ErrorType
    message: str
    tool: str
    retryable: bool = False
    # What the tool produced before it failed (a killed command's output so far), or None.
    output: str | None = None

    def envelope(self) -> dict[str, Any]:
        error: dict[str, Any] = {
            "type": self.type,
            "message": self.message,
            "tool": self.tool,
            "retryable": self.retryable,
        }
        if self.output is not None:
            error["output"] = self.output
        return {"error": error}

    def to_json(self) -> str:
        return json.dumps(self.envelope(), ensure_ascii=False)


class TooldeckError(Exception):
    """Root of every tooldeck error."""


class ToolDefinitionError(TooldeckError, ValueError):
    """A tool definition (or a `@prompt`, a `@resource`) is invalid; the message says what and why."""


class ToolConflictError(TooldeckError):
    """Two owners claim the same tool name within one kind of source, or one deck's prompt name or
    resource URI."""

    def __init__(self, message: str, *, name: str = "", owners: tuple[str, str] = ("", "")) -> None:
        super().__init__(message)
        self.name = name
        self.owners = owners


class ConfigError(TooldeckError):
    """The configuration is invalid.

    `path` is the dotted key path (``sandbox.kind``, ``tools[2].use``) when one is known.
    """

    def __init__(self, message: str, *, path: str | None = None) -> None:
        self.path = path
        self.detail = message
        super().__init__(f"{path}: {message}" if path else message)


class UnknownPlatformError(ConfigError):
    """A platform the config does not define: not a key of `platform_toolsets` (without any, not `cli`)."""


class ModelNotConfigured(ConfigError):
    """No endpoint, key or model name to call: the message says how to point at one."""


class ShellPolicyError(ConfigError, ValueError):
    """A shell policy names a rule or category that does not exist, or names one in both lists."""


class SourceError(TooldeckError):
    """A tool source (a `use:` reference, a plugin, a package, a server) could not be loaded."""


class ToolsetError(TooldeckError):
    """A toolset name is unknown or toolsets include each other in a cycle (strict mode)."""


class DialectError(TooldeckError, ValueError):
    """An unknown dialect name, or a set of tools one request cannot carry."""


class ArgumentsError(TooldeckError, ValueError):
    """A declared prompt or resource template was given arguments it cannot take: a required one
    missing (`missing` names them), one it does not declare, or a value not of the parameter's type."""

    def __init__(self, message: str, *, missing: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.missing = missing


class RenderError(TooldeckError):
    """A declared prompt or resource function raised (chained as the cause), or returned what a
    prompt or a resource cannot be; the message names the declaration and what went wrong."""


class ToolError(TooldeckError):
    """Raised by a handler for a clean failure: the message goes to the model as is, no traceback.

    `type` picks the envelope type (`tool_error`, `denied`, `unavailable`, ...) and `retryable`
    tells the model whether trying again (possibly with other arguments) may help. `output` is
    what the tool produced before it failed (a killed command's output so far), kept in the
    envelope.
    """

    def __init__(
        self,
        message: str,
        *,
        type: ErrorType = "tool_error",
        retryable: bool = False,
        output: str | None = None,
    ) -> None:
        super().__init__(message)
        self.type: ErrorType = type
        self.retryable = retryable
        self.output = output


class ProtocolError(ToolError):
    """The request itself failed, not the tool's work (MCP's SDKs raise `MCPError` for this).

    Through `tooldeck serve` the `tools/call` is answered with the JSON-RPC error `code` (default
    -32603, internal error), `message` and `data`; a call running as a task ends `failed` with it
    (the tasks extension keeps `failed` for these, a tool's own error is `completed` with
    `isError`). Everywhere else it is an error result like any `ToolError`.
    """

    # The `meta` key of the call's result that carries {"code", "message", "data"}.
    META_KEY = "tooldeck.protocol_error"

    def __init__(self, message: str, *, code: int = -32603, data: Any = None) -> None:
        super().__init__(message, type="tool_error")
        self.code = code
        self.data = data


class ToolUnavailableError(ToolError):
    """What a tool needs is gone right now (server down, binary missing); maybe later."""

    def __init__(self, message: str, *, retryable: bool = True) -> None:
        super().__init__(message, type="unavailable", retryable=retryable)


class WorkspaceError(ToolError):
    """A path is outside the workspace (or unusable); reported to the model as `denied`."""

    def __init__(self, message: str) -> None:
        super().__init__(message, type="denied", retryable=True)


class ModelError(TooldeckError):
    """A model provider call failed. The message says what to check; `kind` says what happened."""

    def __init__(
        self,
        message: str,
        *,
        kind: ModelErrorKind,
        status: int | None = None,
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind: ModelErrorKind = kind
        self.status = status
        self.retry_after_s = retry_after_s

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE_MODEL_ERRORS


RefusalKind = Literal["escape", "symlink", "loop", "unstable"]
"""Why a confined root refused a path: the `kind` of a `Refused`."""


class Refused(TooldeckError):
    """A path a confined root does not allow (the file tools turn it into a WorkspaceError).

    `kind`: `escape` (a symlink, or `..`, leads outside the root), `symlink` (a symlink where the
    root allows none), `loop` (too many symlinks), `unstable` (an entry on the way kept turning
    from a symlink into something else and back while it was opened: another process is swapping
    it). `where` is the path, relative to the root, of
    the symlink at fault ("" when a `..` of the path itself climbs out).
    """

    def __init__(self, kind: RefusalKind, where: str) -> None:
        self.kind: RefusalKind = kind
        self.where = where
        super().__init__(f"{kind}: {where or '..'}")


class StoreError(TooldeckError):
    """A grants file or audit log that cannot be used safely; the message says why."""


class CheckpointError(TooldeckError):
    """A checkpoint store that cannot be used, or a checkpoint id that does not exist."""


class CheckpointConflict(CheckpointError):
    """Undo would overwrite changes made since the checkpoint (by the user or another program):
    nothing was restored. `paths` names each such file; `--force` (`force=True`) restores anyway."""

    def __init__(self, message: str, paths: list[str]) -> None:
        super().__init__(message)
        self.paths = paths


class SessionError(TooldeckError):
    """A session id that does not exist (or matches several), or an unusable session database."""


class DecisionError(SessionError, ValueError):
    """A decision (approve / deny / edit) that cannot be applied: the call id is not pending in
    the session (unknown, or decided already), the arguments of an edit are not an object, the
    stored pending call is not one tooldeck signed, or a request (the inspector's) that makes no
    decision (the message names the field). Nothing was run."""


class AddressDenied(ToolError):
    """A URL's host is, or resolves to, an address the policy refuses."""

    def __init__(self, message: str) -> None:
        super().__init__(message, type="denied")


class StartupFailed(ToolError):
    """The agent did not start, initialize or open a session."""

    def __init__(self, message: str) -> None:
        super().__init__(message, type="tool_error")


class SandboxUnavailable(TooldeckError):
    """No sandbox can run here and host shells are not allowed; the message says why."""


class ProgramTableError(TooldeckError, ValueError):
    """The shell analyser's table of programs or its rules' examples are malformed, or an example
    does not hold (the message names the entry and the line)."""


class ListenError(TooldeckError):
    """The HTTP server cannot listen where it was asked to (a port in use, an unknown host)."""


class BatchInputError(TooldeckError, ValueError):
    """The run cannot start as asked: a missing input, an output that is a folder, a link, another
    kind of file or already full."""


class BatchRunError(TooldeckError):
    """The run itself failed (workers cannot start, the engine is missing or went away)."""


class CatalogError(TooldeckError, ValueError):
    """A catalog could not be read or is invalid (not a list, an entry without a name, a duplicate)."""


class SemanticUnavailable(TooldeckError, RuntimeError):
    """The semantic ranker's model files are not installed; the message says how to get them."""


class SearchUsageError(TooldeckError, ValueError):
    """The search command line was used wrongly (missing query, unreadable file, bad option)."""


class ScriptExhausted(TooldeckError, AssertionError):
    """The loop asked the scripted model for more replies than the script has."""


class TooldeckSignal(Exception):
    """Root of control-flow signals."""


class CallRejected(TooldeckSignal):
    """A call is answered with an error before it runs; `error` is what the model is told."""

    def __init__(self, error: ErrorEnvelope) -> None:
        super().__init__(error.message)
        self.error = error


class ApprovalPending(TooldeckSignal):
    """A call needs consent that nobody can give right now, and the run can wait for it
    (`approvals.unattended: interrupt`): the call is not run and not refused; `pending` is what
    waits (call id, tool, arguments, rule, reason, subject, and its signature)."""

    def __init__(self, pending: dict[str, Any]) -> None:
        super().__init__(f"call {pending.get('call_id')} of {pending.get('tool')} awaits approval")
        self.pending = pending


__all__ = [
    "AddressDenied",
    "ApprovalPending",
    "ArgumentsError",
    "BatchInputError",
    "BatchRunError",
    "CallRejected",
    "CatalogError",
    "CheckpointConflict",
    "CheckpointError",
    "ConfigError",
    "DecisionError",
    "DialectError",
    "ErrorEnvelope",
    "ErrorType",
    "ListenError",
    "ModelError",
    "ModelErrorKind",
    "ModelNotConfigured",
    "ProtocolError",
    "RefusalKind",
    "Refused",
    "RenderError",
    "SandboxUnavailable",
    "ScriptExhausted",
    "SearchUsageError",
    "SemanticUnavailable",
    "SessionError",
    "ShellPolicyError",
    "SourceError",
    "StartupFailed",
    "StoreError",
    "ToolConflictError",
    "ToolDefinitionError",
    "ToolError",
    "ToolUnavailableError",
    "TooldeckError",
    "TooldeckSignal",
    "ToolsetError",
    "UnknownPlatformError",
    "WorkspaceError",
]
