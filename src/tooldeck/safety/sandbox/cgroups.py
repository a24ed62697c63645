"""A bound on a whole call's memory and processes: a control group of its own.

The rlimits of `limits.py` bound each process; four processes under a 256 MiB address space
each still hold a GiB together, and what they write to the in-memory folders (/tmp, /dev/shm)
is memory too. A cgroup counts all of it - every process the call starts, the pages of the
tmpfs mounts they fill, the page cache they dirty - and the kernel's OOM killer stops the call
at `sandbox.limits.memory_mb`; the pids controller stops it at `sandbox.limits.processes`.

Where the host offers one (`support()`):

  * cgroup v2, a subtree delegated to this user: the cgroup tooldeck runs in lists `memory`
    and `pids` in its `cgroup.subtree_control` and its folder is writable (a systemd unit with
    `Delegate=yes` whose own processes sit in a child);
  * cgroup v1, the `memory` and `pids` hierarchies writable (as root, where they are mounted
    read-write: containers and CI runners of the older layout).

Each call gets `tooldeck-<pid>-<random>` under the cgroup tooldeck runs in, in each hierarchy;
the launcher (`launcher.py`) moves itself into it before anything else, so bwrap and every
process of the sandbox start inside. When the command ends, `verdict()` reads the kernel's
counts (OOM kills, refused forks) for a sentence naming the key, and the group is emptied and
removed. Where none is offered, `support().why` says why, and the per-process rlimits are all
that holds (`tooldeck explain terminal` says so).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

MIB = 1024 * 1024
_NEEDED = ("memory", "pids")


@dataclass(frozen=True, slots=True)
class Support:
    """What bounds a whole call here: the folders new groups go under, or why there are none."""

    kind: Literal["v2", "v1", "none"]
    # The controller's folder of the cgroup tooldeck runs in, by controller (v2: one folder for both).
    parents: dict[str, str] = field(default_factory=dict)
    why: str = ""


def _mounts() -> list[tuple[str, str, str, set[str]]]:
    """The cgroup mounts: (mount point, the cgroup path mounted there, fs type, super options)."""
    found = []
    with open("/proc/self/mountinfo", encoding="utf-8") as fh:
        for line in fh:
            left, _, right = line.partition(" - ")
            fields, tail = left.split(), right.split()
            if len(fields) >= 5 and len(tail) >= 3 and tail[0] in ("cgroup", "cgroup2"):
                options = set(tail[2].split(","))
                found.append((fields[4].replace("\\040", " "), fields[3], tail[0], options))
    return found


def _own_paths() -> dict[str, str]:
    """The cgroup this process is in, by hierarchy: controller names (v1) or "" (v2)."""
    paths: dict[str, str] = {}
    with open("/proc/self/cgroup", encoding="utf-8") as fh:
        for line in fh:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            for name in controllers.split(",") if controllers else [""]:
                paths[name] = path
    return paths


def _folder(mount_point: str, mount_root: str, path: str) -> str | None:
    """Where the cgroup `path` lies under a mount of `mount_root` at `mount_point`."""
    if mount_root != "/" and path != mount_root and not path.startswith(mount_root + "/"):
        return None  # our cgroup is not inside what is mounted here
    rest = path[len(mount_root) :] if mount_root != "/" else path
    folder = os.path.normpath(os.path.join(mount_point, rest.lstrip("/")))
    return folder if os.path.isdir(folder) else None


def support() -> Support:
    """Whether a whole call can be bounded here, and how (see the module docstring)."""
    try:
        mounts, own = _mounts(), _own_paths()
    except OSError as exc:
        return Support("none", why=f"the cgroups of this process cannot be read ({exc.strerror})")
    v1: dict[str, str] = {}
    for point, root, kind, options in mounts:
        for name in _NEEDED:
            if kind == "cgroup" and name in options and name in own:
                folder = _folder(point, root, own[name])
                if folder is not None:
                    v1[name] = folder
    if len(v1) == len(_NEEDED) and all(os.access(f, os.W_OK) for f in v1.values()):
        return Support("v1", v1)
    v2 = [_folder(point, root, own[""]) for point, root, kind, _ in mounts if kind == "cgroup2" and "" in own]
    folder = next((f for f in v2 if f is not None), None)
    why_v1 = (
        f"the cgroup v1 memory and pids hierarchies are mounted but not writable by uid {os.getuid()}"
        if len(v1) == len(_NEEDED)
        else "no cgroup v1 memory and pids hierarchies are mounted"
    )
    if folder is None:
        return Support("none", why=f"{why_v1}, and no cgroup v2 hierarchy holds this process")
    delegated = _read(os.path.join(folder, "cgroup.subtree_control")).split()
    missing = [c for c in _NEEDED if c not in delegated]
    if missing:
        return Support(
            "none",
            why=(
                f"{why_v1}; the cgroup v2 group this process runs in ({folder}) does not delegate "
                f"{' and '.join(missing)} to its children (cgroup.subtree_control; run tooldeck in a "
                "systemd unit or scope with Delegate=yes, its own processes in a child group)"
            ),
        )
    if not os.access(folder, os.W_OK):
        return Support(
            "none", why=f"{why_v1}; the cgroup v2 group {folder} is not writable by uid {os.getuid()}"
        )
    return Support("v2", {name: folder for name in _NEEDED})


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError:
        return ""


def _write(path: str, value: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(value)


class CallGroup:
    """The cgroup of one call, made with its bounds set (see `bounded`)."""

    def __init__(self, kind: str, folders: dict[str, str], *, memory_mb: int, processes: int) -> None:
        self.kind, self.folders = kind, folders
        self.memory_mb, self.processes = memory_mb, processes

    def join_paths(self) -> list[str]:
        """The `cgroup.procs` files the launcher writes its pid to, each once."""
        return sorted({os.path.join(f, "cgroup.procs") for f in self.folders.values()})

    def verdict(self) -> tuple[str, int] | None:
        """Which bound the call ran into: ("memory" | "processes", how often), or None."""
        memory = self.folders["memory"]
        if self.kind == "v1":
            kills = _count(_read(os.path.join(memory, "memory.oom_control")), "oom_kill")
        else:
            kills = _count(_read(os.path.join(memory, "memory.events")), "oom_kill")
        if kills:
            return "memory", kills
        refused = _count(_read(os.path.join(self.folders["pids"], "pids.events")), "max")
        return ("processes", refused) if refused else None

    def set_limits(self) -> None:
        """Write the group's bounds (swap counted in, so it cannot stretch the memory bound)."""
        memory, pids = self.folders["memory"], self.folders["pids"]
        size = str(self.memory_mb * MIB)
        if self.kind == "v1":
            _write(os.path.join(memory, "memory.limit_in_bytes"), size)
            swap = os.path.join(memory, "memory.memsw.limit_in_bytes")
            if os.path.exists(swap):
                _write(swap, size)
        else:
            _write(os.path.join(memory, "memory.max"), size)
            _write(os.path.join(memory, "memory.swap.max"), "0")
        _write(os.path.join(pids, "pids.max"), str(self.processes))

    def remove(self) -> None:
        """Kill what is left in the group (the sandbox dies with bwrap; stragglers of a
        process still exiting) and remove its folders."""
        for folder in set(self.folders.values()):
            for _ in range(200):
                for pid in _read(os.path.join(folder, "cgroup.procs")).split():
                    with contextlib.suppress(ProcessLookupError, ValueError):
                        os.kill(int(pid), signal.SIGKILL)
                try:
                    os.rmdir(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)  # the killed are still exiting


def _count(text: str, key: str) -> int:
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name == key and value.strip().isdigit():
            return int(value)
    return 0


@contextlib.contextmanager
def bounded(memory_mb: int, processes: int, found: Support | None = None) -> Iterator[CallGroup | None]:
    """A fresh cgroup for one call bounding its memory (MiB) and processes, removed on leaving;
    None where the host offers none (`support()`)."""
    found = found or support()
    if found.kind == "none":
        yield None
        return
    name = f"tooldeck-{os.getpid()}-{os.urandom(6).hex()}"
    folders = {c: os.path.join(parent, name) for c, parent in found.parents.items()}
    group = CallGroup(found.kind, folders, memory_mb=memory_mb, processes=processes)
    try:
        for folder in set(folders.values()):
            os.mkdir(folder, 0o755)
        group.set_limits()
        yield group
    finally:
        group.remove()
