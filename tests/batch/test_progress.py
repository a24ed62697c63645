"""The progress line a person sees on a terminal, and the summary otherwise."""

from __future__ import annotations

import io

from tooldeck.batch.progress import BatchSummary, Progress
from tooldeck.batch.results import ItemResult


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


def test_summary_line_and_json() -> None:
    summary = BatchSummary(
        items=12, skipped=2, ran=10, ok=8, error=1, timeout=1, bad_lines=3, retried=1, wall_s=5.0
    )
    assert summary.line() == (
        "10 item(s) run: 8 ok, 1 error, 1 timeout; 2 skipped (already in the output); "
        "3 bad input line(s) skipped; 1 retried after a worker died; 5.0 s, 2.00 items/s"
    )
    assert summary.to_json()["items_per_s"] == 2.0


def test_the_batch_package_exports_what_it_names_without_importing_engines() -> None:
    import subprocess
    import sys

    import tooldeck.batch as batch

    for name in batch.__all__:
        assert getattr(batch, name) is not None
    code = "import sys, tooldeck.batch; print('tooldeck.batch.local' in sys.modules, 'ray' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
