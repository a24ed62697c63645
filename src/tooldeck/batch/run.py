"""One batch run, start to end: read the input, skip what is done, run the rest, write results.

    options = BatchOptions(Path("prompts.jsonl"), Path("results.jsonl"), workers=4, concurrency=8)
    plan = plan_batch(options)            # reads both files; raises BatchInputError on misuse
    summary = run_batch(plan, WorkerSpec(config=..., model=..., workdir=...))

The output is append-only: a run that dies loses no finished item, and `resume=True` runs only
the ids not yet in the output, and continues the items awaiting approval that `decisions` decide
(their new lines appended: the last line of an id is its result). Without `resume`, an existing non-empty output is refused rather
than mixed with or overwritten.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from tooldeck.batch.dispatch import BatchEngine, BatchRunError, Dispatch
from tooldeck.batch.items import BatchItem, InputProblem, Resumption, read_items
from tooldeck.batch.progress import BatchSummary, Progress
from tooldeck.batch.results import (
    ItemResult,
    NotResultsFile,
    ResultWriter,
    awaiting_results,
    finished_ids,
)
from tooldeck.batch.worker import WorkerSpec
from tooldeck.errors import BatchInputError as BatchInputError

if TYPE_CHECKING:
    from tooldeck.agent.interrupts import ApprovalDecision

Engine = Literal["local", "ray"]


@dataclass(frozen=True, slots=True)
class BatchOptions:
    input: Path
    out: Path
    workers: int = 2
    concurrency: int = 4
    engine: Engine = "local"
    ray_address: str | None = None
    resume: bool = False
    max_rps: float | None = None  # for the whole run; each worker gets its share
    # Ray: how long the run may have no worker placed before it fails (None: the engine's default)
    placement_timeout_s: float | None = None
    # Decisions on items awaiting approval in `out`: item id (as written) -> call id -> decision
    decisions: Mapping[str, Mapping[str, ApprovalDecision]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.decisions and not self.resume:
            raise BatchInputError(
                "--approve, --deny and --edit decide items awaiting approval in --out: add --resume"
            )
        if self.workers < 1:
            raise BatchInputError("--workers must be >= 1")
        if self.concurrency < 1:
            raise BatchInputError("--concurrency must be >= 1")
        if self.max_rps is not None and self.max_rps <= 0:
            raise BatchInputError("--max-rps must be > 0")
        if self.placement_timeout_s is not None:
            if self.engine != "ray":
                raise BatchInputError("--placement-timeout applies to --engine ray only")
            if self.placement_timeout_s <= 0:
                raise BatchInputError("--placement-timeout must be > 0 seconds")


@dataclass(frozen=True, slots=True)
class BatchPlan:
    options: BatchOptions
    items: list[BatchItem]  # still to run
    total: int  # valid items in the input
    skipped: int  # already in the output
    problems: list[InputProblem]
    unreadable_output_lines: int


def plan_batch(options: BatchOptions) -> BatchPlan:
    """Read the input and what the output already holds; decide what to run."""
    if not options.input.is_file():
        raise BatchInputError(f"input {options.input} is not a file")
    _check_out(options.out, options.input)
    try:
        items, problems = read_items(options.input)
    except OSError as exc:
        raise BatchInputError(f"cannot read {options.input}: {exc.strerror or exc}") from None
    try:
        done, unreadable = finished_ids(options.out)
    except NotResultsFile as exc:
        raise BatchInputError(
            f"--out {options.out} is not a tooldeck results file ({exc}); choose another file"
        ) from None
    except OSError as exc:
        raise BatchInputError(f"cannot read {options.out}: {exc.strerror or exc}") from None
    if (done or unreadable) and not options.resume:
        raise BatchInputError(
            f"--out {options.out} already holds {len(done)} result(s); pass --resume to run only the "
            "items not in it, or choose another file"
        )
    todo = [item for item in items if item.key not in done]
    if options.decisions:
        todo += _decided(options, items)
    return BatchPlan(options, todo, len(items), len(items) - len(todo), problems, unreadable)


def _decided(options: BatchOptions, items: list[BatchItem]) -> list[BatchItem]:
    """The items awaiting approval in the output that the options decide, each to continue its
    stored session; a decision for an item that is not waiting, or a call it does not wait on,
    is refused before anything runs."""
    try:
        waiting = awaiting_results(options.out)
    except OSError as exc:
        raise BatchInputError(f"cannot read {options.out}: {exc.strerror or exc}") from None
    by_key = {item.key: item for item in items}
    named = {str(line["id"]): key for key, line in waiting.items()}
    out = []
    for given, decisions in options.decisions.items():
        key = named.get(given)
        if key is None:
            ids = ", ".join(sorted(named)) or "none"
            raise BatchInputError(
                f"item {given!r} is not awaiting approval in {options.out} (awaiting: {ids})"
            )
        line, item = waiting[key], by_key.get(key)
        if item is None:
            raise BatchInputError(f"item {given!r} awaits approval but is not in {options.input}")
        pending = [str(p.get("call_id")) for p in line.get("pending", [])]
        unknown = sorted(set(decisions) - set(pending))
        if unknown:
            raise BatchInputError(
                f"item {given!r} does not wait on call {', '.join(unknown)} (pending: {', '.join(pending)})"
            )
        if not isinstance(line.get("session_id"), str):
            raise BatchInputError(f"the result line of item {given!r} names no session to resume")
        resume = Resumption(line["session_id"], dict(decisions))
        out.append(dataclasses.replace(item, resume=resume))
    return out


def _check_out(out: Path, input_path: Path) -> None:
    """The output must be a regular file, or a path where one can be made; never a link."""
    if out.is_symlink():
        raise BatchInputError(
            f"--out {out} is a symbolic link; give the path of a regular file (results are not "
            "written through links)"
        )
    if out.is_dir():
        raise BatchInputError(f"--out {out} is a folder; give a file path")
    if out.exists() and not out.is_file():
        raise BatchInputError(f"--out {out} is not a regular file; give a file path")
    if out.exists() and out.resolve() == input_path.resolve():
        raise BatchInputError("--out must not be the input file")
    if not out.parent.is_dir():
        raise BatchInputError(f"--out {out}: folder {out.parent} does not exist")


def run_batch(
    plan: BatchPlan,
    spec: WorkerSpec,
    *,
    progress: Progress | None = None,
    on_result: Callable[[ItemResult], None] | None = None,
) -> BatchSummary:
    """Run the plan's items on its engine; every item gets exactly one line in the output."""
    options = plan.options
    workers = max(1, min(options.workers, len(plan.items)))
    if options.max_rps is not None:
        spec = dataclasses.replace(spec, max_rps=options.max_rps / workers)
    progress = progress or Progress(len(plan.items), live=False)
    started = time.monotonic()
    try:
        writer = ResultWriter(options.out)
    except OSError as exc:
        raise BatchRunError(f"cannot open {options.out}: {exc.strerror or exc}") from None
    with writer:

        def record(result: ItemResult) -> None:
            try:
                writer.write(result)
            except OSError as exc:
                raise BatchRunError(f"cannot write to {options.out}: {exc.strerror or exc}") from None
            progress.result(result)
            if on_result is not None:
                on_result(result)

        dispatch = Dispatch(plan.items, on_result=record, on_notice=progress.notice, timeout_s=spec.timeout_s)
        progress.follow(dispatch)
        try:
            if plan.items:
                _engine(options, spec, workers).run(dispatch, progress.tick)
        finally:
            progress.close()
    counts = progress.counts
    return BatchSummary(
        items=plan.total,
        skipped=plan.skipped,
        ran=dispatch.done,
        ok=counts["ok"],
        error=counts["error"],
        timeout=counts["timeout"],
        bad_lines=len(plan.problems),
        retried=dispatch.retried,
        wall_s=time.monotonic() - started,
        notices=tuple(progress.notices),
        awaiting_approval=counts["awaiting_approval"],
    )


def _engine(options: BatchOptions, spec: WorkerSpec, workers: int) -> BatchEngine:
    if options.engine == "ray":
        from tooldeck.batch.ray_engine import RayEngine

        if options.placement_timeout_s is None:
            return RayEngine(spec, workers=workers, address=options.ray_address)
        return RayEngine(
            spec,
            workers=workers,
            address=options.ray_address,
            placement_timeout_s=options.placement_timeout_s,
        )
    from tooldeck.batch.local import LocalEngine

    return LocalEngine(spec, workers=workers)
