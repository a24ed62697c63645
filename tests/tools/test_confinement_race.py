"""Confinement under a real symlink race (K4).

A second process swaps the workspace folder `sub` with a symlink to a folder outside the
workspace (renameat2 RENAME_EXCHANGE, in a tight loop), while read_file, write_file, patch and
search_files run on `sub/...` through the real executor. Nothing outside may be read or
written; every call returns a result or a clean `denied` error. The kernel must support
renameat2: if it does not, the test fails (the helper says why), it is not skipped.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.tools.helpers import ws_loadout

from tooldeck._core.execution.executor import Executor
from tooldeck._core.execution.types import ToolCall, ToolResult
from tooldeck._core.fs import kernel
from tooldeck._core.workspace import Workspace
from tooldeck.tools.file_search import search_files
from tooldeck.tools.files import patch, read_file, write_file

SWAPPER = Path(__file__).with_name("race_swapper.py")
SECRET = "OUTSIDE-SECRET"


@dataclass
class Tally:
    calls: int = 0
    ok: int = 0
    denied: int = 0
    outside_reads: list[str] = field(default_factory=list)
    unexpected: list[str] = field(default_factory=list)

    def add(self, result: ToolResult) -> None:
        self.calls += 1
        if SECRET in result.content:
            self.outside_reads.append(f"{result.name}: {result.content[:200]}")
        if result.error is None:
            self.ok += 1
        elif result.error.type == "denied" and (
            "symlink that leads outside the workspace" in result.error.message
            # the swapper flipped the entry on every try of one open: also a clean refusal
            or "kept changing while it was opened" in result.error.message
        ):
            self.denied += 1
        else:
            self.unexpected.append(f"{result.name}: {result.error.type}: {result.error.message[:300]}")


def make_tree(tmp_path: Path) -> tuple[Path, Path]:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / "sub").mkdir(parents=True)
    outside.mkdir()
    for folder, secret in ((ws / "sub", "inside secret"), (outside, SECRET)):
        (folder / "secret.txt").write_text(f"{secret}\n")
        (folder / "patchme.txt").write_text("start\nEND\n")
    (ws / "link").symlink_to("../outside")
    return ws, outside


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def calls(n: int) -> list[ToolCall]:
    return [
        ToolCall(f"r{n}", "read_file", {"path": "sub/secret.txt"}),
        ToolCall(f"w{n}", "write_file", {"path": f"sub/w{n}.txt", "content": f"written {n}\n"}),
        ToolCall(
            f"p{n}", "patch", {"path": "sub/patchme.txt", "old_string": "END", "new_string": f"p{n}\nEND"}
        ),
        ToolCall(f"s{n}", "search_files", {"pattern": "SECRET|secret", "path": "sub" if n % 2 else "."}),
    ]


async def hammer(ex: Executor, seconds: float) -> Tally:
    tally = Tally()
    deadline = time.monotonic() + seconds
    n = 0
    while time.monotonic() < deadline:
        for result in await ex.execute(calls(n)):
            tally.add(result)
        n += 1
    return tally


def race(tmp_path: Path, seconds: float, *, use_openat2: bool | None) -> tuple[Tally, int, float]:
    ws, outside = make_tree(tmp_path)
    before = snapshot(outside)
    ex = Executor(
        ws_loadout(ws, read_file, write_file, patch, search_files),
        workspace=Workspace(ws, use_openat2=use_openat2),
    )
    swapper = subprocess.Popen(
        [sys.executable, str(SWAPPER), str(ws), "sub", "link"], stdout=subprocess.PIPE, text=True
    )
    assert swapper.stdout is not None
    first = swapper.stdout.readline().strip()
    assert first == "ready", f"the swapper could not run: {first or swapper.wait()}"
    started = time.monotonic()
    try:
        tally = asyncio.run(hammer(ex, seconds))
    finally:
        elapsed = time.monotonic() - started
        swapper.terminate()
        swaps = int(swapper.communicate(timeout=10)[0].strip() or 0)
    assert snapshot(outside) == before, "a file outside the workspace was written"
    assert not [p for p in outside.iterdir() if p.name.startswith("w")]
    return tally, swaps, elapsed


def check(tally: Tally, swaps: int, elapsed: float, mode: str) -> None:
    print(
        f"\n[{mode}] {tally.calls} calls in {elapsed:.1f} s ({tally.calls / elapsed:.0f}/s), {swaps} swaps: "
        f"{tally.ok} ok, {tally.denied} denied, {len(tally.outside_reads)} outside reads, "
        f"{len(tally.unexpected)} unexpected"
    )
    assert tally.outside_reads == [], tally.outside_reads[:3]
    assert tally.unexpected == [], tally.unexpected[:5]
    assert swaps > 1000, "the swapper hardly ran: the race did not happen"
    assert tally.ok > 0 and tally.denied > 0, "both states of the race should have been met"


def test_no_escape_during_a_20_second_symlink_race(tmp_path: Path) -> None:
    mode = "openat2" if kernel.openat2_available() else "component walk"
    tally, swaps, elapsed = race(
        tmp_path, float(os.environ.get("TOOLDECK_RACE_SECONDS", "20")), use_openat2=None
    )
    check(tally, swaps, elapsed, mode)


def test_no_escape_during_a_symlink_race_without_openat2(tmp_path: Path) -> None:
    tally, swaps, elapsed = race(tmp_path, 8.0, use_openat2=False)
    check(tally, swaps, elapsed, "component walk")
