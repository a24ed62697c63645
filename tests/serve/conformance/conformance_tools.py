"""The tools the MCP conformance suite calls, written with tooldeck's public API and served by
`tooldeck serve --config tooldeck.yaml` (beside this file) for test_conformance.py and
`python -m benchmarks conformance`.

Names and results are those the suite's scenarios ask for (each scenario's "Server
Implementation Requirements" in the suite's source, and the SDKs' reference servers). The suite's
own prompts and resources are declared here too (`@prompt`, `@resource`, served beside the
skills and the workspace's files). A scenario that needs what tooldeck cannot express yet
(tasks, a result of type `input_required`) has nothing here and fails; see EXPECTED_FAILURES in
test_conformance.py.
"""

from __future__ import annotations

import asyncio
import json
import struct
import threading
import zlib
from typing import Annotated, Any

from pydantic import Field

from tooldeck import (
    AudioContent,
    EmbeddedResource,
    ImageContent,
    TextContent,
    Tool,
    ToolContext,
    ToolError,
    prompt,
    resource,
    tool,
)


def _png_pixel() -> bytes:
    """A 1x1 red PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # 1x1, 8-bit RGB
    pixels = zlib.compress(b"\x00\xff\x00\x00")  # filter byte, then one red pixel
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def _wav_silence(samples: int = 8) -> bytes:
    """A short mono 8 kHz 16-bit WAV of silence."""
    data = b"\x00\x00" * samples
    fmt = struct.pack("<HHIIHH", 1, 1, 8000, 16000, 2, 16)
    return (
        b"RIFF"
        + struct.pack("<I", 36 + len(data))
        + b"WAVEfmt "
        + struct.pack("<I", len(fmt))
        + fmt
        + b"data"
        + struct.pack("<I", len(data))
        + data
    )


PNG = _png_pixel()
WAV = _wav_silence()
SET = "conformance"


@tool(toolset=SET, read_only=True)
def test_simple_text() -> str:
    """Returns simple text content."""
    return "This is a simple text response for testing."


@tool(toolset=SET, read_only=True)
def test_image_content() -> list[object]:
    """Returns image content (a 1x1 red PNG)."""
    return [ImageContent(PNG, "image/png")]


@tool(toolset=SET, read_only=True)
def test_audio_content() -> list[object]:
    """Returns audio content (a short WAV)."""
    return [AudioContent(WAV, "audio/wav")]


@tool(toolset=SET, read_only=True)
def test_embedded_resource() -> list[object]:
    """Returns an embedded text resource."""
    return [
        EmbeddedResource(
            "test://embedded-resource", mime_type="text/plain", text="This is an embedded resource content."
        )
    ]


@tool(toolset=SET, read_only=True)
def test_multiple_content_types() -> list[object]:
    """Returns text, an image and an embedded resource."""
    return [
        TextContent("Multiple content types test:"),
        ImageContent(PNG, "image/png"),
        EmbeddedResource(
            "test://mixed-content-resource",
            mime_type="application/json",
            text='{"test":"data","value":123}',
        ),
    ]


@tool(toolset=SET, read_only=True)
async def test_tool_with_logging(ctx: ToolContext) -> str:
    """Sends three log messages at info level while it runs."""
    await ctx.log("info", "Tool execution started")
    await asyncio.sleep(0.05)
    await ctx.log("info", "Tool processing data")
    await asyncio.sleep(0.05)
    await ctx.log("info", "Tool execution completed")
    return "Tool with logging executed successfully"


@tool(toolset=SET, read_only=True)
async def test_tool_with_progress(ctx: ToolContext) -> str:
    """Reports progress 0, 50 and 100 of 100."""
    await ctx.report_progress(0, 100)
    await asyncio.sleep(0.05)
    await ctx.report_progress(50, 100)
    await asyncio.sleep(0.05)
    await ctx.report_progress(100, 100)
    return "Tool with progress executed successfully"


@tool(toolset=SET, read_only=True)
def test_error_handling() -> str:
    """Always fails."""
    raise ToolError("This tool intentionally returns an error for testing")


@tool(toolset=SET, read_only=True)
async def test_sampling(prompt: str, ctx: ToolContext) -> str:
    """Asks the client's model.

    Args:
        prompt: The prompt to send to the LLM.
    """
    answer = await ctx.sample(prompt, max_tokens=100)
    return f"LLM response: {answer.text}"


@tool(toolset=SET, read_only=True)
async def test_elicitation(message: str, ctx: ToolContext) -> str:
    """Asks the user for a username and an email address.

    Args:
        message: The message to show the user.
    """
    form = {
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        },
        "required": ["username", "email"],
    }
    answer = await ctx.elicit(message, form)
    return f"User response: action={answer.action}, content={dict(answer.content or {})}"


@tool(toolset=SET, read_only=True)
async def test_elicitation_sep1034_defaults(ctx: ToolContext) -> str:
    """Asks for a form whose every field has a default (SEP-1034)."""
    form = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active",
            },
            "verified": {"type": "boolean", "description": "Verification status", "default": True},
        },
        "required": [],
    }
    answer = await ctx.elicit("Please review and update the form fields with defaults", form)
    return f"Elicitation completed: action={answer.action}, content={dict(answer.content or {})}"


@tool(toolset=SET, read_only=True)
async def test_elicitation_sep1330_enums(ctx: ToolContext) -> str:
    """Asks for a form with the five enum variants of SEP-1330."""
    form = {
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Choose one option",
                "enum": ["option1", "option2", "option3"],
            },
            "titledSingle": {
                "type": "string",
                "description": "Choose one titled option",
                "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"},
                ],
            },
            "legacyEnum": {
                "type": "string",
                "description": "Choose one (legacy)",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"],
            },
            "untitledMulti": {
                "type": "array",
                "description": "Choose multiple options",
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
            },
            "titledMulti": {
                "type": "array",
                "description": "Choose multiple titled options",
                "items": {
                    "anyOf": [
                        {"const": "value1", "title": "First Choice"},
                        {"const": "value2", "title": "Second Choice"},
                        {"const": "value3", "title": "Third Choice"},
                    ]
                },
            },
        },
        "required": [],
    }
    answer = await ctx.elicit("Please select options from the enum fields", form)
    return f"Elicitation completed: action={answer.action}, content={dict(answer.content or {})}"


@tool(toolset=SET, read_only=True)
async def test_reconnection() -> str:
    """Meant to close its SSE stream mid-call (SEP-1699); a tool cannot, so it only waits."""
    await asyncio.sleep(0.1)
    return "Reconnection test completed successfully."


@tool(toolset=SET, read_only=True)
def test_x_mcp_header(
    region: Annotated[
        str,
        Field(
            description="Mirrored into the Mcp-Param-Region header",
            json_schema_extra={"x-mcp-header": "Region"},
        ),
    ] = "<none>",
) -> str:
    """Has a parameter mirrored into an HTTP header (SEP-2243)."""
    return f"region={region}"


@tool(toolset=SET, read_only=True)
async def test_input_required_result_elicitation(ctx: ToolContext) -> str:
    """Asks the user's name (at 2026-07-28: an input_required round trip)."""
    form = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    answer = await ctx.elicit("What is your name?", form, key="user_name")
    if not answer.accepted:
        return f"no name: {answer.action} ({answer.reason})"
    return f"Hello, {dict(answer.content or {}).get('name')}!"


@tool(toolset=SET, read_only=True)
async def test_input_required_result_sampling(ctx: ToolContext) -> str:
    """Asks the client's model (at 2026-07-28: an input_required round trip)."""
    answer = await ctx.sample("What is the capital of France?", max_tokens=100)
    return answer.text


@tool(toolset=SET, read_only=True)
async def test_missing_capability(ctx: ToolContext) -> str:
    """Needs the client's model (sampling): a client that did not declare it should be refused."""
    await ctx.sample("Are you there?", max_tokens=10)
    return "Client declared sampling capability; proceeding."


# The tool list changes when a tool says so: each call of `test_trigger_tool_change` adds
# `test_dynamic_tool` or takes it away again (its check, read again every `checks.ttl_s`, and
# serve's watcher, every `--interval`, turn that into `notifications/tools/list_changed`).
_DYNAMIC = threading.Event()


@tool(toolset=SET)
def test_trigger_tool_change() -> str:
    """Adds `test_dynamic_tool` to the tool list, or removes it when it is there."""
    if _DYNAMIC.is_set():
        _DYNAMIC.clear()
        return "test_dynamic_tool removed"
    _DYNAMIC.set()
    return "test_dynamic_tool added"


@tool(toolset=SET, read_only=True, check=_DYNAMIC.is_set)
def test_dynamic_tool() -> str:
    """Listed while `test_trigger_tool_change` says so."""
    return "This is a dynamically added tool."


# SEP-1613 / SEP-2106: a raw input schema in the JSON Schema 2020-12 vocabulary, kept as written.
JSON_SCHEMA_2020_12: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


def _echo_schema_call(arguments: dict[str, Any]) -> str:
    return f"received: {sorted(arguments)}"


json_schema_2020_12_tool = Tool(
    name="json_schema_2020_12_tool",
    description="Tool with JSON Schema 2020-12 features",
    parameters=JSON_SCHEMA_2020_12,
    handler=_echo_schema_call,
    toolset=SET,
    read_only=True,
)

TOOLS = [
    test_simple_text,
    test_image_content,
    test_audio_content,
    test_embedded_resource,
    test_multiple_content_types,
    test_tool_with_logging,
    test_tool_with_progress,
    test_error_handling,
    test_sampling,
    test_elicitation,
    test_elicitation_sep1034_defaults,
    test_elicitation_sep1330_enums,
    test_reconnection,
    test_x_mcp_header,
    test_input_required_result_elicitation,
    test_input_required_result_sampling,
    test_missing_capability,
    test_trigger_tool_change,
    test_dynamic_tool,
    json_schema_2020_12_tool,
]


# -- the suite's prompts ------------------------------------------------------------------------


@prompt
def test_simple_prompt() -> str:
    """A simple prompt without arguments."""
    return "This is a simple prompt for testing."


@prompt(complete={"arg1": ["paris", "park", "party"], "arg2": ["testValue1", "testValue2"]})
def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
    """A prompt with two required arguments.

    Args:
        arg1: First test argument
        arg2: Second test argument
    """
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@prompt
def test_prompt_with_embedded_resource(resourceUri: str) -> list[object]:
    """A prompt that embeds a resource.

    Args:
        resourceUri: URI of the resource to embed
    """
    return [
        EmbeddedResource(resourceUri, mime_type="text/plain", text="Embedded resource content for testing."),
        "Please process the embedded resource above.",
    ]


@prompt
def test_prompt_with_image() -> list[object]:
    """A prompt with an image (a 1x1 red PNG)."""
    return [ImageContent(PNG, "image/png"), "Please analyze the image above."]


PROMPTS = [
    test_simple_prompt,
    test_prompt_with_arguments,
    test_prompt_with_embedded_resource,
    test_prompt_with_image,
]


# -- the suite's resources ----------------------------------------------------------------------


@resource("test://static-text", mime_type="text/plain")
def static_text() -> str:
    """A fixed text resource."""
    return "This is the content of the static text resource."


@resource("test://static-binary", mime_type="image/png")
def static_binary() -> bytes:
    """A fixed binary resource (a 1x1 red PNG)."""
    return PNG


@resource("test://template/{id}/data", mime_type="application/json", complete={"id": ["123", "456"]})
def template_data(id: str) -> str:
    """The data of one id."""
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"}, separators=(",", ":"))


@resource("test://watched-resource", mime_type="text/plain")
def watched_resource() -> str:
    """A resource clients subscribe to."""
    return "Watched resource content"


RESOURCES = [static_text, static_binary, template_data, watched_resource]
