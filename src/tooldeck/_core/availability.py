"""Requirement checks: is what a tool needs there, and if not, why.

Requirements are keys: an env var, a binary on PATH, an importable module, the workspace
folder (for tools that work on files there), a custom check.
Env vars are read on every assembly (cheap and always fresh). The others are cached for
`ttl_s`; a custom check that *raises or times out* may keep its last good answer for
`flap_grace_s` after it was last good, and not a moment longer (a check that *returns* False
is believed at once). Custom checks run
concurrently in daemon threads under one time budget: a check still running when the budget
is spent counts as unavailable ("check timed out after N ms") and can never keep the process
alive; when it finally answers, the answer is cached for the next assembly.
"""

from __future__ import annotations

import _thread
import errno
import importlib.util
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tooldeck._core.availability_types import AVAILABLE, Availability
from tooldeck._core.tool import Tool
from tooldeck._utils.text import describe_exception

# ("env", "OPENAI_API_KEY"), ("bin", "bwrap"), ("module", "playwright"), ("workspace", "/srv/ws"),
# ("check", <callable>)
RequirementKey = tuple[str, Any]
# The config key an unusable workspace folder is reported under.
WORKSPACE_KEY = "sandbox.workspace"


def requirement_keys(tool: Tool, workspace: str | None = None) -> tuple[RequirementKey, ...]:
    """What `tool` needs; `workspace` is the folder `sandbox.workspace` names, for tools that
    need it (`Tool.needs_workspace`)."""
    keys: list[RequirementKey] = [("env", v) for v in tool.requires_env]
    keys += [("bin", b) for b in tool.requires_bins]
    keys += [("module", m) for m in tool.requires_modules]
    if tool.needs_workspace and workspace is not None:
        keys.append(("workspace", workspace))
    if tool.check is not None:
        keys.append(("check", tool.check))
    return tuple(keys)


@dataclass(slots=True)
class _Entry:
    value: Availability
    expires: float
    last_good: float | None


class _Job:
    """One check running in a daemon thread."""

    __slots__ = ("done", "result")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: Availability | BaseException | None = None


class AvailabilityChecker:
    """Evaluates requirement keys with a TTL cache, flap grace and a concurrency budget."""

    def __init__(
        self,
        *,
        ttl_s: float = 30.0,
        budget_ms: float = 1000.0,
        flap_grace_s: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl_s = ttl_s
        self.budget_s = budget_ms / 1000.0
        self.flap_grace_s = flap_grace_s
        self._clock = clock
        self._cache: dict[RequirementKey, _Entry] = {}
        self._jobs: dict[RequirementKey, _Job] = {}
        self._lock = threading.Lock()
        self.probe_calls = 0  # custom checks started (for benchmarks and tests)

    def invalidate(self, key: RequirementKey | None = None) -> None:
        """Forget cached answers (all, or one key) so the next assembly checks again."""
        with self._lock:
            if key is None:
                self._cache.clear()
            else:
                self._cache.pop(key, None)

    def evaluate(self, keys: Sequence[RequirementKey]) -> tuple[Availability, ...]:
        """The availability of each key, in order; runs what is stale, within the budget."""
        now = self._clock()
        out: list[Availability | None] = []
        pending: list[int] = []
        cache = self._cache
        for i, key in enumerate(keys):
            kind, subject = key
            if kind == "env":
                out.append(AVAILABLE if os.environ.get(subject) else _env_missing(subject))
                continue
            entry = cache.get(key)
            if entry is not None and entry.expires > now:
                out.append(entry.value)
                continue
            if kind == "check":
                out.append(None)
                pending.append(i)
            else:
                out.append(self._store(key, _probe_static(kind, subject), now))
        if pending:
            self._run_checks(keys, pending, out)
        return tuple(a if a is not None else AVAILABLE for a in out)

    def _run_checks(self, keys: Sequence[RequirementKey], pending: list[int], out: list[Any]) -> None:
        jobs = [(i, self._start(keys[i])) for i in pending]
        deadline = time.monotonic() + self.budget_s
        for i, job in jobs:
            job.done.wait(max(0.0, deadline - time.monotonic()))
            out[i] = self._settle(keys[i], job)

    def _start(self, key: RequirementKey) -> _Job:
        with self._lock:
            job = self._jobs.get(key)
            if job is not None:  # still running since an earlier assembly: wait for the same one
                return job
            job = self._jobs[key] = _Job()
            self.probe_calls += 1
        check = key[1]

        def run() -> None:
            try:
                job.result = _as_availability(check, check())
            except BaseException as exc:  # boundary: a user check may fail in any way
                job.result = exc
            finally:
                job.done.set()
                with self._lock:
                    if self._jobs.get(key) is job:
                        del self._jobs[key]
                if not isinstance(job.result, BaseException) and job.result is not None:
                    self._store(key, job.result, self._clock())

        # A raw thread: unlike threading.Thread.start() it does not wait for the new thread to be
        # scheduled (that hand-shake cost ms per check under load), and like a daemon thread it
        # never holds up interpreter exit, so a hung check cannot keep the process alive.
        _thread.start_new_thread(run, ())
        return job

    def _settle(self, key: RequirementKey, job: _Job) -> Availability:
        now = self._clock()
        if job.done.is_set() and isinstance(job.result, Availability):
            return self._store(key, job.result, now)
        if job.done.is_set():
            exc = job.result
            why = describe_exception(exc) if isinstance(exc, BaseException) else repr(exc)
            failure = Availability.no(f"check {_check_name(key[1])} raised {why}")
        else:
            failure = Availability.no(
                f"check {_check_name(key[1])} timed out after {round(self.budget_s * 1000)} ms"
            )
        entry = self._cache.get(key)
        if entry is not None and entry.last_good is not None and now - entry.last_good < self.flap_grace_s:
            # The grace answer is cached, so assemblies inside the grace window do not probe the
            # failing check again and again, but never past the window's end: then the check is
            # probed again and its failure shows. A late answer from a running check replaces it.
            grace = Availability.yes(f"kept last good answer ({failure.reason})")
            ends = min(now + self.ttl_s, entry.last_good + self.flap_grace_s)
            self._cache[key] = _Entry(grace, ends, entry.last_good)
            return grace
        if job.done.is_set():  # a raised check is cached like any answer; a pending one is not
            self._store(key, failure, now, good=False)
        return failure

    def _store(
        self, key: RequirementKey, value: Availability, now: float, *, good: bool = True
    ) -> Availability:
        prev = self._cache.get(key)
        last_good = now if (value.ok and good) else (prev.last_good if prev else None)
        self._cache[key] = _Entry(value, now + self.ttl_s, last_good)
        return value


def combine(results: Sequence[Availability]) -> Availability:
    """One tool's availability from its requirements: every failing reason, joined."""
    failing = [r.reason or "unavailable" for r in results if not r.ok]
    return Availability.no("; ".join(failing)) if failing else AVAILABLE


def _env_missing(name: str) -> Availability:
    return Availability.no(f"env {name} not set")


def _probe_static(kind: str, subject: str) -> Availability:
    if kind == "bin":
        import shutil

        return AVAILABLE if shutil.which(subject) else Availability.no(f"binary {subject} not found on PATH")
    if kind == "module":
        try:
            found = importlib.util.find_spec(subject) is not None
        except (ImportError, ValueError):
            found = False
        return AVAILABLE if found else Availability.no(f"Python module {subject} not installed")
    if kind == "workspace":
        return _workspace_folder(subject)
    raise ValueError(f"unknown requirement kind {kind!r}")


def _workspace_folder(path: str) -> Availability:
    """Whether the workspace folder can be opened, as the file tools open it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            problem = "does not exist"
        elif exc.errno == errno.ENOTDIR:
            problem = "is not a folder"
        else:
            problem = f"cannot be opened: {exc.strerror}"
        return Availability.no(f"{WORKSPACE_KEY}: the folder {path} {problem}")
    try:
        # The config refuses `/` when it is read; this holds when the path comes to lead there later.
        opened, root = os.fstat(fd), os.stat("/")
    finally:
        os.close(fd)
    if (opened.st_dev, opened.st_ino) == (root.st_dev, root.st_ino):
        return Availability.no(
            f"{WORKSPACE_KEY}: the folder {path} is the root of the file system: tools confined to "
            "it would reach the whole machine; name the project's folder instead"
        )
    return AVAILABLE


def _as_availability(check: Callable[[], Any], value: Any) -> Availability:
    if isinstance(value, Availability):
        return value
    if value is True:
        return AVAILABLE
    if value is False or value is None:
        return Availability.no(f"check {_check_name(check)} returned {value}")
    return Availability.no(f"check {_check_name(check)} returned {type(value).__name__}, not bool")


def _check_name(check: Any) -> str:
    return getattr(check, "__qualname__", None) or getattr(check, "__name__", None) or repr(check)
