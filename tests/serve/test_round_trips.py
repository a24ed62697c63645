"""The answers of a 2026-07-28 call's rounds: keys in the order asked or as the tool named them,
each used once; answers from the state and from the retry's responses; what goes back."""

from __future__ import annotations

import json

import mcp_types as types
import pytest

from tooldeck.errors import ToolError
from tooldeck.serve.round_trips import RoundTrip


def test_keys_follow_the_order_asked_unless_the_tool_names_them() -> None:
    trip = RoundTrip(None, None)
    assert [
        trip.key("approval"),
        trip.key("approval"),
        trip.key("elicit"),
        trip.key("elicit", "user_name"),
    ] == [
        "tooldeck_approval",
        "tooldeck_approval_1",
        "tooldeck_elicit_0",
        "user_name",
    ]
    with pytest.raises(ToolError, match="used twice"):
        trip.key("sample", "user_name")


def test_answers_come_from_earlier_rounds_and_the_retry_and_go_back_in_the_state() -> None:
    earlier = json.dumps({"answers": {"step1": {"action": "accept", "content": {"name": "Ada"}}}})
    trip = RoundTrip(earlier, {"step2": types.ElicitResult(action="accept", content={"color": "blue"})})
    first, second = trip.answer("step1", types.ElicitResult), trip.answer("step2", types.ElicitResult)
    assert first is not None and first.content == {"name": "Ada"}
    assert second is not None and second.content == {"color": "blue"}
    assert trip.answer("step3", types.ElicitResult) is None
    assert trip.answer("step1", types.CreateMessageResult) is None
    trip.ask("step3", types.ListRootsRequest())
    result = trip.input_required()
    assert list(result.input_requests or {}) == ["step3"]
    assert set(json.loads(result.request_state or "{}")["answers"]) == {"step1", "step2"}


def test_an_answer_of_the_wrong_shape_is_no_answer() -> None:
    trip = RoundTrip(json.dumps({"answers": {"k": {"action": "maybe"}, "r": "junk"}}), None)
    assert trip.answer("k", types.ElicitResult) is None and trip.answer("r", types.ListRootsResult) is None
    assert RoundTrip("not json", None).answers == {}
