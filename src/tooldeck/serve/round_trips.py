"""The questions of one 2026-07-28 tool call, asked as `input_required` round trips.

At this revision a server sends no requests: a call that needs an answer — an approval, a running
tool's form (`ctx.elicit`), its question to the client's model (`ctx.sample`) — returns an
`InputRequiredResult` with the questions, and the client calls again with the answers. The call
runs again from the start on each retry, and each question it asks finds its answer by its key
(`tooldeck_approval`, `tooldeck_elicit_0`, `tooldeck_sample_0`, `tooldeck_roots_0`, ... in the
order asked, or the key the tool gave), so a tool should ask before it changes anything; questions
asked at once (`asyncio.gather`) go in one round. The answers of earlier rounds travel in
`requestState`, which the SDK's `RequestStateBoundary` seals (AES-GCM, bound to the tool and its
exact arguments, expiring): a state the client altered or moved to another call is refused with
-32602 before the call runs.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

from tooldeck.errors import ToolError

if TYPE_CHECKING:
    import mcp_types
    from pydantic import BaseModel

M = TypeVar("M", bound="BaseModel")


class _NeedsInput(ToolError):
    """Raised inside a running tool when its question waits for the client's next round (the
    call's result is then the `InputRequiredResult`, never this error)."""

    def __init__(self, key: str) -> None:
        super().__init__(f"waiting for the client's answer to {key}", type="unavailable")


class RoundTrip:
    def __init__(self, state: str | None, responses: Mapping[str, Any] | None) -> None:
        self.answers: dict[str, Any] = {}
        if state:
            try:  # plaintext this server minted: the boundary verified the seal
                saved = json.loads(state)
            except ValueError:
                saved = {}
            if isinstance(saved, dict) and isinstance(saved.get("answers"), dict):
                self.answers.update(saved["answers"])
        for key, response in (responses or {}).items():
            self.answers[key] = (
                response.model_dump(by_alias=True, mode="json", exclude_none=True)
                if hasattr(response, "model_dump")
                else response
            )
        self.pending: dict[str, mcp_types.InputRequest] = {}
        self._asked: Counter[str] = Counter()
        self._keys: set[str] = set()

    def key(self, kind: str, named: str | None = None) -> str:
        """The question's key: the tool's name for it, else the next of its kind
        (`tooldeck_approval` for the first approval). A key asked twice in one call is an error."""
        if named is None:
            n = self._asked[kind]
            self._asked[kind] += 1
            named = f"tooldeck_{kind}" if kind == "approval" and n == 0 else f"tooldeck_{kind}_{n}"
        if named in self._keys:
            raise ToolError(f"the question key {named!r} is used twice in one call", type="tool_error")
        self._keys.add(named)
        return named

    def answer(self, key: str, kind: type[M]) -> M | None:
        """The answer to `key` as a `kind` (ElicitResult, CreateMessageResult, ListRootsResult);
        None when there is none, or it is not of that shape."""
        found = self.answers.get(key)
        if not isinstance(found, Mapping):
            return None
        try:
            return kind.model_validate(found)
        except ValueError:
            return None

    def answered(self, kind: str, named: str | None, result: type[M], request: mcp_types.InputRequest) -> M:
        """A running tool's question answered in an earlier round, or asked in the next one (the
        tool stops here until then)."""
        key = self.key(kind, named)
        found = self.answer(key, result)
        if found is None:
            self.wait_for(key, request)
        return found

    def ask(self, key: str, request: mcp_types.InputRequest) -> None:
        """Add a question to the next round."""
        self.pending[key] = request

    def wait_for(self, key: str, request: mcp_types.InputRequest) -> NoReturn:
        """Add a running tool's question to the next round and stop the tool until it comes back."""
        self.pending[key] = request
        raise _NeedsInput(key)

    def input_required(self) -> mcp_types.InputRequiredResult:
        import mcp_types

        return mcp_types.InputRequiredResult(
            input_requests=dict(self.pending), request_state=json.dumps({"answers": self.answers})
        )
