"""`clarify`: a control-flow tool. It does not wait for the user: it interrupts the run
and hands the question out; the user's answer, as the next message, resumes the same session.
"""

from __future__ import annotations

from collections.abc import Sequence

from tooldeck.core import ToolOutput
from tooldeck.errors import ToolError

ASKED = "The question was shown to the user. Their answer will arrive as the next user message."


def clarify_output(question: str, choices: Sequence[str] | None = None) -> ToolOutput:
    question = question.strip()
    if not question:
        raise ToolError("clarify: the question is empty")
    payload: dict[str, object] = {"kind": "clarify", "question": question}
    if choices:
        payload["choices"] = [str(c) for c in choices]
    return ToolOutput(ASKED, interrupt=payload)
