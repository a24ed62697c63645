"""The conformance suite's input_required tools (SEP-2322), written with tooldeck's public API:
each asks through its `ToolContext` as any tool would, and `tooldeck serve` turns the questions
into `input_required` round trips at 2026-07-28 (the keys are the ones the suite looks for)."""

from __future__ import annotations

import asyncio

from tooldeck import ToolContext, prompt, tool

SET = "conformance"
NAME = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
OK = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
COLOUR = {"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}


@tool(toolset=SET, read_only=True)
async def test_input_required_result_request_state(ctx: ToolContext) -> str:
    """Asks for a confirmation; the answer comes back with the call's state."""
    answer = await ctx.elicit("Please confirm", OK, key="confirm")
    return "state-ok: confirmed" if answer.accepted else f"not confirmed: {answer.action}"


@tool(toolset=SET, read_only=True)
async def test_input_required_result_tampered_state(ctx: ToolContext) -> str:
    """Asks for a confirmation (a state altered on the way back is refused before this runs)."""
    answer = await ctx.elicit("Please confirm", OK, key="confirm")
    return f"confirmed: {answer.accepted}"


@tool(toolset=SET, read_only=True)
async def test_input_required_result_multiple_inputs(ctx: ToolContext) -> str:
    """Asks the user, the client's model and the client's roots at once."""
    answer, sample, roots = await asyncio.gather(
        ctx.elicit("What is your name?", NAME, key="user_name"),
        ctx.sample("Generate a greeting", max_tokens=50, key="greeting"),
        ctx.list_roots(key="client_roots"),
    )
    name = dict(answer.content or {}).get("name")
    return f"{sample.text} {name} (roots: {', '.join(r.uri for r in roots) or 'none'})"


@tool(toolset=SET, read_only=True)
async def test_input_required_result_multi_round(ctx: ToolContext) -> str:
    """Asks two questions, one round each."""
    first = await ctx.elicit("Step 1: What is your name?", NAME, key="step1")
    second = await ctx.elicit("Step 2: What is your favorite color?", COLOUR, key="step2")
    name, colour = dict(first.content or {}).get("name"), dict(second.content or {}).get("color")
    return f"{name} likes {colour}"


@tool(toolset=SET, read_only=True)
async def test_input_required_result_list_roots(ctx: ToolContext) -> str:
    """Lists the client's roots."""
    roots = await ctx.list_roots(key="client_roots")
    return "roots: " + (", ".join(r.uri for r in roots) or "none")


@tool(toolset=SET, read_only=True)
async def test_input_required_result_capabilities(ctx: ToolContext) -> str:
    """Asks the user and the model; only what the client declared is asked (the rest declines)."""
    answer, sample = await asyncio.gather(
        ctx.elicit("What is your name?", NAME, key="user_name"),
        ctx.sample("Say hello", max_tokens=20, key="greeting"),
    )
    return f"{sample.text} ({answer.action})"


TOOLS = [
    test_input_required_result_request_state,
    test_input_required_result_tampered_state,
    test_input_required_result_multiple_inputs,
    test_input_required_result_multi_round,
    test_input_required_result_list_roots,
    test_input_required_result_capabilities,
]


@prompt
async def test_input_required_result_prompt(ctx: ToolContext) -> str:
    """A prompt that asks the user for its context first."""
    form = {"type": "object", "properties": {"context": {"type": "string"}}, "required": ["context"]}
    answer = await ctx.elicit("What context should the prompt use?", form, key="user_context")
    return f"Use this context: {dict(answer.content or {}).get('context')}"


PROMPTS = [test_input_required_result_prompt]
