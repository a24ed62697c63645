"""Images in tool results, end to end: a tool returns an image, the agent loop sends it on the
next request through the official SDKs (Chat Completions, Responses, Anthropic) to the scripted
server, and the session store keeps it. Only a model that reads images (`model.supports_vision`)
gets them, only from results that are not errors, and only of types providers take; the text
always names them."""

from __future__ import annotations

import asyncio
import base64
import json
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from support.agent_kit import PROVIDERS, make_agent
from tooldeck import ImageContent, TextContent, ToolError, parse_config, tool
from tooldeck._core.content import ContentBlock
from tooldeck._core.execution.middleware import CallNext, ToolCallRequest
from tooldeck._core.execution.types import ToolResult
from tooldeck._deck import Deck
from tooldeck.agent.messages import Message
from tooldeck.agent.models.base import Provider
from tooldeck.agent.runtime import Agent
from tooldeck.errors import ErrorEnvelope
from tooldeck.testing.scripted_server import Recorded, ScriptedServer, ToolImage, Turn


def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A valid PNG of one colour (8-bit RGB, no interlace)."""

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


PNG = png(2, 2, (255, 0, 0))
MIME = {"png": "image/png", "tiff": "image/tiff"}


@tool(toolset="pictures")
def snapshot(kinds: str = "png") -> list[ContentBlock]:
    """Take a snapshot; `kinds`: the image types to return, comma-separated (png, tiff)."""
    blocks: list[ContentBlock] = [TextContent(f"snapshot taken: {kinds}")]
    return blocks + [ImageContent(PNG, MIME[k]) for k in kinds.split(",")]


@tool(toolset="pictures")
def rejected_snapshot() -> list[ContentBlock]:
    """A snapshot the deck's middleware turns into an error (its image stays in the result)."""
    return [TextContent("should not be seen"), ImageContent(PNG, "image/png")]


@tool(toolset="pictures")
def broken_camera() -> str:
    """Always fails."""
    raise ToolError("the lens cap is on")


class RejectSnapshots:
    """Marks `rejected_snapshot`'s results as errors, keeping their blocks."""

    async def on_call(self, call: ToolCallRequest, call_next: CallNext) -> ToolResult:
        result = await call_next(call)
        if call.name != "rejected_snapshot":
            return result
        assert result.blocks, "the tool's blocks should reach the middleware"
        error = ErrorEnvelope("tool_error", "rejected by policy", call.name)
        return result.replace(error=error, content=error.to_json())


def vision_agent(server: ScriptedServer, provider: Provider, home: Path, *, vision: bool) -> Agent:
    config = {
        "home": str(home),
        "sandbox": {"workspace": str(home)},
        "platform_toolsets": {"cli": ["pictures"]},
        "model": {"supports_vision": vision},
    }
    deck = Deck(
        parse_config(config),
        tools=[snapshot, rejected_snapshot, broken_camera],
        middleware=[RejectSnapshots()],
    )
    agent, _ = make_agent(server, provider, home, deck=deck)
    assert agent.config.model.supports_vision is vision
    return agent


def run_turn(agent: Agent, prompt: str, convo: Any = None) -> Any:
    async def main() -> Any:
        c = convo or agent.new_conversation()
        result = await agent.run(c, prompt)
        assert result.status == "done", result
        return c

    return asyncio.run(main())


def decoded(image: ToolImage) -> bytes:
    return base64.b64decode(image.data, validate=True)


def second_request(server: ScriptedServer) -> Recorded:
    assert len(server.requests) == 2
    first, second = server.requests
    assert first.tool_images() == [] and first.tool_results() == []
    return second


# -- a model that reads images -------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_vision_model_gets_the_image_beside_the_text(
    scripted_server: ScriptedServer, home: Path, provider: Provider
) -> None:
    scripted_server.add(Turn(calls=[("snapshot", {})]), Turn(text="a red square"))
    run_turn(vision_agent(scripted_server, provider, home, vision=True), "look")
    req = second_request(scripted_server)
    [call_id] = req.tool_call_ids()
    [(result_id, text)] = req.tool_results()
    assert result_id == call_id
    assert text.startswith("snapshot taken: png")
    assert f"[image (image/png), {len(PNG)} bytes]" in text  # named in words too
    [image] = req.tool_images()
    assert (image.call_id, image.mime_type) == (call_id, "image/png")
    assert decoded(image) == PNG


def test_each_provider_puts_the_image_where_its_api_takes_it(
    scripted_server: ScriptedServer, home: Path
) -> None:
    b64 = base64.b64encode(PNG).decode()
    for provider in PROVIDERS:
        scripted_server.add(Turn(calls=[("snapshot", {})]), Turn(text="ok"))
        (home / provider).mkdir()
        run_turn(vision_agent(scripted_server, provider, home / provider, vision=True), "look")
    chat, responses, anthropic = scripted_server.requests[1::2]
    # Chat Completions: the tool message is text; a user message with the image follows it.
    tool_msg, images_msg = chat.body["messages"][-2:]
    assert tool_msg["role"] == "tool" and isinstance(tool_msg["content"], str)
    assert images_msg["role"] == "user"
    intro, part = images_msg["content"]
    assert (
        intro["type"] == "text" and tool_msg["tool_call_id"] in intro["text"] and "snapshot" in intro["text"]
    )
    assert part == {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64}"}}
    # Responses: the function call's output is a list of input parts.
    [output] = [i["output"] for i in responses.body["input"] if i.get("type") == "function_call_output"]
    assert [p["type"] for p in output] == ["input_text", "input_image"]
    assert output[1]["image_url"] == f"data:image/png;base64,{b64}"
    # Anthropic: the tool_result's content is a list of a text block and a base64 image block.
    [result] = [b for b in anthropic.body["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert [b["type"] for b in result["content"]] == ["text", "image"]
    assert result["content"][1]["source"] == {"type": "base64", "media_type": "image/png", "data": b64}
    assert "is_error" not in result


# -- a model that does not read images -----------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_without_vision_no_image_goes_and_the_text_names_it(
    scripted_server: ScriptedServer, home: Path, provider: Provider
) -> None:
    scripted_server.add(Turn(calls=[("snapshot", {})]), Turn(text="I cannot see it"))
    run_turn(vision_agent(scripted_server, provider, home, vision=False), "look")
    req = second_request(scripted_server)
    assert req.tool_images() == []
    [(_, text)] = req.tool_results()
    assert "snapshot taken: png" in text and f"[image (image/png), {len(PNG)} bytes]" in text
    body = json.dumps(req.body)
    assert base64.b64encode(PNG).decode() not in body
    assert "image_url" not in body and "input_image" not in body and '"type": "image"' not in body


# -- what never goes -----------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_error_result_carries_no_image(
    scripted_server: ScriptedServer, home: Path, provider: Provider
) -> None:
    scripted_server.add(
        Turn(calls=[("snapshot", {}), ("rejected_snapshot", {}), ("broken_camera", {})]), Turn(text="ok")
    )
    run_turn(vision_agent(scripted_server, provider, home, vision=True), "look")
    req = second_request(scripted_server)
    ok_id, rejected_id, broken_id = req.tool_call_ids()
    results = dict(req.tool_results())
    assert list(results) == [ok_id, rejected_id, broken_id]
    assert json.loads(results[rejected_id])["error"]["message"] == "rejected by policy"
    assert "lens cap" in json.loads(results[broken_id])["error"]["message"]
    # Only the call that succeeded sent its image.
    [image] = req.tool_images()
    assert (image.call_id, image.mime_type, decoded(image)) == (ok_id, "image/png", PNG)
    if provider == "anthropic":
        flags = [
            b.get("is_error", False)
            for b in req.body["messages"][-1]["content"]
            if b["type"] == "tool_result"
        ]
        assert flags == [False, True, True]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_image_type_providers_do_not_take_is_named_not_sent(
    scripted_server: ScriptedServer, home: Path, provider: Provider
) -> None:
    scripted_server.add(
        Turn(calls=[("snapshot", {"kinds": "tiff"}), ("snapshot", {"kinds": "tiff,png"})]), Turn(text="ok")
    )
    run_turn(vision_agent(scripted_server, provider, home, vision=True), "look")
    req = second_request(scripted_server)
    tiff_only, mixed = req.tool_call_ids()
    results = dict(req.tool_results())
    assert "[image (image/tiff)" in results[tiff_only]
    assert "[image (image/tiff)" in results[mixed] and "[image (image/png)" in results[mixed]
    # The tiff goes in words only; the png beside it still goes.
    [image] = req.tool_images()
    assert (image.call_id, image.mime_type) == (mixed, "image/png")
    assert "image/tiff" not in json.dumps([i["image_url"] for i in _image_parts(req)])


def _image_parts(req: Recorded) -> list[dict[str, Any]]:
    """Every image part of a request's body, as `{"image_url": <where or what>}`, any format."""
    out: list[dict[str, Any]] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if value.get("type") in ("image_url", "input_image", "image"):
                out.append({"image_url": value.get("image_url") or value.get("source")})
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(req.body)
    return out


# -- the session store ---------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_stored_history_keeps_the_images_and_a_resumed_session_sends_them_again(
    scripted_server: ScriptedServer, home: Path, provider: Provider
) -> None:
    scripted_server.add(Turn(calls=[("snapshot", {})]), Turn(text="red"), Turn(text="still red"))
    agent = vision_agent(scripted_server, provider, home, vision=True)
    convo = run_turn(agent, "look")
    [live] = [m for m in convo.messages if m.role == "tool"]
    assert live.images == (ImageContent(PNG, "image/png"),)
    assert agent.store is not None
    stored = agent.store.load(convo.session_id)
    assert list(stored.messages) == convo.messages
    asyncio.run(agent.aclose())

    again = vision_agent(scripted_server, provider, home, vision=True)
    resumed = again.resume(convo.session_id)
    run_turn(again, "and now?", resumed)
    [image] = scripted_server.requests[-1].tool_images()
    assert image.call_id == live.tool_call_id and decoded(image) == PNG
    assert scripted_server.requests[-1].text_of("user")[-1] == "and now?"


def test_a_session_without_vision_stores_no_images(scripted_server: ScriptedServer, home: Path) -> None:
    scripted_server.add(Turn(calls=[("snapshot", {})]), Turn(text="ok"))
    agent = vision_agent(scripted_server, "openai", home, vision=False)
    convo = run_turn(agent, "look")
    assert agent.store is not None
    [tool_msg] = [m for m in agent.store.load(convo.session_id).messages if m.role == "tool"]
    assert tool_msg.images == () and "images" not in tool_msg.to_dict()
    assert "image/png" in tool_msg.content


def test_message_images_round_trip_through_their_dict_form() -> None:
    gif = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;"
    message = Message(
        "tool",
        "two pictures",
        tool_call_id="c1",
        name="snapshot",
        images=(ImageContent(PNG, "image/png"), ImageContent(gif, "image/gif")),
    )
    data = json.loads(json.dumps(message.to_dict()))  # as the store writes and reads it
    assert data["images"][0] == {
        "type": "image",
        "data": base64.b64encode(PNG).decode(),
        "mimeType": "image/png",
    }
    assert Message.from_dict(data) == message
    # A damaged entry is dropped (the text still names the image); the others stay.
    data["images"] = [
        {"type": "image", "data": "not base64!", "mimeType": "image/png"},
        "junk",
        *data["images"],
    ]
    data["images"].append({"type": "audio", "data": "AAAA", "mimeType": "audio/wav"})
    assert Message.from_dict(data).images == message.images
    assert Message.from_dict({"role": "tool", "content": "x", "tool_call_id": "c"}).images == ()


def test_the_png_fixture_is_a_valid_png() -> None:
    assert PNG.startswith(b"\x89PNG\r\n\x1a\n")
    at, tags = 8, []
    while at < len(PNG):
        (size,) = struct.unpack(">I", PNG[at : at + 4])
        tag, data = PNG[at + 4 : at + 8], PNG[at + 8 : at + 8 + size]
        assert struct.unpack(">I", PNG[at + 8 + size : at + 12 + size])[0] == zlib.crc32(tag + data)
        tags.append(tag)
        at += 12 + size
    assert tags == [b"IHDR", b"IDAT", b"IEND"]
    assert zlib.decompress(PNG[8 + 12 + 13 + 8 : -12 - 4]) == b"\x00\xff\x00\x00\xff\x00\x00" * 2


# -- limits ----------------------------------------------------------------------------------


def test_an_image_over_what_providers_take_is_named_not_carried() -> None:
    from tooldeck.agent.messages import MODEL_IMAGE_MAX_BYTES, tool_message

    big = ImageContent(b"\x89PNG" + b"\0" * MODEL_IMAGE_MAX_BYTES, "image/png")
    small = ImageContent(PNG, "image/png")
    result = ToolResult(call_id="c1", name="snapshot", content="[two images]", blocks=(big, small))
    message = tool_message(result, images=True)
    assert message.images == (small,)
    assert tool_message(result, images=False).images == ()


@pytest.mark.parametrize("delegate_vision", [False, True])
def test_a_sub_agent_on_another_model_gets_images_only_when_that_model_reads_them(
    scripted_server: ScriptedServer, home: Path, delegate_vision: bool
) -> None:
    from tooldeck.agent import ScriptedModel, call, reply

    config = {
        "home": str(home),
        "sandbox": {"workspace": str(home)},
        "platform_toolsets": {"cli": ["pictures", "delegation"]},
        "model": {"supports_vision": True},
    }
    deck = Deck(parse_config(config), tools=[snapshot])
    scripted_server.add(Turn(calls=[("delegate_task", {"goal": "look"})]), Turn(text="parent done"))
    agent, _ = make_agent(scripted_server, "openai", home, deck=deck)
    cheap = ScriptedModel([reply(calls=[call("snapshot", {})]), reply("a red square")], model_name="cheap")
    agent.delegate_model = cheap
    agent.delegate_vision = delegate_vision
    run_turn(agent, "go")
    [tool_msg] = [m for m in cheap.requests[1].messages if m.role == "tool"]
    assert "image/png" in tool_msg.content
    assert tool_msg.images == ((ImageContent(PNG, "image/png"),) if delegate_vision else ())
