"""The driver's book of a run (`Dispatch`), shared by both engines: retries after a lost worker,
one result per item, retries never starved by the queue, items ended past their deadline."""

from __future__ import annotations

import dataclasses

from hypothesis import given
from hypothesis import strategies as st

from tooldeck.batch.dispatch import Dispatch, Job, grace_for, runs_alone
from tooldeck.batch.items import BatchItem
from tooldeck.batch.results import ItemResult, WorkerLoss

NODE_LOST = WorkerLoss("node_lost", "Ray actor ray-1 was lost while running this item", "ray-1")


def book(count: int, **options: float) -> tuple[Dispatch, list[ItemResult]]:
    recorded: list[ItemResult] = []
    items = [BatchItem(f"i{n}", f"prompt {n}") for n in range(count)]
    return Dispatch(items, on_result=recorded.append, **options), recorded


def answer(job: Job, status: str = "ok") -> ItemResult:
    return ItemResult(
        job.item.id, "ok" if status == "ok" else "error", attempts=job.attempt, worker=job.worker
    )


def test_a_lost_item_is_retried_once_and_its_result_says_why() -> None:
    dispatch, recorded = book(2)
    first = dispatch.take("w1", idle=True)
    other = dispatch.take("w1", idle=False)
    assert first is not None and other is not None and first.worker == "w1"
    dispatch.lost(first, NODE_LOST)
    dispatch.lost(other, NODE_LOST)
    assert dispatch.retried == 2 and not dispatch.running
    retry = dispatch.take("w2", idle=True)
    assert retry is not None and retry.attempt == 2 and runs_alone(retry) and retry.after == NODE_LOST
    assert dispatch.finished(answer(retry))
    assert recorded[0].retried_after == NODE_LOST and recorded[0].to_json()["retried_after"] == {
        "cause": "node_lost",
        "detail": NODE_LOST.detail,
        "worker": "ray-1",
    }
    again = dispatch.take("w2", idle=True)
    assert again is not None and again.item == other.item
    dispatch.lost(again, WorkerLoss("oom", "killed for lack of memory", "w2"))
    assert recorded[1].status == "error" and recorded[1].attempts == 2
    assert recorded[1].error == "killed for lack of memory; the item was tried 2 times"
    assert recorded[1].retried_after == NODE_LOST  # the first loss is still told
    assert dispatch.complete


def test_a_result_for_an_item_not_running_is_dropped() -> None:
    dispatch, recorded = book(1)
    job = dispatch.take("w1", idle=True)
    assert job is not None
    assert dispatch.finished(answer(job))
    assert not dispatch.finished(answer(job))  # reported twice
    dispatch.lost(job, NODE_LOST)  # and then its worker died: nothing more
    assert [r.id for r in recorded] == ["i0"] and dispatch.retried == 0


def test_a_waiting_retry_drains_one_busy_worker_while_others_keep_working() -> None:
    dispatch, _ = book(10)
    held = [dispatch.take(w, idle=False) for w in ("a", "a", "b", "b")]
    assert all(held)
    lost = held[0]
    assert lost is not None
    dispatch.lost(lost, NODE_LOST)
    assert dispatch.take("b", idle=False) is None  # b is left to drain for the retry
    assert dispatch.take("a", idle=False) is not None  # a is not held up
    b_jobs = [j for j in dispatch.running.values() if j.worker == "b"]
    for job in b_jobs:
        dispatch.finished(answer(job))
    retry = dispatch.take("b", idle=True)
    assert retry is not None and retry.attempt == 2


def test_a_drain_waiting_on_a_gone_worker_passes_to_another() -> None:
    dispatch, _ = book(6)
    a = dispatch.take("a", idle=True)
    b = dispatch.take("b", idle=True)
    assert a is not None and b is not None
    dispatch.lost(a, NODE_LOST)
    assert dispatch.take("b", idle=False) is None  # b drains
    dispatch.lost(b, NODE_LOST)  # and is lost in turn
    assert dispatch.take("c", idle=False) is None  # c drains now, instead of nobody
    retry = dispatch.take("c", idle=True)
    assert retry is not None and retry.attempt == 2


def test_an_item_past_its_timeout_and_grace_is_ended_as_timeout_once() -> None:
    dispatch, recorded = book(2, timeout_s=10.0)
    assert dispatch.deadline_s is not None and dispatch.deadline_s == 10.0 + grace_for(10.0)
    job = dispatch.take("w1", idle=True)
    fresh = dispatch.take("w1", idle=False)
    assert job is not None and fresh is not None
    late = job.started + dispatch.deadline_s + 1
    dispatch.running[fresh.key] = dataclasses.replace(fresh, started=late - 1)
    assert dispatch.overdue(late) == [job]
    dispatch.expire(job)
    assert recorded[0].status == "timeout" and "the driver ended the worker" in (recorded[0].error or "")
    dispatch.lost(job, WorkerLoss("unresponsive", "stopped answering", "w1"))  # its worker ended
    assert not dispatch.finished(answer(job))
    assert len(recorded) == 1 and dispatch.retried == 0


def test_without_a_timeout_nothing_is_ever_overdue() -> None:
    dispatch, _ = book(1)
    job = dispatch.take("w1", idle=True)
    assert job is not None and dispatch.overdue(job.started + 1e9) == []


@given(st.floats(min_value=0.001, max_value=1e6))
def test_the_grace_is_bounded(timeout: float) -> None:
    assert 5.0 <= grace_for(timeout) <= 60.0


@given(st.lists(st.sampled_from(["take_a", "take_b", "finish", "lose", "expire"]), max_size=60))
def test_whatever_happens_each_item_gets_at_most_one_result(steps: list[str]) -> None:
    dispatch, recorded = book(5, timeout_s=1.0)
    for step in steps:
        running = list(dispatch.running.values())
        if step.startswith("take"):
            worker = step[-1]
            dispatch.take(worker, idle=not any(j.worker == worker for j in running))
        elif running and step == "finish":
            dispatch.finished(answer(running[0]))
        elif running and step == "lose":
            dispatch.lost(running[0], NODE_LOST)
        elif running and step == "expire":
            dispatch.expire(running[0])
        ids = [r.id for r in recorded]
        assert len(ids) == len(set(ids)) == dispatch.done
        assert dispatch.done + len(dispatch.running) + dispatch.waiting == dispatch.total
