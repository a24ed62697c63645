"""The executor's `ToolChannel`: a running tool's progress and log messages become execution
events (`progress`, `log`) beside tooldeck's log, and its questions go to the session's approver
when the approver can answer forms (`elicit`): the terminal prompt, `--yes` (a form's defaults),
an application's own. Sampling needs a model: the agent loop offers its own channel for that."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tooldeck._core.channel import Elicitation, ElicitationRequest, LogEntry, ProgressReport, ToolChannel

Emit = Callable[..., None]


class CallChannel(ToolChannel):
    """The channel of a call with no client behind it (`deck.call`, `tooldeck call`): progress and
    logs become execution events, forms go to the session's approver."""

    def __init__(self, approver: Callable[[], Any], emit: Emit | None = None) -> None:
        self._approver = approver  # the session's approver, read when asked (it may be replaced)
        self._emit = emit

    async def progress(self, report: ProgressReport) -> None:
        await super().progress(report)
        if self._emit is not None:
            data = {"progress": report.progress, "total": report.total}
            self._emit("progress", report.call_id, report.tool, message=report.message, data=data)

    async def log(self, entry: LogEntry) -> None:
        await super().log(entry)
        if self._emit is not None:
            fields = (
                {"level": entry.level} if entry.data is None else {"level": entry.level, "data": entry.data}
            )
            self._emit("log", entry.call_id, entry.tool, message=entry.message, data=fields)

    async def elicit(self, request: ElicitationRequest) -> Elicitation:
        approver = self._approver()
        ask = getattr(approver, "elicit", None)
        if ask is None:
            return Elicitation("decline", reason="nobody can be asked here (the approver takes no forms)")
        try:
            answer = await ask(request)
        except Exception as exc:  # boundary: an application's approver that fails declines
            return Elicitation("decline", reason=f"asking failed: {exc}")
        if not isinstance(answer, Elicitation):
            return Elicitation("decline", reason=f"the approver answered {type(answer).__name__}")
        return answer
