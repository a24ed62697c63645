"""One MCP server's settings, resolved from the config: what to run or reach, and how.

`ServerSpec` is what the rest of the MCP client reads: the transport is decided, relative paths
are resolved against the config file's folder, and the child's environment is built from an
allow-list of inherited variables plus the server's own `env`. Secrets (env values, headers)
are kept out of `repr`, so a spec can be logged or shown in an error safely.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from tooldeck._core.config import CoreConfig, McpServerConfig
from tooldeck._core.sources.mcp.oauth import OAuthSettings, oauth_settings

Transport = Literal["stdio", "http", "sse"]
Approval = Literal["destructive", "always", "never"]

# What a child inherits when the server does not say: enough to find programs, its home and locale.
DEFAULT_INHERIT_ENV = ("PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_*", "TZ", "TMPDIR")
# The variables that name a temporary directory, set to the thread's own for thread-scoped sessions.
TEMP_VARS = ("TMPDIR", "TMP", "TEMP")


# Seconds a listing waits past a server's connect timeout (see `ServerSpec.listing_wait_s`).
LIST_MARGIN_S = 20.0


@dataclass(frozen=True, slots=True)
class ServerSpec:
    """A server ready to connect to (see `McpServerConfig` for what each setting means)."""

    name: str
    transport: Transport
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    cwd: Path | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    timeout: float | None = None
    connect_timeout: float = 10.0
    include_tools: tuple[str, ...] | None = None
    exclude_tools: tuple[str, ...] = ()
    parallel_safe: bool = False
    approval: Approval = "destructive"
    scope: Literal["shared", "thread"] = "shared"
    max_sessions: int = 8
    idle_timeout: float = 600.0
    enabled: bool = True
    # OAuth for a remote server (None: a local one, or one with its own Authorization header).
    auth: OAuthSettings | None = None
    sampling: Literal["allow", "deny"] = "deny"
    protocol: Literal["auto", "legacy", "2026-07-28"] = "auto"
    # The folders the server is told it works in (MCP roots): the deck's workspace, or the
    # thread's for a thread-scoped session.
    roots: tuple[Path, ...] = ()

    @property
    def listing_wait_s(self) -> float:
        """How long a listing waits for this server's first connection attempt to report: the
        connect timeout, plus a margin for starting the attempt (importing the MCP client,
        spawning the server), which a loaded machine can stretch to seconds. The attempt bounds
        itself once started, so the wait ends as soon as it does."""
        return self.connect_timeout + LIST_MARGIN_S

    @property
    def target(self) -> str:
        """What the server is, for messages: its command line or URL (never headers or env)."""
        if self.transport == "stdio":
            return " ".join([self.command or "", *self.args])
        return f"{self.url} ({self.transport})"

    def wants(self, tool: str) -> bool:
        """Whether `include_tools` / `exclude_tools` let the server's tool `tool` through."""
        if self.include_tools is not None and not _matches(tool, self.include_tools):
            return False
        return not _matches(tool, self.exclude_tools)

    def unmatched(self, tools: list[str]) -> list[tuple[str, str]]:
        """Each (`include_tools` or `exclude_tools`, pattern) that matches none of `tools`."""
        keys = (("include_tools", self.include_tools or ()), ("exclude_tools", self.exclude_tools))
        return [(k, p) for k, ps in keys for p in ps if not any(fnmatch.fnmatchcase(t, p) for t in tools)]

    def pinned(self, workspace: Path) -> ServerSpec:
        """This server run in `workspace`, with its temporary directory inside it."""
        tmp = workspace / ".tmp"
        env = dict(self.env)
        env.update(dict.fromkeys(TEMP_VARS, str(tmp)))
        return dataclasses.replace(self, cwd=workspace, env=env, roots=(workspace,))


def server_specs(config: CoreConfig, *, environ: Mapping[str, str] | None = None) -> list[ServerSpec]:
    """Every configured server (disabled ones too, marked so), in config order."""
    from tooldeck._core.config_load import mcp_server_configs

    environ = os.environ if environ is None else environ
    return [to_spec(name, server, config, environ) for name, server in mcp_server_configs(config).items()]


def to_spec(name: str, server: McpServerConfig, config: CoreConfig, environ: Mapping[str, str]) -> ServerSpec:
    transport: Transport = server.transport or ("stdio" if server.command is not None else "http")
    command = server.command
    if command is not None and os.sep in command and not os.path.isabs(command):
        command = str(config.resolve_path(command))
    return ServerSpec(
        name=name,
        transport=transport,
        command=command,
        args=tuple(server.args),
        env=child_env(server, environ) if transport == "stdio" else {},
        cwd=config.resolve_path(server.cwd) if server.cwd else None,
        url=server.url,
        headers=dict(server.headers),
        timeout=server.timeout,
        connect_timeout=server.connect_timeout,
        include_tools=tuple(server.include_tools) if server.include_tools is not None else None,
        exclude_tools=tuple(server.exclude_tools),
        parallel_safe=server.parallel_safe,
        approval=server.approval,
        scope=server.scope,
        max_sessions=server.max_sessions,
        idle_timeout=server.idle_timeout,
        enabled=server.enabled,
        auth=oauth_settings(name, server, config, environ) if transport != "stdio" else None,
        sampling=server.sampling,
        protocol=server.protocol,
        roots=(config.workspace,),
    )


def child_env(server: McpServerConfig, environ: Mapping[str, str]) -> dict[str, str]:
    """The child's whole environment: the allowed inherited variables, then the server's `env`."""
    allowed = tuple(server.inherit_env) if server.inherit_env is not None else DEFAULT_INHERIT_ENV
    env = {k: v for k, v in environ.items() if _matches(k, allowed) and not v.startswith("()")}
    env.update(server.env)
    return env


def _matches(name: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)
