"""tooldeck's own tool library as a source that imports none of the tools until they are used.

The built-in tools are listed from a manifest (`builtin_manifest.json` beside this file), which
`generate_manifest()` writes from the tools themselves and a test keeps equal to them. Each
listed Tool carries the real tool's name, schema, description, hints and requirements; its
handler, check, live description and argument model are stand-ins that import the real tool's
module the first time one of them is needed. So `tooldeck tools` and `tooldeck explain` import
no tool module (nor what those modules depend on), and a tool never called never costs its
import.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tooldeck._core.sources.base import Source, SourceListing
from tooldeck._core.tool import DescriptionContext, LazyModel, Resource, Tool

# The modules of tooldeck's own tool library.
BUILTIN_MODULES = ("tooldeck.tools", "tooldeck.agent.tools", "tooldeck._core.execution.read_result")
MANIFEST = Path(__file__).with_name("builtin_manifest.json")

# Tool fields copied as they are between a tool and its manifest entry.
_PLAIN = (
    "name",
    "parameters",
    "toolset",
    "group",
    "requires_env",
    "requires_bins",
    "requires_modules",
    "interactive",
    "sequential",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "requires_approval",
    "timeout",
    "max_result_chars",
    "references",
    "shell",
    "needs_vision",
    "needs_workspace",
    "needs_agent",
    "defer",
    "essential",
    "isolation",
    "approval",
    "owner",
    "call_style",
    "context_param",
    "meta",
)


class BuiltinSource(Source):
    """The built-in tool library, from its manifest."""

    def __init__(self, *, name: str = "builtin", manifest: Path = MANIFEST) -> None:
        super().__init__(name, "builtin")
        self.manifest = manifest

    def load(self) -> SourceListing:
        entries: list[dict[str, Any]] = json.loads(self.manifest.read_text(encoding="utf-8"))
        return SourceListing(tuple(stand_in(entry) for entry in entries))


def generate_manifest() -> list[dict[str, Any]]:
    """The manifest entries of the built-in tools, read from the tools themselves."""
    from tooldeck._core.sources.discovery import discover_package

    entries = []
    for module in BUILTIN_MODULES:
        tools, _ = discover_package(module, source="builtin", trusted=True)
        entries += [_entry(t) for t in tools]
    return sorted(entries, key=lambda e: str(e["name"]))


def write_manifest(path: Path = MANIFEST) -> None:
    path.write_text(json.dumps(generate_manifest(), indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _entry(tool: Tool) -> dict[str, Any]:
    entry: dict[str, Any] = {f: _jsonable(getattr(tool, f)) for f in _PLAIN}
    entry["description"] = tool.description if isinstance(tool.description, str) else None
    entry["resource"] = (
        {"arg": tool.resource.arg, "key": tool.resource.key, "mode": tool.resource.mode}
        if tool.resource
        else None
    )
    entry["check"] = _qualname(tool.check) if tool.check is not None else None
    entry["is_async"] = tool.is_async
    if tool.calls_tools:  # written only where true, so the other entries stay as they were
        entry["calls_tools"] = True
    entry["arg_model"] = tool.arg_model is not None
    return entry


def _jsonable(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _qualname(fn: Any) -> str:
    return str(getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn))


def stand_in(entry: dict[str, Any]) -> Tool:
    """The Tool of a manifest entry, with stand-ins that load the real tool when needed."""
    real = _Loader(str(entry["owner"]))
    options = {f: entry[f] for f in _PLAIN if f not in ("name", "parameters")}
    options["calls_tools"] = bool(entry.get("calls_tools", False))
    for key in ("requires_env", "requires_bins", "requires_modules", "references"):
        options[key] = tuple(options[key])
    if entry["resource"] is not None:
        options["resource"] = Resource(**entry["resource"])
    if entry["check"] is not None:
        options["check"] = real.check(entry["check"])
    if entry["arg_model"]:
        options["arg_model"] = LazyModel(real.arg_model)
    description = entry["description"] if entry["description"] is not None else real.describe
    return Tool(
        name=entry["name"],
        description=description,
        parameters=entry["parameters"],
        handler=real.async_handler if entry["is_async"] else real.handler,
        source="builtin",
        **options,
    )


class _Loader:
    """Imports the real tool (`module:attribute`) the first time one of its parts is needed."""

    def __init__(self, ref: str) -> None:
        self.ref = ref
        self._tool: Tool | None = None

    def tool(self) -> Tool:
        if self._tool is None:
            module, _, attr = self.ref.partition(":")
            found: Any = importlib.import_module(module)
            found = (
                found.__tools__[int(attr[10:-1])] if attr.startswith("__tools__[") else getattr(found, attr)
            )
            if not isinstance(found, Tool):
                raise TypeError(f"{self.ref} is not a tool (regenerate the built-in manifest)")
            self._tool = found
        return self._tool

    def handler(self, *args: Any, **kwargs: Any) -> Any:
        real = self.tool().handler
        assert real is not None
        return real(*args, **kwargs)

    async def async_handler(self, *args: Any, **kwargs: Any) -> Any:
        real = self.tool().handler
        assert real is not None
        return await real(*args, **kwargs)

    def check(self, qualname: str) -> Callable[[], Any]:
        def check() -> Any:
            real = self.tool().check
            return real() if real is not None else True

        check.__qualname__ = qualname  # availability messages name the real check
        return check

    def describe(self, ctx: DescriptionContext) -> str:
        description = self.tool().description
        return description(ctx) if callable(description) else description

    def arg_model(self) -> Any:
        model = self.tool().arg_model
        return model.model() if isinstance(model, LazyModel) else model


if __name__ == "__main__":
    write_manifest()
    print(f"wrote {MANIFEST}")
