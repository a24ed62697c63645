"""What a person watching a batch sees: a live line on a terminal, plain lines otherwise.

    done 412/1000  running 32  pending 556  retried 2  failed 3  workers 4/4  17.2/s  ETA 0:34

The live line is redrawn on stderr at most five times a second. Without a terminal the same
line is printed every `heartbeat_s` (when set), so a log shows that a long run is alive. What
the engine must tell at once (a cluster smaller than asked, a worker joining later) is printed
as a line of its own, `tooldeck batch: ...`, live or not.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

from tooldeck.batch.results import ItemResult

if TYPE_CHECKING:
    from tooldeck.batch.dispatch import Dispatch

REDRAW_S = 0.2


@dataclass(frozen=True, slots=True)
class BatchSummary:
    """The counts of one run."""

    items: int  # valid items in the input
    skipped: int  # already in the output (--resume)
    ran: int
    ok: int
    error: int
    timeout: int
    bad_lines: int
    retried: int
    wall_s: float
    notices: tuple[str, ...] = ()  # what the run said on the way (a cluster smaller than asked, ...)
    awaiting_approval: int = 0  # items stopped at calls that wait for approval (not failures)

    @property
    def rate(self) -> float:
        return self.ran / self.wall_s if self.wall_s > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "items": self.items,
            "skipped": self.skipped,
            "ran": self.ran,
            "ok": self.ok,
            "error": self.error,
            "timeout": self.timeout,
            "awaiting_approval": self.awaiting_approval,
            "bad_lines": self.bad_lines,
            "retried": self.retried,
            "wall_s": round(self.wall_s, 3),
            "items_per_s": round(self.rate, 3),
            "notices": list(self.notices),
        }

    def line(self) -> str:
        parts = [f"{self.ran} item(s) run: {self.ok} ok, {self.error} error, {self.timeout} timeout"]
        if self.awaiting_approval:
            parts.append(f"{self.awaiting_approval} awaiting approval")
        if self.skipped:
            parts.append(f"{self.skipped} skipped (already in the output)")
        if self.bad_lines:
            parts.append(f"{self.bad_lines} bad input line(s) skipped")
        if self.retried:
            parts.append(f"{self.retried} retried after a worker died")
        parts.append(f"{self.wall_s:.1f} s, {self.rate:.2f} items/s")
        return "; ".join(parts)


class Progress:
    """Counts results as they come and shows them; `live` redraws a line on `stream`, otherwise
    a line is printed every `heartbeat_s` (None: only notices)."""

    def __init__(
        self,
        total: int,
        *,
        stream: TextIO | None = None,
        live: bool | None = None,
        heartbeat_s: float | None = None,
    ) -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.live = self.stream.isatty() if live is None else live
        self.heartbeat_s = heartbeat_s
        self.counts: Counter[str] = Counter()
        self.started = time.monotonic()
        self.notices: list[str] = []
        self.dispatch: Dispatch | None = None
        self._drawn = 0.0
        self._beat = self.started
        self._width = 0

    def follow(self, dispatch: Dispatch) -> None:
        """Show what `dispatch` runs, waits for and retried, and its live workers."""
        self.dispatch = dispatch

    @property
    def done(self) -> int:
        return sum(self.counts.values())

    def result(self, result: ItemResult) -> None:
        self.counts[result.status] += 1
        self.tick()

    def notice(self, text: str) -> None:
        """A line of its own, now, whether the display is live or not."""
        self.notices.append(text)
        if self.live and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self._width = 0
        self.stream.write(f"tooldeck batch: {text}\n")
        self.stream.flush()

    def tick(self) -> None:
        now = time.monotonic()
        if not self.live:
            if self.heartbeat_s is not None and now - self._beat >= self.heartbeat_s:
                self._beat = now
                self.stream.write(f"tooldeck batch: {self.status_line(now)}\n")
                self.stream.flush()
            return
        if now - self._drawn < REDRAW_S and self.done < self.total:
            return
        self._drawn = now
        self._draw(self.status_line(now))

    def status_line(self, now: float | None = None) -> str:
        elapsed = (now or time.monotonic()) - self.started
        done = self.done
        rate = done / elapsed if elapsed > 0 else 0.0
        left = self.total - done
        eta = _clock(left / rate) if rate > 0 else "--:--"
        text = f"done {done}/{self.total}"
        d = self.dispatch
        if d is not None:
            text += f"  running {len(d.running)}  pending {d.waiting}"
            if d.retried:
                text += f"  retried {d.retried}"
        text += f"  failed {self.counts['error']}"
        if self.counts["timeout"]:
            text += f"  timeout {self.counts['timeout']}"
        if d is not None and d.workers_asked:
            text += f"  workers {d.workers_live}/{d.workers_asked}"
        return text + f"  {rate:.1f}/s  ETA {eta}"

    def _draw(self, text: str) -> None:
        pad = max(0, self._width - len(text))
        self.stream.write("\r" + text + " " * pad)
        self.stream.flush()
        self._width = len(text)

    def close(self) -> None:
        """End the live line (the summary is printed by the caller)."""
        if self.live and self._width:
            self._draw(self.status_line())
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
