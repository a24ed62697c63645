"""The Ray engine: the same work as the local engine, on Ray actors (extra `tooldeck[ray]`).

Each worker is an async actor asking for 1 CPU, holding one `ItemRunner` (the deck loaded
once, one model client) and running up to `concurrency` items at once; the driver keeps exactly
that many calls in flight per actor, as the local engine does with its processes, so it knows
which items an actor held when it went away. Results come back to the driver, which alone
writes the output file.

On a real cluster workers go away: a node is removed or crashes, the out-of-memory killer picks
an actor, the autoscaler preempts a spot node. The items the actor held are retried once, each
alone on a surviving actor, and their result lines say why (`retried_after`); the lost actor is
replaced by a new one, which starts when the cluster has room for it. Only actors that have
answered `ready` are given items, so nothing queues behind an actor the cluster cannot place:
the run goes on with the actors it has, says so on stderr, and uses the others when they start
(a node added by the autoscaler, say). When no actor at all runs for `placement_timeout_s`,
the run ends with an error naming what it asked for and what the cluster has.

Without `--ray-address` a Ray instance is started for this run only and stopped at its end
(never an instance already running on the machine): no dashboard, no usage stats, bound to the
loopback interface, its temp folder where `RAY_TMPDIR` says (default /tmp/ray). With an address
the run joins that cluster; its workers must be able to import tooldeck and whatever the
config's `use:`/`discover:` entries name.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tooldeck.batch.dispatch import BatchRunError, Dispatch, Job, runs_alone
from tooldeck.batch.items import BatchItem
from tooldeck.batch.results import ItemResult, LossCause, WorkerLoss
from tooldeck.batch.worker import ItemRunner, WorkerSpec

PLACEMENT_TIMEOUT_S = 120.0  # no actor running at all for this long: the run fails
SHORTFALL_NOTICE_S = 5.0  # actors not started after this long are reported as missing
START_FAILURES_ALLOWED = 3  # actors whose start-up raised: the run cannot work
POLL_S = 0.2
CPUS_PER_ACTOR = 1


class BatchActor:
    """The body of a Ray actor (made remote at run time, so importing this costs no Ray)."""

    def __init__(self, spec: WorkerSpec, label: str) -> None:
        self.runner = ItemRunner(spec, worker=label)

    async def ready(self) -> str:
        return self.runner.worker

    async def run(self, item: BatchItem, attempt: int) -> ItemResult:
        return await self.runner.run(item, attempt)


class RayEngine:
    def __init__(
        self,
        spec: WorkerSpec,
        *,
        workers: int,
        address: str | None = None,
        placement_timeout_s: float = PLACEMENT_TIMEOUT_S,
    ) -> None:
        self.spec = spec
        self.workers = workers
        self.address = address
        self.placement_timeout_s = placement_timeout_s

    def run(self, dispatch: Dispatch, tick: Callable[[], None]) -> None:
        ray, owned = connect_ray(self.address, self.workers)
        pool = _ActorPool(ray, self, dispatch)
        try:
            pool.run(tick)
        finally:
            pool.kill_all()  # on a cluster that outlives the run, too
            if owned:
                ray.shutdown()


@dataclass
class _Actor:
    label: str
    handle: Any
    since: float  # when it was asked for
    starting: Any | None  # its `ready` call until that answers
    calls: dict[Any, Job] = field(default_factory=dict)  # object ref -> the job it runs

    @property
    def ready(self) -> bool:
        return self.starting is None


class _ActorPool:
    """One run's actors: started, fed, watched, replaced."""

    def __init__(self, ray: Any, engine: RayEngine, dispatch: Dispatch) -> None:
        self.ray = ray
        self.spec = engine.spec
        self.asked = engine.workers
        self.placement_timeout_s = engine.placement_timeout_s
        self.dispatch = dispatch
        self.remote = ray.remote(BatchActor)
        self.actors: dict[str, _Actor] = {}
        self.count = 0
        self.start_failures = 0
        self.none_since: float | None = time.monotonic()  # since when no actor is ready
        self.said: tuple[int, int] | None = None  # (ready, missing) when a shortfall was last said
        self.said_small = False  # the cluster was said to be too small for all the workers
        self.checked = 0.0  # when its size was last read

    def run(self, tick: Callable[[], None]) -> None:
        self.dispatch.workers_asked = self.asked
        for _ in range(self.asked):
            self._start()
        while not self.dispatch.complete:
            for actor in list(self.actors.values()):
                if actor.ready:
                    self._feed(actor)
            self._wait()
            self._end_overdue()
            self._watch_placement()
            self.dispatch.workers_live = sum(a.ready for a in self.actors.values())
            tick()

    def _start(self) -> None:
        label = f"ray-{self.count}"
        self.count += 1
        options = {"max_concurrency": self.spec.concurrency, "num_cpus": CPUS_PER_ACTOR}
        handle = self.remote.options(**options).remote(self.spec, label)
        self.actors[label] = _Actor(label, handle, time.monotonic(), handle.ready.remote())

    def _feed(self, actor: _Actor) -> None:
        """Give the actor jobs up to its concurrency; a retry runs alone on an idle actor."""
        while len(actor.calls) < self.spec.concurrency:
            if any(runs_alone(job) for job in actor.calls.values()):
                return
            job = self.dispatch.take(actor.label, idle=not actor.calls)
            if job is None:
                return
            actor.calls[actor.handle.run.remote(job.item, job.attempt)] = job

    def _wait(self) -> None:
        """Wait a moment for any answer (an actor ready, a result, a death) and handle them all."""
        starting = {a.starting: a for a in self.actors.values() if a.starting is not None}
        calls = {ref: a for a in self.actors.values() for ref in a.calls}
        refs = [*starting, *calls]
        if not refs:
            time.sleep(POLL_S)
            return
        done, _ = self.ray.wait(refs, num_returns=1, timeout=POLL_S)
        if done:
            done, _ = self.ray.wait(refs, num_returns=len(refs), timeout=0)
        for ref in done:
            if ref in starting:
                self._started(starting[ref])
            elif calls[ref].label in self.actors and ref in calls[ref].calls:
                self._collect(calls[ref], ref)  # not an actor dropped by an earlier answer

    def _started(self, actor: _Actor) -> None:
        from ray.exceptions import RayActorError

        try:
            self.ray.get(actor.starting)
        except RayActorError as exc:
            self._drop(actor, loss_of(exc, actor.label), None)
            if exc.actor_init_failed:
                self.start_failures += 1
                if self.start_failures >= START_FAILURES_ALLOWED:
                    raise BatchRunError(f"Ray workers could not start: {brief(exc)}") from None
            return
        actor.starting = None
        self.none_since = None
        if self.said is not None:
            ready = sum(a.ready for a in self.actors.values())
            self.dispatch.notice(f"Ray worker {actor.label} joined: running on {ready} of {self.asked}")

    def _collect(self, actor: _Actor, ref: Any) -> None:
        from ray.exceptions import ObjectLostError, RayActorError, RayTaskError

        job = actor.calls.pop(ref)
        try:
            result: ItemResult = self.ray.get(ref)
        except (RayActorError, ObjectLostError) as exc:
            self._drop(actor, loss_of(exc, actor.label), job)
            return
        except RayTaskError as exc:  # a bug in the runner itself: recorded, the run goes on
            result = ItemResult.failed(
                job.item, f"Ray task failed: {brief(exc)}", attempts=job.attempt, worker=actor.label
            )
        self.dispatch.finished(result)

    def _drop(self, actor: _Actor, loss: WorkerLoss, job: Job | None) -> None:
        """The actor is gone (or given up on): its items are lost, a new actor takes its place."""
        del self.actors[actor.label]
        held = [j for j in (job, *actor.calls.values()) if j is not None]
        for lost in held:
            self.dispatch.lost(lost, loss)
        if actor.ready:
            ready = sum(a.ready for a in self.actors.values())
            self.dispatch.notice(
                f"Ray worker {actor.label} lost ({_CAUSE_WORDS[loss.cause]}) with {len(held)} item(s), "
                f"retried on the others; running on {ready} of {self.asked}, a new worker starts "
                "when the cluster has room"
            )
        self.ray.kill(actor.handle)  # it may only be unreachable: make sure it runs nothing more
        if not self.dispatch.complete:
            self._start()

    def _end_overdue(self) -> None:
        for job in self.dispatch.overdue():
            self.dispatch.expire(job)
            actor = self.actors.get(job.worker or "")
            if actor is None:
                continue
            actor.calls = {ref: held for ref, held in actor.calls.items() if held.key != job.key}
            why = f"Ray actor {actor.label} stopped answering (item {job.item.id!r} overran its timeout)"
            self._drop(actor, WorkerLoss("unresponsive", why, actor.label), None)

    def _watch_placement(self) -> None:
        """Say when fewer actors run than asked for; fail when none has run for too long."""
        now = time.monotonic()
        ready = sum(a.ready for a in self.actors.values())
        missing = sum(not a.ready and now - a.since > SHORTFALL_NOTICE_S for a in self.actors.values())
        if ready == 0 and self.none_since is None:
            self.none_since = now
        if self.none_since is not None and now - self.none_since > self.placement_timeout_s:
            raise BatchRunError(
                f"no Ray worker could be placed or started within {self.placement_timeout_s:g} s: "
                f"{self._asked_text()}; {cluster_text(self.ray)}"
            )
        if ready < len(self.actors) and not self.said_small and now - self.checked >= 1.0:
            self._check_capacity(now)
        if missing and (ready, missing) != self.said:
            self.said = (ready, missing)
            if ready:
                text = f"running on {ready} of {self.asked} Ray workers: {missing} not placed or started yet"
                then = "they join when the cluster has room"
            else:
                text = "no Ray worker placed or started yet"
                then = f"the run fails if none starts within {self.placement_timeout_s:g} s"
            self.dispatch.notice(f"{text} ({self._asked_text()}; {cluster_text(self.ray)}); {then}")

    def _check_capacity(self, now: float) -> None:
        """Say at once when the whole cluster has too few CPUs for the workers asked for."""
        self.checked = now
        try:
            cpus = float(self.ray.cluster_resources().get("CPU", 0.0))
        except Exception:  # a message's boundary: the cluster's state may be unreachable
            return
        if cpus < self.asked * CPUS_PER_ACTOR:
            self.said_small = True
            self.dispatch.notice(
                f"the cluster has {cpus:g} CPU in all, fewer than the {self.asked} worker(s) of "
                f"{CPUS_PER_ACTOR} CPU each asked for: the run uses the workers that can be placed; "
                "the others start when the cluster has room"
            )

    def _asked_text(self) -> str:
        return f"asked for {self.asked} worker(s) of {CPUS_PER_ACTOR} CPU each"

    def kill_all(self) -> None:
        for actor in self.actors.values():
            self.ray.kill(actor.handle)
        self.actors.clear()


def cluster_text(ray: Any) -> str:
    """What the cluster has, in CPUs and live nodes, for messages."""
    try:
        total = ray.cluster_resources().get("CPU", 0.0)
        free = ray.available_resources().get("CPU", 0.0)
        nodes = sum(1 for node in ray.nodes() if node.get("Alive"))
    except Exception as exc:  # a message's boundary: the cluster's state may be unreachable
        return f"the cluster's resources could not be read ({type(exc).__name__})"
    return f"the cluster has {total:g} CPU on {nodes} live node(s), {free:g} free"


_OOM = re.compile(r"\bOOM\b|out of memory|memory pressure|low on memory", re.IGNORECASE)
_NODE = re.compile(r"node (has )?died|node .{0,40}(terminated|removed|lost)", re.IGNORECASE)
_CAUSE_WORDS: dict[LossCause, str] = {
    "preempted": "its node was preempted",
    "node_lost": "its node was lost",
    "oom": "killed for lack of memory",
    "worker_died": "its process died",
    "unresponsive": "it stopped answering",
}


def loss_of(exc: BaseException, label: str) -> WorkerLoss:
    """Why Ray says an actor went away, as a `WorkerLoss` (preempted, node lost, OOM or died)."""
    from ray.exceptions import ObjectLostError

    text = str(exc)
    cause: LossCause
    if getattr(exc, "preempted", False):
        cause = "preempted"
    elif isinstance(exc, ObjectLostError) or _NODE.search(text):
        cause = "node_lost"
    elif _OOM.search(text):
        cause = "oom"
    else:
        cause = "worker_died"
    return WorkerLoss(
        cause,
        f"Ray actor {label} was lost while running this item ({_CAUSE_WORDS[cause]}): {brief(exc)}",
        label,
    )


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
            # "local": a new instance, never one found on the machine (`ray start`, a test cluster).
            ray.init(address="local", num_cpus=max(workers, os.cpu_count() or 1), **options)
        else:
            ray.init(address=address, **options)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        raise BatchRunError(f"cannot start or reach {where}: {brief(exc)}") from None
    return ray, True


_FIELD = re.compile(r"^\w+: ")  # Ray's "class_name: ...", "pid: ..." lines


def brief(exc: BaseException) -> str:
    """Ray's message without its field lines (ids, pids), cut to a readable length."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()] or [type(exc).__name__]
    kept = [line for line in lines if not _FIELD.match(line)] or lines[:1]
    text = " ".join(kept)
    return text if len(text) <= 600 else text[:300] + " ... " + text[-300:]
