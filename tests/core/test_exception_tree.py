"""Every public exception is in `tooldeck.errors`, under `TooldeckError` (or `TooldeckSignal`).

An exception class defined anywhere else is either private (`_`-prefixed) or named below with
the place that catches it: it never reaches a user of the library.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import tooldeck.errors as errors
from tooldeck.errors import TooldeckError, TooldeckSignal

SRC = Path(__file__).resolve().parents[2] / "src"

# Defined outside errors.py and caught inside tooldeck, each with who turns it into what.
INTERNAL: dict[str, str] = {
    "tooldeck._core.schemas.refs.RefError": "schemas.definition / schemas.validate: a definition or check error",
    "tooldeck.safety.analysis.walker.TooComplex": "safety.analyse: a verdict that asks for approval",
    "tooldeck.safety.analysis.parser.ParseFailure": "safety.walker: a command that cannot be analysed",
    "tooldeck.safety.sandbox.rootless.LaunchFailed": "safety.sandbox: the sandbox reports why bwrap failed",
    "tooldeck._core.checkpoints.state.TooLarge": "checkpoints.recording: a denied ToolError naming the limit",
    "tooldeck.cli.main.CliError": "cli.main: one line on stderr and an exit status",
    "tooldeck._core.sources.mcp.connection.TransportFailure": "sources.mcp pool / supervisor: reconnects",
    "tooldeck._core.sources.mcp.connection.McpRequestError": "sources.mcp pool / supervisor: a ToolError",
    "tooldeck._core.sources.mcp.listing.ListingError": "sources.mcp connection: an McpRequestError",
    "tooldeck.tools.textfile.NotText": "the file tools: a ToolError",
    "tooldeck.tools.web.failures.FetchError": "the web tools: a ToolError",
    "tooldeck.tools.v4a.PatchError": "tools.v4a: a ToolError naming the hunk",
    "tooldeck.tools.editing.EditError": "tools.files / tools.v4a: a ToolError",
    "tooldeck.tools.editing.Ambiguous": "tools.files / tools.v4a: a ToolError",
    "tooldeck.batch.items.InputError": "batch.items.read_items: a refused line of the input",
    "tooldeck.batch.results.NotResultsFile": "batch.run: a BatchInputError",
    "tooldeck.batch.view.UnknownItemTools": "batch.worker: the item's failed result",
    "tooldeck._core.execution.result_text.ResultNotText": "the executor: an error envelope",
    "tooldeck._core.execution.deadline.TimedOut": "the executor: a timeout envelope",
    "tooldeck._core.execution.deadline.Blocked": "the executor: a timeout envelope naming the blocking",
    "tooldeck._core.execution.runner.HandlerRaised": "the executor: unwrapped to the handler's exception",
}


def defined_classes() -> list[tuple[str, str]]:
    """(module, class name) of every top-level class in src/tooldeck."""
    found = []
    for path in sorted((SRC / "tooldeck").rglob("*.py")):
        rel = path.relative_to(SRC).with_suffix("")
        parts = list(rel.parts[:-1]) if rel.name == "__init__" else list(rel.parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [(".".join(parts), n.name) for n in tree.body if isinstance(n, ast.ClassDef)]
    return found


def exception_classes() -> dict[str, type[BaseException]]:
    out: dict[str, type[BaseException]] = {}
    for module, name in defined_classes():
        cls = getattr(importlib.import_module(module), name)
        if isinstance(cls, type) and issubclass(cls, BaseException):
            out[f"{module}.{name}"] = cls
    return out


def test_every_public_exception_is_in_errors_under_the_two_roots() -> None:
    stray = []
    for qualname, cls in exception_classes().items():
        module, _, name = qualname.rpartition(".")
        if module == "tooldeck.errors":
            if cls not in (TooldeckError, TooldeckSignal) and not issubclass(
                cls, (TooldeckError, TooldeckSignal)
            ):
                stray.append(f"{qualname} is under neither TooldeckError nor TooldeckSignal")
        elif not name.startswith("_") and qualname not in INTERNAL:
            stray.append(f"{qualname}: move it to tooldeck.errors, or make it private")
    assert stray == []


def test_the_internal_list_names_only_classes_that_exist() -> None:
    assert sorted(set(INTERNAL) - set(exception_classes())) == []


def test_moved_errors_keep_their_old_import_names() -> None:
    from tooldeck._core.sources.acp.session import StartupFailed
    from tooldeck.agent.models.scripted import ScriptExhausted
    from tooldeck.batch.run import BatchInputError
    from tooldeck.safety.sandbox.bubblewrap import SandboxUnavailable
    from tooldeck.search.errors import CatalogError
    from tooldeck.serve.transports import ListenError
    from tooldeck.tools.web.guard import AddressDenied

    moved = (ScriptExhausted, BatchInputError, SandboxUnavailable, CatalogError, ListenError)
    assert all(getattr(errors, cls.__name__) is cls for cls in (*moved, StartupFailed, AddressDenied))
    assert issubclass(BatchInputError, ValueError) and issubclass(ScriptExhausted, AssertionError)
    assert AddressDenied("x").type == "denied"


def test_every_public_error_is_listed_in_the_module_docstring() -> None:
    doc = errors.__doc__ or ""
    public = [n for n in errors.__all__ if isinstance(getattr(errors, n), type)]
    classes = [n for n in public if issubclass(getattr(errors, n), BaseException)]
    assert [n for n in classes if n not in doc] == []
