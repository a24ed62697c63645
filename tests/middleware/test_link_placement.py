"""A user's middleware placed before or after each of tooldeck's links sees the call and the
result on that side of the link, in code and in config; a place that is not one is refused
with the key path and a suggestion. (`trace`: tests/tracing/test_tracing_placement.py.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tooldeck import Config, Deck, ToolCallRequest, ToolContext, ToolResult, load_config, parse_config, tool
from tooldeck._core.execution.middleware import CallNext
from tooldeck.core import EffectsConfig, current_checkpoint, service
from tooldeck.errors import ConfigError


class Seen:
    """Records what passes it: the arguments going in, the content coming out, and whether the
    call runs inside a checkpoint recording and with its own effects bounds."""

    def __init__(self) -> None:
        self.arguments: list[dict[str, Any]] = []
        self.contents: list[str] = []
        self.checkpointed: list[bool] = []
        self.bounds: list[object] = []

    async def on_call(self, call: ToolCallRequest, call_next: CallNext) -> ToolResult:
        self.arguments.append(dict(call.arguments))
        self.bounds.append((call.services or {}).get(EffectsConfig))
        result = await call_next(call)
        self.checkpointed.append(current_checkpoint() is not None)
        self.contents.append(result.content)
        return result


class Narrower:
    """Offers the call stricter effects bounds than the config's."""

    async def on_call(self, call: ToolCallRequest, call_next: CallNext) -> ToolResult:
        return await call_next(call.offering(EffectsConfig, EffectsConfig(max_deletions=1)))


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@tool(requires_approval=True)
def launch(target: str) -> str:
    """Launch something (needs approval)."""
    return f"launched {target}"


@tool(shell=True)
def shell_like(command: str, context: ToolContext) -> str:
    """Report the effects bounds the call was given."""
    return f"max_deletions={service(context, EffectsConfig).max_deletions}"


@tool(open_world=True)
def fetch(url: str) -> str:
    """Bring in outside text."""
    return f"page at {url}"


@tool(max_result_chars=200)
def long_text(n: int) -> str:
    """A long text."""
    return "line\n" * n


@tool
def write_note(path: str, text: str, context: ToolContext) -> str:
    """Write a file in the workspace."""
    assert context.workspace is not None
    (context.workspace / path).write_text(text)
    return "written"


def deck_with(tmp_path: Path, tools: list[Any], *middleware: Any) -> Deck:
    # The host shell allowed: `shell_like` runs nothing, it only reports what it was given.
    sandbox = {"workspace": str(tmp_path / "ws"), "allow_host_shell": True}
    config = parse_config({"sandbox": sandbox, "home": str(tmp_path / "home")})
    (tmp_path / "ws").mkdir(exist_ok=True)
    return Deck(config, tools=tools, builtins=False, middleware=list(middleware))


def around(
    tmp_path: Path, link: str, tools: list[Any], name: str, arguments: dict[str, Any]
) -> tuple[Seen, Seen, ToolResult]:
    """One call with a recording middleware placed before `link` and another after it."""
    before, after = Seen(), Seen()
    deck = deck_with(tmp_path, tools, {"use": before, "before": link}, {"use": after, "after": link})
    return before, after, deck.call_sync(name, arguments)


def test_outside_validate_the_raw_arguments_inside_the_validated_and_coerced_ones(tmp_path: Path) -> None:
    before, after, result = around(tmp_path, "validate", [add], "add", {"a": "2", "b": 3})
    assert result.content == "5"
    assert before.arguments == [{"a": "2", "b": 3}]
    assert after.arguments == [{"a": 2, "b": 3}]


def test_a_middleware_placed_nowhere_sees_the_raw_arguments_as_before(tmp_path: Path) -> None:
    outside = Seen()
    deck_with(tmp_path, [add], outside).call_sync("add", {"a": "2", "b": "3"})
    assert outside.arguments == [{"a": "2", "b": "3"}]


def test_arguments_a_middleware_after_validate_rewrites_are_validated_again(tmp_path: Path) -> None:
    class Rewrites:
        async def on_call(self, call: ToolCallRequest, call_next: CallNext) -> ToolResult:
            return await call_next(call.replace(arguments={"a": "40", "b": 2}))

    deck = deck_with(tmp_path, [add], {"use": Rewrites(), "after": "validate"})
    assert deck.call_sync("add", {"a": 1, "b": 1}).content == "42"
    late = deck_with(tmp_path, [add], {"use": Rewrites(), "after": "approvals"})
    assert late.call_sync("add", {"a": 1, "b": 1}).content == "42"

    class Breaks:
        async def on_call(self, call: ToolCallRequest, call_next: CallNext) -> ToolResult:
            return await call_next(call.replace(arguments={"a": "forty"}))

    refused = deck_with(tmp_path, [add], {"use": Breaks(), "before": "run"}).call_sync(
        "add", {"a": 1, "b": 1}
    )
    assert refused.error is not None and refused.error.type == "invalid_arguments"


def test_outside_approvals_a_refused_call_passes_inside_it_never_arrives(tmp_path: Path) -> None:
    before, after, result = around(tmp_path, "approvals", [launch], "launch", {"target": "x"})
    assert result.error is not None and result.error.type == "denied"
    assert before.arguments == [{"target": "x"}] and "nobody can approve" in before.contents[0]
    assert after.arguments == []


def test_inside_effects_the_call_carries_its_bounds_and_a_middleware_can_narrow_them(tmp_path: Path) -> None:
    before, after, result = around(tmp_path, "effects", [shell_like], "shell_like", {"command": "echo hi"})
    assert result.error is None and result.content == "max_deletions=20"
    assert before.bounds == [None]
    assert after.bounds == [EffectsConfig()]
    narrowed = deck_with(tmp_path, [shell_like], {"use": Narrower(), "after": "effects"})
    assert narrowed.call_sync("shell_like", {"command": "echo hi"}).content == "max_deletions=1"


def test_outside_frame_the_result_is_framed_inside_it_is_the_tools_own_text(tmp_path: Path) -> None:
    before, after, result = around(tmp_path, "frame", [fetch], "fetch", {"url": "https://example.org"})
    assert "untrusted_content" in result.content
    assert "untrusted_content" in before.contents[0]
    assert after.contents == ["page at https://example.org"]


def test_outside_truncate_the_result_is_cut_inside_it_is_whole(tmp_path: Path) -> None:
    before, after, result = around(tmp_path, "truncate", [long_text], "long_text", {"n": 100})
    assert len(after.contents[0]) == 500
    assert "[result truncated" in before.contents[0] and len(before.contents[0]) < 500
    assert result.content == before.contents[0]


def test_inside_checkpoint_the_call_is_being_recorded_outside_it_is_not(tmp_path: Path) -> None:
    before, after, result = around(
        tmp_path, "checkpoint", [write_note], "write_note", {"path": "a.txt", "text": "hi"}
    )
    assert result.content == "written"
    assert before.checkpointed == [False]
    assert after.checkpointed == [True]


def test_before_run_a_middleware_is_innermost(tmp_path: Path) -> None:
    innermost = Seen()
    deck = deck_with(tmp_path, [long_text], {"use": innermost, "before": "run"})
    result = deck.call_sync("long_text", {"n": 100})
    assert innermost.contents == ["line\n" * 100]  # before truncation
    assert "[result truncated" in result.content


def test_the_same_placement_from_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "seen.jsonl"
    monkeypatch.setenv("SEEN_LOG", str(log))
    (tmp_path / "placed_recorder.py").write_text(
        "import json, os\n"
        "class Recorder:\n"
        "    def __init__(self, where):\n"
        "        self.where = where\n"
        "    async def on_call(self, call, call_next):\n"
        "        with open(os.environ['SEEN_LOG'], 'a') as f:\n"
        "            f.write(json.dumps([self.where, call.arguments]) + '\\n')\n"
        "        return await call_next(call)\n"
        "def outer():\n    return Recorder('outer')\n"
        "def inner():\n    return Recorder('inner')\n"
    )
    (tmp_path / "tooldeck.yaml").write_text(
        "home: home\n"
        "middleware:\n"
        "  - use: placed_recorder:outer\n"
        "  - use: placed_recorder:inner\n"
        "    after: validate\n"
    )
    deck = Deck(load_config(tmp_path / "tooldeck.yaml"), tools=[add], builtins=False)
    assert deck.call_sync("add", {"a": "2", "b": 3}).content == "5"
    seen = [json.loads(line) for line in log.read_text().splitlines()]
    assert seen == [["outer", {"a": "2", "b": 3}], ["inner", {"a": 2, "b": 3}]]


@pytest.mark.parametrize(
    ("entry", "key", "words"),
    [
        ({"use": "m:x", "after": "validte"}, "middleware[0].after", "did you mean 'validate'"),
        ({"use": "m:x", "before": "aprovals"}, "middleware[0].before", "did you mean 'approvals'"),
        ({"use": "m:x", "after": "run"}, "middleware[0].after", "nothing comes after 'run'"),
        ({"use": "m:x", "before": "frame", "after": "frame"}, "middleware[0].after", "not both"),
    ],
)
def test_a_place_that_is_not_a_link_is_a_config_error_naming_the_key(
    entry: dict[str, str], key: str, words: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({"middleware": [entry]})
    assert caught.value.path == key and words in str(caught.value)


def test_a_place_that_is_not_a_link_in_code_names_the_entry() -> None:
    with pytest.raises(
        ValueError, match=r"middleware\[1\]\.after: no link is named 'frme'; did you mean 'frame'"
    ):
        Deck(Config(), tools=[add], builtins=False, middleware=[Seen(), {"use": Seen(), "after": "frme"}])
    with pytest.raises(TypeError, match=r"middleware\[0\]: unknown key 'where'"):
        Deck(Config(), tools=[add], builtins=False, middleware=[{"use": Seen(), "where": "frame"}])
