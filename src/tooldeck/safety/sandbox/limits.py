"""Resource limits of a sandboxed command, and how to tell that a command ran into one.

The private in-memory folders (/tmp, /dev/shm, the emptied homes) get a size (`sized_tmpfs`). The other
limits are rlimits set by bash's `ulimit` inside the sandbox, after bubblewrap has made its
user namespace: since Linux 5.14 the kernel counts RLIMIT_NPROC per user namespace, so the
process budget is the call's own (concurrent calls do not share it, and the host user's other
processes do not count against it). Address space, file size, CPU time and open files are per
process. Where the host offers a cgroup, `cgroups.py` bounds the memory and processes of the
whole call on top of these; rlimits hold everywhere.

`diagnose()` reads a finished command's exit status and output for the marks a limit leaves
(SIGXCPU/SIGXFSZ, fork or allocation failures) and returns a sentence naming the config key,
or None; it claims a limit only when the command failed.
"""

from __future__ import annotations

import resource
import signal
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

MIB = 1024 * 1024
# The hard CPU limit comes this many seconds after the soft one, so SIGXCPU arrives first.
CPU_GRACE_S = 5
_FORK_FAILED = (
    "fork: retry: Resource temporarily unavailable",
    "fork: Resource temporarily unavailable",
    "BlockingIOError: [Errno 11] Resource temporarily unavailable",
    "can't start new thread",
    "Cannot fork",
    "pthread_create failed",
)
# bash reports a child killed by SIGXFSZ; Python ignores the signal and gets EFBIG instead.
_FILE_TOO_BIG = ("File size limit exceeded", "File too large")
_ALLOC_FAILED = (
    "MemoryError",
    "Cannot allocate memory",
    "std::bad_alloc",
    "out of memory",
    "memory exhausted",
    "failed to map segment",
)


@dataclass(frozen=True, slots=True)
class SandboxLimits:
    """Per-command limits (see `sandbox.limits` in the config reference)."""

    processes: int = 256
    memory_mb: int = 2048
    file_size_mb: int = 1024
    cpu_s: int = 600
    open_files: int = 1024
    tmp_mb: int = 512
    disk_mb: int = 1024


def _capped(value: int, which: int, unit: int = 1) -> int:
    """`value` (in `unit`s), lowered to the host's hard limit: ulimit cannot raise it."""
    hard = resource.getrlimit(which)[1]
    if hard == resource.RLIM_INFINITY:
        return value
    return max(1, min(value, hard // unit))


def with_limits(limits: SandboxLimits, bash: str, argv: Sequence[str]) -> list[str]:
    """`argv` started through bash's `ulimit` with `limits` set (hard and soft)."""
    cpu = _capped(limits.cpu_s, resource.RLIMIT_CPU)
    both = (
        f"-u {_capped(limits.processes, resource.RLIMIT_NPROC)} "
        f"-v {_capped(limits.memory_mb * 1024, resource.RLIMIT_AS, 1024)} "
        f"-f {_capped(limits.file_size_mb * 1024, resource.RLIMIT_FSIZE, 1024)} "
        f"-n {_capped(limits.open_files, resource.RLIMIT_NOFILE)}"
    )
    # Soft before hard: the kernel refuses a hard limit below the soft one in force.
    cpu_hard = _capped(cpu + CPU_GRACE_S, resource.RLIMIT_CPU)
    script = f'ulimit {both} && ulimit -S -t {cpu} && ulimit -H -t {cpu_hard} && exec "$@"'
    return [bash, "-c", script, "tooldeck-limits", *argv]


def diagnose(limits: SandboxLimits, exit_code: int | None, output: str) -> str | None:
    """Which limit a failed command ran into, as a sentence for the model; None if none shows.
    `exit_code` None is a command killed at its timeout (bash retries a failed fork for long)."""
    if exit_code == 0:
        return None
    if exit_code is None:
        return _processes(limits) if any(mark in output for mark in _FORK_FAILED) else None
    # A process killed by a signal shows as 128 + its number (bwrap and bash both say so).
    signum = -exit_code if exit_code < 0 else exit_code - 128
    if signum == signal.SIGXFSZ or any(mark in output for mark in _FILE_TOO_BIG):
        return (
            f"the command ended with {_evidence(exit_code, signum, 'SIGXFSZ', 'a file too large')}: "
            f"a file reached the sandbox's file size limit (sandbox.limits.file_size_mb = {limits.file_size_mb})"
        )
    if signum == signal.SIGXCPU or "CPU time limit exceeded" in output:
        return (
            f"the command ended with {_evidence(exit_code, signum, 'SIGXCPU', 'CPU time exceeded')}: "
            f"a process used up the sandbox's CPU time limit (sandbox.limits.cpu_s = {limits.cpu_s})"
        )
    if any(mark in output for mark in _FORK_FAILED):
        return _processes(limits)
    if "No space left on device" in output:
        return (
            "the command ran out of space: /tmp and the home folders inside the sandbox hold at most "
            f"sandbox.limits.tmp_mb = {limits.tmp_mb} MiB each (unless the workspace's own disk is full)"
        )
    if any(mark in output for mark in _ALLOC_FAILED):
        return (
            "the command ran out of memory: a process reached the sandbox's address space limit "
            f"(sandbox.limits.memory_mb = {limits.memory_mb})"
        )
    return None


def _processes(limits: SandboxLimits) -> str:
    return (
        "the command could not start more processes: it reached the sandbox's process limit "
        f"(sandbox.limits.processes = {limits.processes}; threads count too)"
    )


def _evidence(exit_code: int, signum: int, signame: str, said: str) -> str:
    """What the verdict rests on: the exit status of a process stopped by the signal, or the
    output saying so."""
    if exit_code == -signum:
        return f"{signame}"
    if signum == getattr(signal, signame):
        return f"exit code {exit_code}, the status of a process stopped by {signame}"
    return f"exit code {exit_code} and output reporting {said}"


def sized_tmpfs(bwrap: str, argv: list[str], size_mb: int) -> list[str]:
    """`argv` (bwrap's options) with every tmpfs given `size_mb`, when this bwrap can (0.6+)."""
    if not has_option(bwrap, "--size"):
        return argv
    out: list[str] = []
    for i, arg in enumerate(argv):
        if arg == "--tmpfs" and (i == 0 or argv[i - 1] != "--size"):
            out += ["--size", str(size_mb * MIB)]
        out.append(arg)
    return out


def no_nested_user_namespaces(bwrap: str) -> list[str]:
    """bwrap's options that keep the command from making user namespaces of its own, when this
    bwrap can (0.8+). In one, the command is root over a mount namespace of its own: it could
    mount an in-memory folder of no set size and fill the host's memory past every limit here,
    and it would reach the kernel code that only root may otherwise use."""
    return ["--unshare-user", "--disable-userns"] if has_option(bwrap, "--disable-userns") else []


@cache
def has_option(bwrap: str, option: str) -> bool:
    """Whether `bwrap --help` lists `option`."""
    try:
        done = subprocess.run([bwrap, "--help"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return option.encode() in done.stdout + done.stderr
