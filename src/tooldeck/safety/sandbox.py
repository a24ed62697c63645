"""Running shell commands inside bubblewrap, or on the host with the same interface.

Inside the sandbox the root filesystem is mounted read-only, the workspace read-write at its own
path, `/tmp` is a private tmpfs, `/proc` and `/dev` are fresh minimal mounts, and every namespace
is unshared (so there is no network, not even loopback, unless `network=True`). The sandbox dies
with its parent, runs in a new session (no terminal injection), and the sockets of container
engines are masked so the read-only root cannot be used to reach a root-owned daemon.

`probe_bwrap()` tells whether bwrap works here and why not; `runner_for()` picks the sandbox, or
the host runner only when the caller allows host shells.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Protocol

from tooldeck.safety.capture import RunResult, run_capped

DEFAULT_TIMEOUT_S = 120.0
DEFAULT_OUTPUT_LIMIT = 64 * 1024
PASSED_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TZ", "USER", "LOGNAME", "HOME")
ENGINE_SOCKETS = (
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/containerd/containerd.sock",
    "/run/podman/podman.sock",
    "/run/crio/crio.sock",
)


class SandboxUnavailable(Exception):
    """No sandbox can run here and host shells are not allowed; the message says why."""


@dataclass(frozen=True, slots=True)
class SandboxSettings:
    """How commands run: where, for how long, with what output budget and environment."""

    workspace: Path
    network: bool = False
    timeout_s: float = DEFAULT_TIMEOUT_S
    output_limit: int = DEFAULT_OUTPUT_LIMIT
    # Extra variables; the rest of the environment is reduced to `PASSED_ENV`.
    env: Mapping[str, str] = field(default_factory=dict)
    shell: str = "/bin/bash"


class CommandRunner(Protocol):
    """Runs one shell command string (what a tool would pass to `bash -c`)."""

    @property
    def sandboxed(self) -> bool: ...

    def run(self, command: str, *, timeout_s: float | None = None) -> RunResult: ...


def _environment(settings: SandboxSettings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in PASSED_ENV}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update(settings.env)
    return env


class HostRunner:
    """Runs commands directly on the host, in the workspace, with the same limits (no confinement)."""

    sandboxed = False

    def __init__(self, settings: SandboxSettings) -> None:
        self.settings = settings

    def run(self, command: str, *, timeout_s: float | None = None) -> RunResult:
        s = self.settings
        return run_capped(
            [s.shell, "-c", command],
            cwd=str(s.workspace),
            env=_environment(s),
            timeout_s=timeout_s if timeout_s is not None else s.timeout_s,
            output_limit=s.output_limit,
            sandboxed=False,
        )


class BwrapRunner:
    """Runs commands inside bubblewrap."""

    sandboxed = True

    def __init__(self, settings: SandboxSettings, *, bwrap: str | None = None) -> None:
        found = bwrap or shutil.which("bwrap")
        if found is None:
            raise SandboxUnavailable("bwrap is not installed (Debian package: bubblewrap)")
        self.settings = settings
        self.bwrap = found

    def argv(self, command: str) -> list[str]:
        """The full bwrap command line for `command`."""
        s = self.settings
        workspace = str(Path(s.workspace).resolve())
        argv = [self.bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
        for socket in ENGINE_SOCKETS:
            if os.path.exists(socket) and not os.path.islink(socket):
                argv += ["--ro-bind", "/dev/null", socket]
        argv += ["--bind", workspace, workspace, "--chdir", workspace]
        argv += [
            "--unshare-all",
            *(["--share-net"] if s.network else []),
            "--die-with-parent",
            "--new-session",
        ]
        return [*argv, "--", s.shell, "-c", command]

    def run(self, command: str, *, timeout_s: float | None = None) -> RunResult:
        s = self.settings
        return run_capped(
            self.argv(command),
            cwd=str(s.workspace),
            env=_environment(s),
            timeout_s=timeout_s if timeout_s is not None else s.timeout_s,
            output_limit=s.output_limit,
            sandboxed=True,
        )


@dataclass(frozen=True, slots=True)
class BwrapProbe:
    works: bool
    reason: str
    path: str | None = None


@cache
def probe_bwrap(bwrap: str | None = None) -> BwrapProbe:
    """Does bubblewrap run a confined command here? (cached; the reason says why not)."""
    path = bwrap or shutil.which("bwrap")
    if path is None:
        return BwrapProbe(False, "bwrap is not installed (Debian package: bubblewrap)")
    workspace = Path.cwd() if os.access(Path.cwd(), os.W_OK) else Path("/tmp")
    runner = BwrapRunner(SandboxSettings(workspace, timeout_s=10), bwrap=path)
    try:
        result = runner.run("echo tooldeck-sandbox-ok")
    except OSError as exc:
        return BwrapProbe(False, f"bwrap could not start: {exc}", path)
    if result.exit_code == 0 and "tooldeck-sandbox-ok" in result.output:
        return BwrapProbe(True, "bwrap works", path)
    detail = result.output.strip().splitlines()[-1] if result.output.strip() else f"exit {result.exit_code}"
    hint = ""
    if "namespace" in detail or "uid map" in detail or "Operation not permitted" in detail:
        hint = " (user namespaces are disabled here: enable them, or run bwrap setuid, or as root)"
    return BwrapProbe(False, f"bwrap cannot create its sandbox: {detail}{hint}", path)


def runner_for(settings: SandboxSettings, *, allow_host: bool = False) -> CommandRunner:
    """The bubblewrap runner when bwrap works here; the host runner only if `allow_host`."""
    probe = probe_bwrap()
    if probe.works:
        return BwrapRunner(settings, bwrap=probe.path)
    if allow_host:
        return HostRunner(settings)
    raise SandboxUnavailable(f"{probe.reason}; shell commands need a sandbox unless host shells are allowed")


__all__ = [
    "BwrapProbe",
    "BwrapRunner",
    "CommandRunner",
    "HostRunner",
    "RunResult",
    "SandboxSettings",
    "SandboxUnavailable",
    "probe_bwrap",
    "runner_for",
]
