"""Does bubblewrap really confine a command here? Asked by running one, and remembered.

bwrap on PATH is not enough: user namespaces may be disabled, a container may forbid mounts, a
seccomp profile may refuse `unshare`. `probe_bwrap()` runs `echo` in the same sandbox the runner
builds and reports whether it worked, with a reason when not. A working answer is kept for the
process; `probe_bwrap_cached(folder)` also keeps it on disk for an hour, keyed on everything
that could change it (the bwrap binary, the kernel and the boot, the user, the namespace
switches), so a short-lived `tooldeck tools` does not pay a sandbox start-up each time.
`runner_for()` picks the sandbox by the probe, or the host runner only when the caller allows
host shells.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tooldeck.safety.sandbox.bubblewrap import CommandRunner, SandboxSettings

CACHE_FILE = "bwrap-probe.json"
CACHE_TTL_S = 3600.0
PROBE_VERSION = 2
# Kernel switches that decide whether unprivileged user namespaces (and so bwrap) work.
_SWITCHES = (
    "/proc/sys/kernel/random/boot_id",
    "/proc/sys/kernel/unprivileged_userns_clone",
    "/proc/sys/user/max_user_namespaces",
    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
)


@dataclass(frozen=True, slots=True)
class BwrapProbe:
    works: bool
    reason: str
    path: str | None = None


def probe_bwrap(bwrap: str | None = None) -> BwrapProbe:
    """Does bubblewrap run a confined command here? (a working answer is cached; a failure is
    probed again next time, so a passing hiccup — a probe timed out on a loaded machine — does
    not hide the sandboxed tools for good; the reason says why not)."""
    path = bwrap or shutil.which("bwrap")
    if path is None:
        return BwrapProbe(False, "bwrap is not installed (Debian package: bubblewrap)")
    if path not in _WORKS:
        probe = _run_probe(path)
        if not probe.works:
            return probe
        _WORKS[path] = probe
    return _WORKS[path]


# The working answers of this process, by bwrap path.
_WORKS: dict[str, BwrapProbe] = {}


def _run_probe(path: str) -> BwrapProbe:
    from tooldeck.safety.sandbox.bubblewrap import BwrapRunner, SandboxSettings, SandboxUnavailable

    workspace = Path.cwd() if os.access(Path.cwd(), os.W_OK) and Path.cwd() != Path("/") else Path("/tmp")
    try:
        runner = BwrapRunner(SandboxSettings(workspace, timeout_s=10), bwrap=path)
        result = runner.run("echo tooldeck-sandbox-ok")
    except (OSError, SandboxUnavailable) as exc:
        return BwrapProbe(False, f"bwrap could not start: {exc}", path)
    if result.exit_code == 0 and "tooldeck-sandbox-ok" in result.output:
        return BwrapProbe(True, "bwrap works", path)
    detail = result.output.strip().splitlines()[-1] if result.output.strip() else f"exit {result.exit_code}"
    hint = ""
    if "namespace" in detail or "uid map" in detail or "Operation not permitted" in detail:
        hint = " (user namespaces are disabled here: enable them, or run bwrap setuid, or as root)"
    return BwrapProbe(False, f"bwrap cannot create its sandbox: {detail}{hint}", path)


def probe_bwrap_cached(folder: Path | None) -> BwrapProbe:
    """`probe_bwrap()`, remembered in `folder` across processes (no folder: this process only)."""
    path = shutil.which("bwrap")
    if path is None or folder is None:
        return probe_bwrap()
    key = _cache_key(path)
    file = folder / CACHE_FILE
    found = _read(file, key)
    if found is not None:
        return found
    probe = probe_bwrap(path)
    if probe.works:  # a failure is not remembered across processes: it may have been passing
        _write(file, key, probe)
    return probe


def _cache_key(path: str) -> str:
    # The version changes when the sandbox's construction does (2: as root, started as another
    # uid through the launcher), so an answer about the old one is not believed.
    parts = [f"v{PROBE_VERSION}", path, str(os.getuid()), str(os.geteuid()), " ".join(os.uname())]
    with contextlib.suppress(OSError):
        st = os.stat(path)
        parts.append(f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_mode}")
    for switch in _SWITCHES:
        try:
            parts.append(Path(switch).read_text().strip())
        except OSError:
            parts.append("-")
    return "|".join(parts)


def _read(file: Path, key: str) -> BwrapProbe | None:
    try:
        fd = os.open(file, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if st.st_uid != os.getuid() or st.st_mode & 0o022:
            return None  # someone else could have written it: probe again
        data = json.loads(os.read(fd, 65536))
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)
    fresh = isinstance(data, dict) and time.time() - float(data.get("at", 0)) < CACHE_TTL_S
    if not fresh or data.get("key") != key or not isinstance(data.get("works"), bool):
        return None
    return BwrapProbe(data["works"], str(data.get("reason", "")), data.get("path"))


def _write(file: Path, key: str, probe: BwrapProbe) -> None:
    record = {"key": key, "at": time.time(), "works": probe.works, "reason": probe.reason, "path": probe.path}
    import tempfile

    # Best effort: an unwritable home only means probing again next time.
    with contextlib.suppress(OSError):
        file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=f".{file.name}.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(record, fh)
            os.replace(tmp, file)
        except OSError:
            Path(tmp).unlink(missing_ok=True)
            raise


def runner_for(
    settings: SandboxSettings, *, allow_host: bool = False, probe: BwrapProbe | None = None
) -> CommandRunner:
    """The bubblewrap runner when bwrap works here (`probe`, default: probed now); the host
    runner only if `allow_host`."""
    from tooldeck.safety.sandbox.bubblewrap import BwrapRunner, HostRunner, SandboxUnavailable

    probe = probe or probe_bwrap(shutil.which("bwrap"))
    if probe.works:
        return BwrapRunner(settings, bwrap=probe.path)
    if allow_host:
        return HostRunner(settings)
    raise SandboxUnavailable(f"{probe.reason}; shell commands need a sandbox unless host shells are allowed")


@cache
def probe_view(workspace: Path, scratch: Path, uid: int, bwrap: str | None) -> str | None:
    """Can a command run in a copy-on-write view of `workspace` here? None when it can, else why
    not (in this process, once per workspace: the answer is the kernel's and the file system's)."""
    from tooldeck.safety.sandbox.bubblewrap import BwrapRunner, SandboxSettings, SandboxUnavailable
    from tooldeck.safety.sandbox.cow import layers

    try:
        with layers(scratch, workspace, uid if os.geteuid() == 0 else None) as (upper, work):
            settings = SandboxSettings(workspace, timeout_s=10, layers=(upper, work), uid=uid)
            result = BwrapRunner(settings, bwrap=bwrap).run("echo tooldeck-view-ok")
    except (OSError, SandboxUnavailable) as exc:
        return str(exc)
    if result.exit_code == 0 and "tooldeck-view-ok" in result.output:
        return None
    return result.output.strip().splitlines()[-1] if result.output.strip() else f"exit {result.exit_code}"
