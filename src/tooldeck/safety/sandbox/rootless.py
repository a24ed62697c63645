"""When tooldeck runs as root, bubblewrap is started as an unprivileged host uid.

A user namespace alone does not help root: the kernel still sees uid 0, which owns /etc/shadow
and is exempt from the process limit. `launch()` wraps a bwrap command line in `launcher.py`
(see there), which idmaps the workspace for the sandbox's uid, stages the bind sources it could
not reach, drops to that uid and executes bwrap. A launcher failure (an old kernel, a filesystem
that cannot be idmapped) is written to a private pipe, so it is told apart from the command's own
output and reported as the sandbox being unavailable, never run as root instead.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tooldeck.safety.sandbox.capture import RunResult

LAUNCHER = Path(__file__).with_name("launcher.py")
# A folder root owns; in the launcher's own mount namespace a tmpfs covers it, holding the
# bind sources the unprivileged bwrap could not reach. Nothing is left in it on the host.
STAGE = "/run/tooldeck-sandbox"
# bwrap options and how many values each takes, so that the sources of bind mounts are found
# without mistaking a value for an option.
_ARITY = {
    "--bind": 2,
    "--ro-bind": 2,
    "--dev-bind": 2,
    "--bind-try": 2,
    "--ro-bind-try": 2,
    "--dev-bind-try": 2,
    "--symlink": 2,
    "--setenv": 2,
    "--chmod": 2,
    "--file": 2,
    "--bind-data": 2,
    "--ro-bind-data": 2,
    "--dev": 1,
    "--proc": 1,
    "--tmpfs": 1,
    "--mqueue": 1,
    "--dir": 1,
    "--remount-ro": 1,
    "--chdir": 1,
    "--cap-drop": 1,
    "--cap-add": 1,
    "--size": 1,
    "--seccomp": 1,
    "--perms": 1,
    "--hostname": 1,
    "--unsetenv": 1,
    "--uid": 1,
    "--gid": 1,
}
# Options without a value (besides the --unshare-* family).
_FLAGS = frozenset(
    {"--share-net", "--die-with-parent", "--new-session", "--clearenv", "--disable-userns", "--as-pid-1"}
)
_STAGED = ("--bind", "--ro-bind", "--dev-bind")


def needed() -> bool:
    """Does this process need the launcher (it runs as root)?"""
    return os.geteuid() == 0


@dataclass(frozen=True, slots=True)
class Launch:
    """The command line to run, and the pipe end the launcher reports a failure on."""

    argv: list[str]
    report_fd: int


def launch(
    bwrap_argv: Sequence[str],
    *,
    uid: int | None,
    workspace: str,
    report_fd: int,
    layers: tuple[str, str] | None = None,
    cgroups: Sequence[str] = (),
) -> Launch:
    """`bwrap_argv` (bwrap's own options, then `--` and the command) run through the launcher:
    as the unprivileged `uid` (tooldeck runs as root), or, with `uid` None, as this user in a
    user namespace of its own (only to mount the overlay). `layers`: the overlay's upper and
    work folders, for a copy-on-write view of the workspace; `cgroups`: the `cgroup.procs` files of
    the call's cgroup, joined before anything starts."""
    if uid is None:
        argv, specs = list(bwrap_argv), list[str]()
    else:
        argv, specs = _stage(list(bwrap_argv), uid)
    if layers is not None:
        specs += [f"+upper={layers[0]}", f"+work={layers[1]}"]
    specs += [f"+cgroup={procs}" for procs in cgroups]
    who = "-" if uid is None else str(uid)
    prefix = [sys.executable, "-I", "-S", "-B", str(LAUNCHER), str(report_fd), who, workspace, STAGE]
    return Launch([*prefix, *specs, "--", *argv], report_fd)


def _stage(argv: list[str], uid: int) -> tuple[list[str], list[str]]:
    """Point bwrap and the bind sources `uid` cannot reach at the stage; the `N=PATH` list to
    bind there."""
    specs: list[str] = []
    if not _reachable(argv[0], uid):  # bwrap itself, e.g. a copy under /root
        specs.append(f"0={os.path.realpath(argv[0])}")
        argv[0] = f"{STAGE}/0"
    i = 1
    while i < len(argv) and argv[i] != "--":
        option = argv[i]
        if option not in _ARITY:
            if option.startswith("--") and not option.startswith("--unshare") and option not in _FLAGS:
                raise ValueError(f"tooldeck's launcher does not know the bwrap option {option}")
            i += 1
            continue
        if option in _STAGED and not _reachable(argv[i + 1], uid):
            # Without symbolic links, so that the launcher can tell the path was not swapped.
            specs.append(f"{len(specs)}={os.path.realpath(argv[i + 1])}")
            argv[i + 1] = f"{STAGE}/{len(specs) - 1}"
        i += 1 + _ARITY[option]
    if specs and i > 1:  # the staged trees (a whole workspace, unmasked) stay out of sight inside
        argv[i:i] = ["--tmpfs", STAGE, "--remount-ro", STAGE]
    return argv, specs


def _reachable(path: str, uid: int) -> bool:
    """Can `uid` (not root, in no group that matters) walk down to `path`?"""
    parent = Path(os.path.abspath(path)).parent
    for folder in (parent, *parent.parents):
        try:
            st = os.stat(folder)
        except OSError:
            return False
        mode = st.st_mode
        if not (mode & stat.S_IXOTH or (st.st_uid == uid and mode & stat.S_IXUSR)):
            return False
    return True


class LaunchFailed(Exception):
    """The launcher could not start bwrap as the unprivileged uid; nothing ran."""


def run(
    bwrap_argv: Sequence[str],
    *,
    uid: int | None,
    workspace: str,
    pass_fds: Sequence[int],
    start: Callable[[list[str], tuple[int, ...]], RunResult],
    layers: tuple[str, str] | None = None,
    cgroups: Sequence[str] = (),
) -> RunResult:
    """Run `bwrap_argv` through the launcher with `start(argv, pass_fds)` (see `launch`); raises
    `LaunchFailed` with the reason when the launcher reported one."""
    read_end, write_end = os.pipe()
    try:
        try:
            started = launch(
                bwrap_argv, uid=uid, workspace=workspace, report_fd=write_end, layers=layers, cgroups=cgroups
            )
            result = start(started.argv, (*pass_fds, write_end))
        finally:
            os.close(write_end)
        problem = failure(read_end)
    finally:
        os.close(read_end)
    if problem is None:
        return result
    hint = ""
    if "idmapped mount" in problem:
        hint = (
            "; keep the workspace on a filesystem that supports idmapped mounts (ext4, xfs, btrfs, "
            "tmpfs; Linux 5.12 or later; not overlayfs, the root filesystem of most containers: "
            "use a volume), or run tooldeck as an ordinary user"
        )
    if uid is None:
        raise LaunchFailed(f"could not start the sandbox: {problem}")
    raise LaunchFailed(
        f"tooldeck runs as root and runs no command as root, but could not start the sandbox as "
        f"uid {uid}: {problem}{hint}"
    )


def failure(report_read_fd: int) -> str | None:
    """What the launcher reported (it writes only when it failed; the write end must be closed
    here), or None."""
    chunks = []
    while chunk := os.read(report_read_fd, 4096):
        chunks.append(chunk)
    text = b"".join(chunks).decode("utf-8", errors="replace").strip()
    return text or None
