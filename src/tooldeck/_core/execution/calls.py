"""From a raw tool call to a `ValidatedCall`: parse, find the tool (`lookup`), validate.

Each step either returns its value or raises `CallRejected` carrying the error envelope the
model will read. Nothing here runs a tool, so a rejected call is never executed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Mapping
from typing import Any

from pydantic import ValidationError
from pydantic_core import from_json

from tooldeck._core.execution.lookup import ToolIndex
from tooldeck._core.execution.types import ErrorEnvelope, ToolCall, ValidatedCall
from tooldeck._core.schemas.validate import SchemaValidator
from tooldeck._core.schemas.values import MAX_ARGUMENT_CHARS, value_problem
from tooldeck._core.tool import LazyModel, Tool
from tooldeck.errors import CallRejected, ErrorType


def reject(kind: ErrorType, message: str, tool: str, *, retryable: bool = True) -> CallRejected:
    return CallRejected(ErrorEnvelope(kind, message, tool, retryable))


# -- arguments -------------------------------------------------------------------------------


def parse_arguments(raw: str | Mapping[str, Any] | None, tool: str = "") -> dict[str, Any]:
    """The arguments object of a call. Empty means `{}`; anything not a JSON object is rejected,
    and so are values no tool should get: NaN or infinite numbers, text that is not valid
    Unicode, more than 64 levels of nesting, or more than 8 MiB of text."""
    if type(raw) is not str:  # the common case (JSON text) first: isinstance(.., Mapping) is slow
        if raw is None:
            return {}
        if isinstance(raw, Mapping):
            value: dict[str, Any] = raw if isinstance(raw, dict) else dict(raw)
            _refuse_problem(value_problem(value), tool)
            return value
        if not isinstance(raw, str):
            raise reject(
                "invalid_arguments",
                f"arguments must be a JSON object, got {type(raw).__name__}; the call was not run",
                tool,
            )
    if len(raw) > MAX_ARGUMENT_CHARS:
        raise reject(
            "invalid_arguments",
            f"arguments are {len(raw)} characters long, over the limit of {MAX_ARGUMENT_CHARS}; "
            "the call was not run - pass large content another way (a file path, a smaller chunk)",
            tool,
        )
    try:
        # The fast path; it refuses unpaired surrogates by itself (escaped: ValueError; a raw one
        # in the text: TypeError). Whatever it refuses, json.loads below either explains precisely
        # or reads for value_problem to name (NaN and Infinity are read as floats and refused
        # there, with the field they are in).
        value = from_json(raw)
        strings_checked = True
        # Every key is followed by a colon: no more colons than keys read, no key repeated.
        if raw.count(":") > (keys := _count_keys(value)) and len(_KEY_TOKEN.findall(raw)) > keys:
            _refuse_duplicate_keys(raw, tool)  # a key token too many: possibly a repeated key
    except (ValueError, TypeError):
        value = _parse_slowly(raw, tool)
        strings_checked = False
    if isinstance(value, str) and value.strip().startswith("{"):
        # Double-encoded arguments ("{\"a\": 1}" as a JSON string): the same object, once decoded.
        return parse_arguments(value, tool)
    if value is None:
        return {}
    if not isinstance(value, dict):
        kind = {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
        raise reject(
            "invalid_arguments",
            f'arguments must be a JSON object like {{"name": value}}, got {kind.get(type(value), "a value")}; '
            "the call was not run",
            tool,
        )
    _refuse_problem(value_problem(value, check_strings=not strings_checked), tool)
    return value


def _parse_slowly(raw: str, tool: str) -> Any:
    text = raw.strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise reject("invalid_arguments", _json_problem(text, exc), tool) from None
    except RecursionError:
        raise reject(
            "invalid_arguments", "arguments JSON is nested too deeply; the call was not run", tool
        ) from None
    except ValueError:  # Python's limit on integer digits; the JSON itself is well formed
        raise reject(
            "invalid_arguments",
            "arguments hold a number with more digits than any tool takes; the call was not run",
            tool,
        ) from None


def _refuse_problem(problem: str | None, tool: str) -> None:
    if problem is not None:
        raise reject("invalid_arguments", f"{_prefix(tool)}{problem}; the call was not run", tool)


def _prefix(tool: str) -> str:
    return f"invalid arguments for {tool}: " if tool else "invalid arguments: "


# A string followed by a colon: every key has one, and so may text inside a string value, so
# more of these than keys read means a key may be repeated (checked exactly, the slow way).
_KEY_TOKEN = re.compile(r'"\s*:')


def _count_keys(value: Any) -> int:
    if isinstance(value, dict):
        count = len(value)
        for item in value.values():
            if isinstance(item, (dict, list)):
                count += _count_keys(item)
        return count
    if isinstance(value, list):
        return sum(_count_keys(v) for v in value if isinstance(v, (dict, list)))
    return 0


def _refuse_duplicate_keys(raw: str, tool: str) -> None:
    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, item in items:
            if key in out:
                raise reject(
                    "invalid_arguments",
                    f"{_prefix(tool)}the key {key!r} appears twice in one object; send each key once. "
                    "The call was not run",
                    tool,
                )
            out[key] = item
        return out

    json.loads(raw, object_pairs_hook=pairs)


_PARTIAL_TOKEN = re.compile(r"[^\s,:\[\]{}]*")


def _json_problem(text: str, exc: json.JSONDecodeError) -> str:
    pos = exc.pos
    near = text[max(0, pos - 20) : pos + 20].replace("\n", " ")
    where = f"line {exc.lineno}, column {exc.colno} (char {pos})"
    # Cut off: brackets still open, and the error is in the last (partial) token, not earlier.
    last_token = exc.msg.startswith("Unterminated string") or _PARTIAL_TOKEN.fullmatch(text[pos:]) is not None
    if last_token and _unclosed(text):
        return (
            f"arguments JSON is truncated: it ends at char {len(text)} before the object is complete "
            f"({exc.msg} at {where}); the call was not run - send the complete arguments"
        )
    if exc.msg.startswith("Invalid control character") and pos < len(text):
        code = f"\\u{ord(text[pos]):04x}"
        return (
            f"arguments are not valid JSON: a raw control character ({text[pos]!r}) inside a string at "
            f"{where}, near {near!r}; write it escaped ({code}); the call was not run"
        )
    # json's messages for some errors end in "at" ("Invalid control character at"): said once.
    return f"arguments are not valid JSON: {exc.msg.removesuffix(' at')} at {where}, near {near!r}; the call was not run"


def _unclosed(text: str) -> bool:
    """True when brackets or a string are still open at the end (the output was cut off)."""
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
    return in_string or depth > 0


# -- validation ------------------------------------------------------------------------------

_VALIDATORS: dict[int, tuple[Mapping[str, Any], SchemaValidator]] = {}


def schema_validator(tool: Tool) -> SchemaValidator:
    """The compiled validator for a tool's parameters (cached by schema identity)."""
    hit = _VALIDATORS.get(id(tool.parameters))
    if hit is not None and hit[0] is tool.parameters:
        return hit[1]
    validator = SchemaValidator(tool.parameters)
    if len(_VALIDATORS) > 4096:
        _VALIDATORS.clear()
    _VALIDATORS[id(tool.parameters)] = (tool.parameters, validator)
    return validator


def validate(call: ToolCall, tool: Tool, arguments: dict[str, Any], note: str | None = None) -> ValidatedCall:
    """Check and convert the arguments against the schema the model saw (and the tool's own model).

    A decorated tool's pydantic model is tried first, in strict mode: what it accepts there is
    valid JSON for its schema, as it is. Anything else goes through the schema validator (exact
    JSON-Schema verdicts, plus the conversions models need, "5" -> 5) and only then through the
    model, which turns the checked JSON into Python values.
    """
    model = tool.arg_model
    if model is not None:
        if isinstance(model, LazyModel):
            model = model.model()  # the class itself: no attribute forwarding on the hot path
        try:
            validated = model.model_validate(arguments, strict=True)
        except ValidationError:
            pass
        else:
            return ValidatedCall(call, tool, _dumped(validated), note, validated)
    coerced, errors = schema_validator(tool).validate(arguments)
    validated = None
    if not errors and model is not None:
        validated, errors = _model_errors(model, coerced)
    if errors:
        shown = "; ".join(errors[:10]) + (f"; and {len(errors) - 10} more" if len(errors) > 10 else "")
        raise reject(
            "invalid_arguments",
            f"invalid arguments for {tool.name}: {shown}. The call was not run.",
            tool.name,
        )
    if validated is not None:
        coerced = validated.model_dump()  # what the handler gets: defaults filled in
    return ValidatedCall(call, tool, coerced, note, validated)


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _dumped(validated: Any) -> dict[str, Any]:
    """The model's fields as a dict: its own values when they are all plain scalars (what
    `model_dump` would return, at a tenth of the cost), else `model_dump`."""
    values: dict[str, Any] = validated.__dict__
    if not type(validated).model_computed_fields and all(type(v) in _SCALARS for v in values.values()):
        return dict(values)
    out: dict[str, Any] = validated.model_dump()
    return out


def _model_errors(model: Any, arguments: dict[str, Any]) -> tuple[Any, list[str]]:
    """The tool's own pydantic model of the arguments (it may be stricter than its JSON schema)."""
    try:
        return model.model_validate(arguments), []
    except ValidationError as exc:
        out = []
        for err in exc.errors():
            loc = ".".join(str(p) for p in err["loc"])
            out.append(f"field '{loc}': {err['msg']}" if loc else err["msg"])
        return None, out


def prepare(
    call: ToolCall, index: ToolIndex, promoted: Callable[[], Collection[str]] | None = None
) -> ValidatedCall:
    """Parse, resolve and validate one call; raises CallRejected with the model-facing error.
    `promoted` names the deferred tools this caller may call (for the unknown-tool message)."""
    tool, note = index.resolve(call.name, promoted)
    arguments = parse_arguments(call.arguments, tool.name)
    return validate(call, tool, arguments, note)
