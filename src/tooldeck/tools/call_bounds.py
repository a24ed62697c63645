"""Which bounds on a whole call hold on this machine, and which do not and why, as `tooldeck
explain terminal` says it.

Per-process limits (rlimits) hold wherever the sandbox runs. A bound on the whole call's memory
and processes needs a cgroup the host lets tooldeck make (`safety/cgroups.py`); a bound on what
a command writes while it runs needs a copy-on-write layer that is a filesystem of its own size
(a tmpfs only root can mount here); what lands is counted against `sandbox.limits.disk_mb`
everywhere, and so is what the file tools write.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from tooldeck.core import CoreConfig, Tool

COMMAND_TOOLS = ("terminal", "execute_code")


def bounds(config: CoreConfig, home: Path) -> list[str]:
    """One line per bound: what it is, whether it holds here, and why not when it does not."""
    from tooldeck.safety.sandbox.cgroups import support
    from tooldeck.safety.sandbox.probe import probe_bwrap_cached

    limits = config.sandbox.limits
    probe = probe_bwrap_cached(home / "cache")
    if not probe.works:
        return [
            f"none of sandbox.limits holds for commands: there is no sandbox here ({probe.reason}), so "
            + ("they run on the host unbounded" if config.sandbox.allow_host_shell else "none run"),
            _writes(config, sized=False),
        ]
    group = support()
    lines = []
    if group.kind != "none":
        where = ", ".join(sorted(set(group.parents.values())))
        lines += [
            f"memory: holds for the whole call - sandbox.limits.memory_mb = {limits.memory_mb} MiB for all "
            f"its processes together with its in-memory folders (a cgroup {group.kind} group under {where}); "
            "each process's address space too",
            f"processes: holds for the whole call - sandbox.limits.processes = {limits.processes} "
            f"(the cgroup's pids controller)",
        ]
    else:
        lines += [
            f"memory: per process only - sandbox.limits.memory_mb = {limits.memory_mb} MiB of address "
            f"space each; the whole call is not bounded because {group.why}",
            f"processes: sandbox.limits.processes = {limits.processes}, counted in the command's own "
            "user namespace (a per-user limit, Linux 5.14 or later); no cgroup holds it",
        ]
    tmp = (
        f"in-memory folders (/tmp, /dev/shm, emptied homes): sandbox.limits.tmp_mb = {limits.tmp_mb} MiB each"
    )
    lines.append(tmp + (", counted in the memory bound" if group.kind != "none" else ""))
    lines.append(_writes(config, sized=os.geteuid() == 0))
    return lines


def _writes(config: CoreConfig, *, sized: bool) -> str:
    disk = config.sandbox.limits.disk_mb
    head = (
        f"writes: sandbox.limits.disk_mb = {disk} MiB per call in all - the file tools count each file "
        "they write, and a command's changes are counted before they land"
    )
    if not config.effects.enabled:
        return f"{head}; except commands: effects.enabled is false, so they write the workspace directly, unbounded"
    if sized:
        return f"{head}; while it runs, its copy-on-write layer is a tmpfs of that size, so what it writes waits in memory and counts in memory_mb too"
    return (
        f"{head}; while it runs, its copy-on-write layer lies on the home's file system, bounded only by "
        "its free space (a layer of its own size needs root to mount)"
    )


def bounds_of(config: CoreConfig, tools: Iterable[Tool], home: Path) -> dict[str, list[str]]:
    """The bounds of each of `tools` that runs commands (terminal, execute_code)."""
    named = [t.name for t in tools if t.source == "builtin" and t.name in COMMAND_TOOLS]
    if not named:
        return {}
    lines = bounds(config, home)
    return dict.fromkeys(named, lines)
