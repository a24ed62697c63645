"""The scripted server holds a conversation to giving back what its reasoning replies carried,
refusing a request the way each provider documents it:

- Chat Completions, DeepSeek-style: an assistant message that called tools after reasoning must
  bring its `reasoning_content` back in every later request (400 "The `reasoning_content` in
  the thinking mode must be passed back to the API."); Gemini-style: in the current turn, a
  tool call that came with a thought signature must bring it back in `extra_content` (400
  "Function call is missing a thought_signature in functionCall parts ...", in Gemini's list
  of errors).
- Responses: a reasoning item sent back without its `encrypted_content` cannot be found when
  `store` is false (404), one whose content changed is refused (400), and a function call sent
  back with its id but without the reasoning item it followed is refused (400).
- Anthropic: a thinking block whose signature is not the one issued is refused, and so is a
  final assistant turn of tool calls made after thinking that does not start with its
  `thinking` or `redacted_thinking` block (thinking is on unless the request turns it off, as
  on DeepSeek's Anthropic endpoint).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from tooldeck.testing.scripted_formats import Turn

DEEPSEEK_MISSING = "The `reasoning_content` in the thinking mode must be passed back to the API."
GEMINI_MISSING = (
    "Function call is missing a thought_signature in functionCall parts. This is required for tools to "
    "work correctly, and missing thought_signature may lead to degraded model performance. Additional "
    "data, function call `default_api:{name}` , position {position}. Please refer to "
    "https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
)
RESPONSES_NOT_FOUND = (
    "Item with id '{id}' not found. Items are not persisted when `store` is set to false. Try again "
    "with `store` set to true, or remove this item from your input."
)
RESPONSES_UNVERIFIED = "The encrypted content for item {id} could not be verified."
RESPONSES_WITHOUT_REASONING = (
    "Item '{id}' of type 'function_call' was provided without its required 'reasoning' item: '{rs}'."
)
ANTHROPIC_NOT_FIRST = (
    "messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{found}`. When "
    "`thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding "
    "the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking "
    "blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our "
    "documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
)
ANTHROPIC_SIGNATURE = "messages.{i}.content.{j}: Invalid `signature` in `thinking` block"
ANTHROPIC_REDACTED = "messages.{i}.content.{j}: Invalid `data` in `redacted_thinking` block"


class Issuer(Protocol):
    """What the checks read of the server: what it issued, by (kind, id)."""

    def issued(self, key: tuple[str, str]) -> Any: ...
    def was_issued(self, key: tuple[str, str]) -> bool: ...


def refusal(server: Issuer, kind: str, body: Mapping[str, Any]) -> Turn | None:
    """The error a provider would answer `body` with, or None when it holds what it must."""
    if kind == "chat":
        return _chat(server, body)
    if kind == "responses":
        return _responses(server, body)
    return _anthropic(server, body)


def _bad(message: str, status: int = 400) -> Turn:
    return Turn(status=status, error=message)


def _chat(server: Issuer, body: Mapping[str, Any]) -> Turn | None:
    messages = [m for m in body.get("messages") or [] if isinstance(m, Mapping)]
    last_user = max((n for n, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    for n, m in enumerate(messages):
        calls = [c for c in m.get("tool_calls") or [] if isinstance(c, Mapping)]
        if m.get("role") != "assistant" or not calls:
            continue
        expected = server.issued(("chat_reasoning", str(calls[0].get("id"))))
        if expected is not None and m.get("reasoning_content") != expected:
            return _bad(DEEPSEEK_MISSING)
        for c in calls if n > last_user else []:  # Gemini checks the current turn
            signature = server.issued(("thought_signature", str(c.get("id"))))
            given = ((c.get("extra_content") or {}).get("google") or {}).get("thought_signature")
            if signature is not None and given != signature:
                name = (c.get("function") or {}).get("name", "")
                error = {"code": 400, "message": GEMINI_MISSING.format(name=name, position=n + 1)}
                return Turn(status=400, error_body=[{"error": {**error, "status": "INVALID_ARGUMENT"}}])
    return None


def _responses(server: Issuer, body: Mapping[str, Any]) -> Turn | None:
    items = body.get("input")
    seen: set[str] = set()
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, Mapping):
            continue
        item_id = str(item.get("id") or "")
        if item.get("type") == "reasoning" and server.was_issued(("rs", item_id)):
            given, issued = item.get("encrypted_content"), server.issued(("rs", item_id))
            if not given and body.get("store") is False:
                return _bad(RESPONSES_NOT_FOUND.format(id=item_id), 404)
            if given and given != issued:
                return _bad(RESPONSES_UNVERIFIED.format(id=item_id))
            seen.add(item_id)
        elif item.get("type") == "function_call" and item_id:
            reasoning_id = server.issued(("fc", item_id))
            if reasoning_id is not None and reasoning_id not in seen:
                return _bad(RESPONSES_WITHOUT_REASONING.format(id=item_id, rs=reasoning_id))
    return None


def _anthropic(server: Issuer, body: Mapping[str, Any]) -> Turn | None:
    messages = [m for m in body.get("messages") or [] if isinstance(m, Mapping)]
    final: tuple[int, list[Any]] | None = None
    for i, m in enumerate(messages):
        content = m.get("content")
        if m.get("role") != "assistant" or not isinstance(content, list):
            continue
        final = (i, content)
        for j, block in enumerate(content):
            kind = block.get("type") if isinstance(block, Mapping) else None
            if kind == "thinking" and server.issued(("thinking", str(block.get("signature")))) != block.get(
                "thinking"
            ):
                return _bad(ANTHROPIC_SIGNATURE.format(i=i, j=j))
            if kind == "redacted_thinking" and not server.was_issued(("redacted", str(block.get("data")))):
                return _bad(ANTHROPIC_REDACTED.format(i=i, j=j))
    thinking = body.get("thinking")
    if final is None or (isinstance(thinking, Mapping) and thinking.get("type") == "disabled"):
        return None
    i, content = final
    uses = [b for b in content if isinstance(b, Mapping) and b.get("type") == "tool_use"]
    if not uses or not server.was_issued(("anthropic_turn", str(uses[0].get("id")))):
        return None
    first = content[0].get("type") if content and isinstance(content[0], Mapping) else None
    if first not in ("thinking", "redacted_thinking"):
        return _bad(ANTHROPIC_NOT_FIRST.format(i=i, found=first))
    return None
