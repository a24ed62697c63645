"""The progress line a person sees on a terminal, and the summary otherwise."""

from __future__ import annotations

import io

from tooldeck.batch.dispatch import Dispatch
from tooldeck.batch.items import BatchItem
from tooldeck.batch.progress import BatchSummary, Progress
from tooldeck.batch.results import ItemResult, WorkerLoss


def test_live_progress_shows_done_failed_rate_and_eta() -> None:
    stream = io.StringIO()
    progress = Progress(4, stream=stream, live=True)
    progress.started -= 2.0  # two seconds in
    progress.result(ItemResult(1, "ok"))
    progress.result(ItemResult(2, "error", error="x"))
    line = progress.status_line()
    assert line.startswith("done 2/4  failed 1  ")
    assert "/s  ETA 0:0" in line
    progress.result(ItemResult(3, "timeout"))
    progress.result(ItemResult(4, "ok"))
    progress.close()
    text = stream.getvalue()
    assert text.startswith("\r") and text.endswith("\n")
    assert "done 4/4  failed 1  timeout 1" in text.splitlines()[-1]


def test_without_a_terminal_nothing_is_drawn() -> None:
    stream = io.StringIO()
    progress = Progress(2, stream=stream, live=False)
    progress.result(ItemResult(1, "ok"))
    progress.close()
    assert stream.getvalue() == ""


def test_the_line_shows_running_pending_retried_and_live_workers() -> None:
    progress = Progress(5, stream=io.StringIO(), live=True)
    dispatch = Dispatch(
        [BatchItem(f"i{n}", "p") for n in range(5)], on_result=progress.result, on_notice=progress.notice
    )
    progress.follow(dispatch)
    dispatch.workers_asked, dispatch.workers_live = 3, 1
    jobs = [dispatch.take("ray-0", idle=n == 0) for n in range(2)]
    assert jobs[0] is not None and jobs[1] is not None
    dispatch.lost(jobs[0], WorkerLoss("node_lost", "gone", "ray-0"))
    line = progress.status_line()
    assert line.startswith("done 0/5  running 1  pending 4  retried 1  failed 0  workers 1/3  ")


def test_a_notice_is_a_line_of_its_own_live_or_not() -> None:
    stream = io.StringIO()
    live = Progress(2, stream=stream, live=True)
    live.result(ItemResult(1, "ok"))
    live.notice("running on 1 of 3 Ray workers")
    assert stream.getvalue().endswith("\rtooldeck batch: running on 1 of 3 Ray workers\n")
    plain = io.StringIO()
    quiet = Progress(2, stream=plain, live=False)
    quiet.notice("a worker joined")
    quiet.tick()
    assert plain.getvalue() == "tooldeck batch: a worker joined\n"
    assert quiet.notices == ["a worker joined"]


def test_without_a_terminal_a_heartbeat_line_tells_the_run_is_alive() -> None:
    stream = io.StringIO()
    progress = Progress(3, stream=stream, live=False, heartbeat_s=30.0)
    progress.tick()
    assert stream.getvalue() == ""
    progress._beat -= 31.0  # half a minute later
    progress.tick()
    assert stream.getvalue().startswith("tooldeck batch: done 0/3  failed 0")
    assert stream.getvalue().count("\n") == 1


def test_summary_line_and_json() -> None:
    summary = BatchSummary(
        items=12, skipped=2, ran=10, ok=8, error=1, timeout=1, bad_lines=3, retried=1, wall_s=5.0
    )
    assert summary.line() == (
        "10 item(s) run: 8 ok, 1 error, 1 timeout; 2 skipped (already in the output); "
        "3 bad input line(s) skipped; 1 retried after a worker died; 5.0 s, 2.00 items/s"
    )
    assert summary.to_json()["items_per_s"] == 2.0
    assert summary.to_json()["notices"] == []


def test_the_batch_package_exports_what_it_names_without_importing_engines() -> None:
    import subprocess
    import sys

    import tooldeck.batch as batch

    for name in batch.__all__:
        assert getattr(batch, name) is not None
    code = "import sys, tooldeck.batch; print('tooldeck.batch.local' in sys.modules, 'ray' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
