"""The Ray engine: the same work as the local engine, on Ray actors (extra `tooldeck[ray]`).

Each worker is an async actor holding one `ItemRunner` (the deck loaded once, one model
client) and running up to `concurrency` items at once; the driver keeps exactly that many
calls in flight per actor, as the local engine does with its processes, so it knows which
items an actor held when it died: each is retried once, alone on an idle actor, then
recorded as an error. Results come back to the driver, which alone writes the output file.

Without `--ray-address` a Ray instance is started for this run only and stopped at its end:
no dashboard, no usage stats, bound to the loopback interface, its temp folder where
`RAY_TMPDIR` says (default /tmp/ray). With an address the run joins that cluster; its workers
must be able to import tooldeck and whatever the config's `use:`/`discover:` entries name.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from tooldeck.batch.dispatch import BatchRunError, Dispatch, Job, runs_alone
from tooldeck.batch.items import BatchItem
from tooldeck.batch.results import ItemResult
from tooldeck.batch.worker import ItemRunner, WorkerSpec

START_TIMEOUT_S = 300.0  # actors waiting for a cluster's free CPUs
POLL_S = 0.2


class BatchActor:
    """The body of a Ray actor (made remote at run time, so importing this costs no Ray)."""

    def __init__(self, spec: WorkerSpec, label: str) -> None:
        self.runner = ItemRunner(spec, worker=label)

    async def ready(self) -> str:
        return self.runner.worker

    async def run(self, item: BatchItem, attempt: int) -> ItemResult:
        return await self.runner.run(item, attempt)


class RayEngine:
    def __init__(self, spec: WorkerSpec, *, workers: int, address: str | None = None) -> None:
        self.spec = spec
        self.workers = workers
        self.address = address
        self._count = 0

    def run(self, dispatch: Dispatch, tick: Callable[[], None]) -> None:
        ray, owned = connect_ray(self.address, self.workers)
        actors: dict[str, Any] = {}
        try:
            self._run(ray, dispatch, tick, actors)
        finally:
            for actor in actors.values():  # on a cluster that outlives the run, too
                ray.kill(actor)
            if owned:
                ray.shutdown()

    def _run(self, ray: Any, dispatch: Dispatch, tick: Callable[[], None], actors: dict[str, Any]) -> None:
        remote = ray.remote(BatchActor)
        for _ in range(self.workers):
            label = self._label()
            actors[label] = self._start(remote, label)
        self._await_ready(ray, actors)
        calls: dict[Any, tuple[str, Job]] = {}  # object ref -> (actor label, job)
        load = dict.fromkeys(actors, 0)
        while not dispatch.complete:
            for label, actor in actors.items():
                self._feed(label, actor, dispatch, calls, load)
            done, _ = ray.wait(list(calls), num_returns=1, timeout=POLL_S) if calls else ([], [])
            for ref in done:
                label, job = calls.pop(ref)
                if label in load:  # not an actor already replaced after an earlier failed call
                    load[label] -= 1
                self._collect(ray, ref, label, job, dispatch, actors, load, remote)
            tick()

    def _feed(
        self,
        label: str,
        actor: Any,
        dispatch: Dispatch,
        calls: dict[Any, tuple[str, Job]],
        load: dict[str, int],
    ) -> None:
        """Give the actor jobs up to its concurrency; a retry runs alone on an idle actor."""
        if any(owner == label and runs_alone(job) for owner, job in calls.values()):
            return
        while load[label] < self.spec.concurrency and (job := dispatch.take(idle=load[label] == 0)):
            calls[actor.run.remote(job[0], job[1])] = (label, job)
            load[label] += 1
            if runs_alone(job):
                return

    def _collect(
        self,
        ray: Any,
        ref: Any,
        label: str,
        job: Job,
        dispatch: Dispatch,
        actors: dict[str, Any],
        load: dict[str, int],
        remote: Any,
    ) -> None:
        from ray.exceptions import RayActorError, RayTaskError

        try:
            result: ItemResult = ray.get(ref)
        except RayActorError as exc:
            dispatch.lost(
                job, f"Ray actor {label} died ({_first_line(exc)}) while running this item", worker=label
            )
            if label in actors:  # the first of its calls to fail: replace the actor
                del actors[label]
                del load[label]
                fresh = self._label()
                actors[fresh] = self._start(remote, fresh)
                load[fresh] = 0
            return
        except RayTaskError as exc:  # a bug in the runner itself: recorded, the run goes on
            result = ItemResult.failed(
                job[0], f"Ray task failed: {_first_line(exc)}", attempts=job[1], worker=label
            )
        dispatch.finished(result)

    def _label(self) -> str:
        label = f"ray-{self._count}"
        self._count += 1
        return label

    def _start(self, remote: Any, label: str) -> Any:
        return remote.options(max_concurrency=self.spec.concurrency, num_cpus=1).remote(self.spec, label)

    def _await_ready(self, ray: Any, actors: dict[str, Any]) -> None:
        from ray.exceptions import GetTimeoutError, RayActorError

        try:
            ray.get([a.ready.remote() for a in actors.values()], timeout=START_TIMEOUT_S)
        except RayActorError as exc:
            raise BatchRunError(f"Ray workers could not start: {_first_line(exc)}") from None
        except GetTimeoutError:
            raise BatchRunError(
                f"Ray workers did not start within {START_TIMEOUT_S:g} s (each needs 1 CPU; "
                f"{len(actors)} asked for)"
            ) from None


def connect_ray(address: str | None, workers: int) -> tuple[Any, bool]:
    """Join the cluster at `address`, or start a private local instance on loopback; and whether
    this run started Ray (and so must stop it)."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if address is None:
        # A single-machine instance: every Ray process listens on 127.0.0.1 only.
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    try:
        import ray
    except ImportError:
        raise BatchRunError(
            "the ray engine needs Ray: pip install 'tooldeck[ray]' (or use --engine local)"
        ) from None
    if ray.is_initialized():  # a program that already uses Ray: run on its connection
        return ray, False
    options: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": False,
        "configure_logging": False,
    }
    try:
        if address is None:
            ray.init(num_cpus=max(workers, os.cpu_count() or 1), **options)
        else:
            ray.init(address=address, **options)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        raise BatchRunError(f"cannot start or reach {where}: {_first_line(exc)}") from None
    return ray, True


def _first_line(exc: BaseException) -> str:
    """Ray's own first line, and the last one when it differs (the error raised inside the actor)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()] or [type(exc).__name__]
    brief = lines[0][:300]
    if len(lines) > 1 and lines[-1] != lines[0]:
        brief += f" ... {lines[-1][:300]}"
    return brief
