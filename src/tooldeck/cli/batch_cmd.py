"""`tooldeck batch INPUT.jsonl --out RESULTS.jsonl`: many agent runs, one result line per item.

Exit codes: 0 every item got its result line (whatever its status); 1 the run itself failed
(workers could not start, Ray could not be reached), finished items are kept and `--resume`
continues; 2 bad usage or config (a decision for an item or call that is not waiting: nothing
runs); 130 interrupted (finished items are kept). `--resume --approve ITEM:CALL_ID` (and `--deny`,
`--edit ... --args JSON`) continues the items awaiting approval in `--out` with those decisions.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tooldeck._utils.text import for_terminal
from tooldeck.cli.common import (
    add_config,
    add_json,
    add_model_options,
    add_platform,
    fail,
    load_deck,
    print_json,
)
from tooldeck.cli.decisions import add_decision_options, given_decisions
from tooldeck.cli.main import CliError
from tooldeck.cli.output import emit

HEARTBEAT_S = 30.0  # without a terminal, a progress line this often: a log shows the run is alive

if TYPE_CHECKING:
    from tooldeck import Config
    from tooldeck.agent.interrupts import ApprovalDecision
    from tooldeck.agent.models.base import ModelSettings
    from tooldeck.batch.run import BatchOptions, BatchPlan


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "input", type=Path, help="JSON lines: {id, prompt} plus optional system, metadata, tools"
    )
    parser.add_argument(
        "--out", "-o", type=Path, required=True, help="results, one JSON line per item (appended)"
    )
    parser.add_argument(
        "--workers", "-w", type=int, default=None, help="worker processes or Ray actors (default: CPU count)"
    )
    parser.add_argument("--concurrency", type=int, default=4, help="items running at once in each worker")
    parser.add_argument("--engine", choices=("local", "ray"), default="local")
    parser.add_argument(
        "--ray-address", default=None, help="join this Ray cluster (default: a local instance)"
    )
    parser.add_argument(
        "--placement-timeout",
        type=float,
        default=None,
        help="Ray: fail when no worker can be placed for this many seconds (default 120)",
    )
    parser.add_argument("--resume", action="store_true", help="skip the ids already in --out")
    parser.add_argument("--timeout", type=float, default=None, help="seconds an item may take (wall)")
    parser.add_argument(
        "--max-iterations", type=int, default=None, help="tool iterations per item (default 90)"
    )
    parser.add_argument("--max-rps", type=float, default=None, help="model requests per second, whole run")
    parser.add_argument(
        "--workdir", type=Path, default=None, help="items' folders (default: --out with suffix .items)"
    )
    add_model_options(parser)
    add_config(parser)
    add_platform(parser)
    add_json(parser)
    add_decision_options(parser, "ITEM:CALL_ID", "items awaiting approval in --out; with --resume")


def run(args: argparse.Namespace) -> int:
    from tooldeck.batch.dispatch import BatchRunError
    from tooldeck.batch.progress import Progress
    from tooldeck.batch.run import run_batch
    from tooldeck.batch.worker import WorkerSpec

    if args.timeout is not None and args.timeout <= 0:
        fail("--timeout must be > 0 seconds")
    if args.max_iterations is not None and args.max_iterations < 1:
        fail("--max-iterations must be >= 1")
    options = _options(args)
    plan = _plan(options)
    config, settings = _model(args)
    workdir = _workdir(args.workdir, options.out)
    spec = WorkerSpec(
        config=config,
        model=settings,
        workdir=str(workdir),
        platform=args.platform,
        max_iterations=args.max_iterations,
        timeout_s=args.timeout,
        concurrency=options.concurrency,
    )
    live = sys.stderr.isatty() and not args.as_json
    progress = Progress(len(plan.items), live=live, heartbeat_s=None if live else HEARTBEAT_S)
    try:
        summary = run_batch(plan, spec, progress=progress)
    except BatchRunError as exc:
        fail(f"the batch failed: {exc}; {_kept(progress.done, plan.skipped, options.out)}", 1)
    except KeyboardInterrupt:
        raise CliError(
            f"interrupted; {progress.done} finished item(s) are in {options.out} (continue with --resume)",
            130,
        ) from None
    if args.as_json:
        print_json({**summary.to_json(), "out": str(options.out), "workdir": str(workdir)})
    else:
        emit(for_terminal(f"tooldeck batch: {summary.line()}; results in {options.out}"))
    return 0 if summary.ran == len(plan.items) else 1


def _kept(done: int, skipped: int, out: Path) -> str:
    """What a failed run leaves in its output, said truthfully."""
    if done:
        return f"{done} finished item(s) are in {out} (continue with --resume)"
    if skipped:
        return f"no item finished in this run; {out} still holds its {skipped} earlier result(s)"
    return "no item finished"


def _options(args: argparse.Namespace) -> BatchOptions:
    from tooldeck.batch.run import BatchInputError, BatchOptions

    try:
        return BatchOptions(
            args.input,
            args.out,
            workers=args.workers if args.workers is not None else (os.cpu_count() or 1),
            concurrency=args.concurrency,
            engine=args.engine,
            ray_address=args.ray_address,
            resume=args.resume,
            max_rps=args.max_rps,
            placement_timeout_s=args.placement_timeout,
            decisions=_by_item(given_decisions(args)),
        )
    except BatchInputError as exc:
        fail(str(exc))


def _by_item(decisions: dict[str, ApprovalDecision]) -> dict[str, dict[str, ApprovalDecision]]:
    """`ITEM:CALL_ID` decisions by item id, then call id (split at the last colon: call ids
    have none, item ids may)."""
    out: dict[str, dict[str, ApprovalDecision]] = {}
    for given, decision in decisions.items():
        item, colon, call_id = given.rpartition(":")
        if not colon or not item or not call_id:
            fail(f"{given!r}: a batch decision names ITEM:CALL_ID (the item's id, a colon, the call id)")
        out.setdefault(item, {})[call_id] = decision
    return out


def _plan(options: BatchOptions) -> BatchPlan:
    from tooldeck.batch.run import BatchInputError, plan_batch

    try:
        plan = plan_batch(options)
    except BatchInputError as exc:
        fail(str(exc))
    for problem in plan.problems:
        print(
            for_terminal(f"tooldeck: {options.input}:{problem.line}: {problem.message}; skipped"),
            file=sys.stderr,
        )
    if plan.unreadable_output_lines:
        print(
            f"tooldeck: the last line of {options.out} was cut by a crash; it is removed and its "
            "item runs again",
            file=sys.stderr,
        )
    return plan


def _model(args: argparse.Namespace) -> tuple[Config, ModelSettings]:
    """The config (checked for the platform) and the model settings; problems exit 2 before any work."""
    from tooldeck.agent.models.factory import resolve_model_settings
    from tooldeck.errors import ConfigError, ModelNotConfigured, ToolsetError

    with load_deck(args.config) as deck:
        try:
            deck.loadout(args.platform)
            settings = resolve_model_settings(
                deck.config.model,
                model=args.model,
                base_url=args.base_url,
                provider=args.provider,
                strict_tools=deck.config.dialects.openai.strict,
                reasoning_effort=args.reasoning,
                reasoning_budget=args.reasoning_budget,
            )
        except ModelNotConfigured as exc:
            fail(str(exc))
        except (ConfigError, ToolsetError) as exc:
            fail(f"config error: {exc}")
        return deck.config, settings


def _workdir(given: Path | None, out: Path) -> Path:
    if given is None:
        given = out.with_suffix(".items") if out.suffix and out.suffix != ".items" else Path(f"{out}.items")
    if given.exists() and not given.is_dir():
        fail(f"--workdir {given} is a file; give a folder")
    return given.resolve()
