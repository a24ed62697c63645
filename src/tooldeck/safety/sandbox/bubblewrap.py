"""Running shell commands inside bubblewrap, or on the host with the same interface.

Inside the sandbox the root filesystem is mounted read-only, the workspace read-write at its own
path, `/tmp` is a private tmpfs, `/proc` and `/dev` are fresh minimal mounts, and every namespace
is unshared (so there is no network, not even loopback, unless `network=True`; offline, `/run`
is an empty tmpfs too, so the unix sockets of local daemons are out of reach). The home folders
(`/home`, `/root`, `$HOME`) are empty tmpfs mounts, so keys and tokens kept there cannot be read;
the workspace is bound back in when it lives there, and paths the caller names as `hidden` (the
tooldeck home with its grants and audit log) stay masked even inside the workspace. The sandbox
dies with its parent, runs in a new session (no terminal injection), and the sockets of container
engines are masked so the read-only root cannot be used to reach a root-owned daemon.

The command has no capabilities and cannot gain privileges (bwrap sets no_new_privs), cannot
make set-user-ID files (`seccomp.py`), and runs under the resource limits of `limits.py` and, where
the host offers one, in a cgroup of its own bounding the whole call (`cgroups.py`). When tooldeck runs as root, bwrap itself is started as
the unprivileged `uid` through `rootless.py`, with the workspace idmapped so it stays writable.

Whether bwrap works here, and which runner to use, is `probe.py`'s question.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from tooldeck._utils.pathnames import is_within
from tooldeck.errors import SandboxUnavailable as SandboxUnavailable
from tooldeck.safety.sandbox import cgroups, protected_mounts, rootless, seccomp
from tooldeck.safety.sandbox.capture import RunResult, run_capped
from tooldeck.safety.sandbox.limits import (
    SandboxLimits,
    diagnose,
    no_nested_user_namespaces,
    sized_tmpfs,
    with_limits,
)

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
HOME_ROOTS = ("/home", "/root")


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
    # Paths masked inside the sandbox wherever they are (a folder becomes an empty tmpfs).
    hidden: tuple[Path, ...] = ()
    # Paths to see read-only at their own place although they lie under a masked folder (/tmp,
    # a home folder); mounted after the masks. Paths already visible are left as they are.
    read_only: tuple[Path, ...] = ()
    # Resource limits of each sandboxed command.
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    # The host uid (and gid) commands run as when tooldeck runs as root.
    uid: int = 65534
    # Workspace paths mounted read-only (a trailing '/' marks a folder); one that does not exist
    # gets an empty read-only placeholder for the time of the command (`protected_mounts`).
    protected: tuple[str, ...] = ()
    # The content of placeholders that must not be empty, by their path (`protected_mounts`).
    placeholder_texts: Mapping[str, str] = field(default_factory=dict)
    # The upper and work folders of a copy-on-write view of the workspace (`effects_view.py`):
    # with them, the command's changes land there and not in the workspace. None: it writes the
    # workspace itself.
    layers: tuple[Path, Path] | None = None
    # The size of the copy-on-write layer when it is a tmpfs of its own (MiB; 0: it is not): what
    # the command writes to the workspace then waits in memory, counted in its memory bound.
    layer_mb: int = 0


class CommandRunner(Protocol):
    """Runs one shell command string (what a tool would pass to `bash -c`), or a program."""

    @property
    def sandboxed(self) -> bool: ...

    def run(
        self, command: str, *, timeout_s: float | None = None, cancel: threading.Event | None = None
    ) -> RunResult: ...

    def run_argv(
        self,
        argv: Sequence[str],
        *,
        timeout_s: float | None = None,
        cancel: threading.Event | None = None,
        pass_fds: Sequence[int] = (),
    ) -> RunResult: ...


class _Start(Protocol):
    """Runs a full command line with the call's time limit and cancel event (`run_argv`)."""

    def __call__(
        self, argv: list[str], pass_fds: tuple[int, ...], /, cwd: str | None = None
    ) -> RunResult: ...


def _environment(settings: SandboxSettings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in PASSED_ENV}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update(settings.env)
    return env


class _Runner:
    sandboxed = False

    def __init__(self, settings: SandboxSettings) -> None:
        self.settings = settings

    def wrap(self, argv: Sequence[str]) -> list[str]:
        return list(argv)

    def run(
        self, command: str, *, timeout_s: float | None = None, cancel: threading.Event | None = None
    ) -> RunResult:
        return self.run_argv([self.settings.shell, "-c", command], timeout_s=timeout_s, cancel=cancel)

    def run_argv(
        self,
        argv: Sequence[str],
        *,
        timeout_s: float | None = None,
        cancel: threading.Event | None = None,
        pass_fds: Sequence[int] = (),
    ) -> RunResult:
        def start(full: list[str], fds: tuple[int, ...], cwd: str | None = None) -> RunResult:
            return self._capped(full, timeout_s=timeout_s, cancel=cancel, pass_fds=fds, cwd=cwd)

        return self._execute(argv, tuple(pass_fds), start)

    def _execute(self, argv: Sequence[str], pass_fds: tuple[int, ...], start: _Start) -> RunResult:
        """How `run_argv` runs `argv`: `start` runs a full command line under the call's time
        limit and cancel event. A runner that confines commands overrides this."""
        return start(self.wrap(argv), pass_fds)

    def _capped(
        self,
        argv: Sequence[str],
        *,
        timeout_s: float | None,
        cancel: threading.Event | None,
        pass_fds: Sequence[int],
        cwd: str | None = None,
    ) -> RunResult:
        s = self.settings
        return run_capped(
            argv,
            cwd=cwd or str(s.workspace),
            env=_environment(s),
            timeout_s=timeout_s if timeout_s is not None else s.timeout_s,
            output_limit=s.output_limit,
            sandboxed=self.sandboxed,
            cancel=cancel,
            pass_fds=pass_fds,
        )


class HostRunner(_Runner):
    """Runs commands directly on the host, in the workspace, with the same limits (no confinement)."""

    sandboxed = False


class BwrapRunner(_Runner):
    """Runs commands inside bubblewrap."""

    sandboxed = True

    def __init__(self, settings: SandboxSettings, *, bwrap: str | None = None) -> None:
        found = bwrap or shutil.which("bwrap")
        if found is None:
            raise SandboxUnavailable("bwrap is not installed (Debian package: bubblewrap)")
        workspace = Path(os.path.realpath(settings.workspace))
        if workspace == Path("/"):
            raise SandboxUnavailable("the workspace is the root folder: a sandbox would confine nothing")
        super().__init__(settings)
        self.bwrap = found
        self.workspace = workspace

    def argv(self, command: str) -> list[str]:
        """The full bwrap command line for the shell command `command` (without the launcher
        that starts it as an unprivileged uid when tooldeck runs as root)."""
        return self.wrap([self.settings.shell, "-c", command])

    def _execute(self, argv: Sequence[str], pass_fds: tuple[int, ...], start: _Start) -> RunResult:
        # Protected paths that do not exist yet get read-only placeholders for the command's time.
        placeholders = protected_mounts.claim(
            str(self.workspace), self.settings.protected, self.settings.placeholder_texts
        )
        limits = self.settings.limits
        try:
            with (
                _seccomp_fd() as seccomp,
                cgroups.bounded(limits.memory_mb, limits.processes) as group,
            ):
                full = self.wrap(argv, seccomp_fd=seccomp)
                fds = (*pass_fds, seccomp) if seccomp is not None else pass_fds
                launched = rootless.needed() or self.settings.layers is not None or group is not None
                result = self._rootless(full, fds, start, group) if launched else start(full, fds)
                bound = group.verdict() if group is not None else None
        except OSError as exc:  # the host offered a cgroup and then refused to make one
            raise SandboxUnavailable(f"could not make the call's cgroup: {exc}") from None
        finally:
            protected_mounts.release(placeholders)
        return self._diagnosed(result, bound)

    def _rootless(
        self, full: list[str], fds: tuple[int, ...], start: _Start, group: cgroups.CallGroup | None
    ) -> RunResult:
        """Run the bwrap command line `full` through the launcher: as the unprivileged uid when
        tooldeck runs as root, over the copy-on-write view when the settings ask for one, and in
        the call's cgroup when there is one."""
        layers = self.settings.layers
        try:
            return rootless.run(
                full,
                uid=self.settings.uid if rootless.needed() else None,
                workspace=str(self.workspace),
                pass_fds=fds,
                start=lambda launcher, with_report: start(launcher, with_report, cwd="/"),
                layers=(str(layers[0]), str(layers[1])) if layers is not None else None,
                cgroups=group.join_paths() if group is not None else (),
            )
        except rootless.LaunchFailed as exc:
            raise SandboxUnavailable(str(exc)) from None

    def _diagnosed(self, result: RunResult, bound: tuple[str, int] | None) -> RunResult:
        limits = self.settings.limits
        if bound is not None and bound[0] == "memory":
            layer = " and, until it lands, what it wrote to the workspace" if self.settings.layer_mb else ""
            said: str | None = (
                f"the call's processes together, with what they keep in memory (in /tmp, /dev/shm{layer}), "
                f"reached sandbox.limits.memory_mb = {limits.memory_mb} and the kernel killed {bound[1]} of them"
            )
        elif bound is not None:
            said = (
                "the call could not start more processes: it reached the process limit "
                f"(sandbox.limits.processes = {limits.processes}, all its processes and threads together)"
            )
        else:
            said = diagnose(limits, result.exit_code, result.output)
        return dataclasses.replace(result, limit=said)

    def wrap(self, argv: Sequence[str], *, seccomp_fd: int | None = None) -> list[str]:
        """The bwrap command line running `argv`; with `seccomp_fd`, bwrap loads the filter of
        `seccomp.py` from that descriptor."""
        s = self.settings
        workspace = str(self.workspace)
        # bwrap's /dev is an in-memory folder as big as half the host's memory, writable by the
        # command: it is made read-only (its device nodes still work), and /dev/shm, where shared
        # memory lives, becomes a private folder sized like /tmp.
        out = [
            self.bwrap,
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--tmpfs",
            "/dev/shm",
            "--remount-ro",
            "/dev",
        ]
        out += ["--proc", "/proc", "--tmpfs", "/tmp"]
        masked = ["/tmp", *_home_roots()]
        if not s.network and os.path.isdir("/run") and not os.path.islink("/run"):
            masked.append("/run")  # offline, local daemons' sockets are out of reach too
        for folder in masked[1:]:
            out += ["--tmpfs", folder]
        for socket in ENGINE_SOCKETS:
            if os.path.exists(socket) and not os.path.islink(socket) and not _under(socket, masked):
                out += ["--ro-bind", "/dev/null", socket]
        out += ["--bind", workspace, workspace]
        out += protected_mounts.plan(workspace, s.protected, s.placeholder_texts)[0]
        out += _masks(s.hidden)
        masked += [os.path.realpath(p) for p in s.hidden]
        for path in s.read_only:
            real = os.path.realpath(path)
            if os.path.exists(real) and _under(real, masked) and not _under(real, [workspace]):
                out += ["--ro-bind", real, real]
        out += [
            "--chdir",
            workspace,
            "--unshare-all",
            *no_nested_user_namespaces(self.bwrap),
            *(["--share-net"] if s.network else []),
            "--die-with-parent",
            "--new-session",
            "--cap-drop",
            "ALL",
            *(["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []),
        ]
        out = sized_tmpfs(self.bwrap, out, s.limits.tmp_mb)
        return [*out, "--", *with_limits(s.limits, _bash(s.shell), argv)]


@contextlib.contextmanager
def _seccomp_fd() -> Iterator[int | None]:
    """A pipe holding the seccomp filter for bwrap to read (None where no filter is written)."""
    code = seccomp.program()
    if code is None:
        yield None
        return
    read_end, write_end = os.pipe()
    try:
        try:
            os.write(write_end, code)  # far below a pipe's buffer: never blocks
        finally:
            os.close(write_end)
        yield read_end
    finally:
        os.close(read_end)


def _bash(shell: str) -> str:
    """The bash that sets the limits (the configured shell when it is bash)."""
    if os.path.basename(shell) == "bash":
        return shell
    found = shutil.which("bash")
    if found is None:
        raise SandboxUnavailable("bash is needed inside the sandbox to set its resource limits")
    return found


def _home_roots() -> list[str]:
    """The folders holding users' homes, each once (a home inside another is already covered)."""
    candidates = [*HOME_ROOTS, os.environ.get("HOME", "")]
    found: list[str] = []
    for candidate in candidates:
        if not candidate or not os.path.isabs(candidate):
            continue
        real = os.path.realpath(candidate)
        if real == "/" or not os.path.isdir(real):
            continue
        if not _under(real, found):
            found.append(real)
    return found


def _under(path: str, folders: Sequence[str]) -> bool:
    return any(is_within(path, f) for f in folders)


def _masks(hidden: Sequence[Path]) -> list[str]:
    out: list[str] = []
    for path in hidden:
        real = os.path.realpath(path)
        if os.path.isdir(real):
            out += ["--tmpfs", real]
        elif os.path.exists(real):
            out += ["--ro-bind", "/dev/null", real]
    return out


__all__ = [
    "BwrapRunner",
    "CommandRunner",
    "HostRunner",
    "RunResult",
    "SandboxLimits",
    "SandboxSettings",
    "SandboxUnavailable",
]
