"""Many agent runs at once: `tooldeck batch`, and the same from Python.

    from tooldeck.batch import BatchOptions, WorkerSpec, plan_batch, run_batch

    plan = plan_batch(BatchOptions(Path("prompts.jsonl"), Path("results.jsonl"), workers=4))
    summary = run_batch(plan, WorkerSpec(config=deck.config, model=settings, workdir="results.items"))

The journey: `items` (input lines) -> `run` (plan, resume) -> an engine (`local`: a process pool;
`ray_engine`: Ray actors) whose workers each hold an `ItemRunner` (`worker`: one deck, one model
client, a fresh agent per item over an `ItemDeck` view with the item's own folder) -> `results`
(one appended line per item) and `progress` (what a person sees).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tooldeck._utils.lazy import lazy_exports

if TYPE_CHECKING:
    from tooldeck.batch.dispatch import BatchRunError
    from tooldeck.batch.items import BatchItem, InputProblem, read_items
    from tooldeck.batch.progress import BatchSummary, Progress
    from tooldeck.batch.results import ItemResult, ResultWriter, finished_ids
    from tooldeck.batch.run import BatchInputError, BatchOptions, BatchPlan, plan_batch, run_batch
    from tooldeck.batch.worker import ItemRunner, WorkerSpec

__all__ = [
    "BatchInputError",
    "BatchItem",
    "BatchOptions",
    "BatchPlan",
    "BatchRunError",
    "BatchSummary",
    "InputProblem",
    "ItemResult",
    "ItemRunner",
    "Progress",
    "ResultWriter",
    "WorkerSpec",
    "finished_ids",
    "plan_batch",
    "read_items",
    "run_batch",
]

__getattr__ = lazy_exports(__name__, __file__, globals())
