"""Imports point one way, down the data's journey; the satellites use only the core's public API;
no module imports itself in a loop.

Each module of the package belongs to a layer; a module may import its own layer and the
layers below, never one above (not at the top, not inside a function, not for type checking
only). Layers, bottom up: the shared helpers and the errors → the libraries that know nothing of
tools (shell analysis and the sandbox, search ranking, tracing) → the private core
(`tooldeck._core`: config and the Tool → registry → sources → assembly → dialects, session and
the call path) → its public face (`tooldeck.core`) → the satellites built on it (the built-in
tool library, the agent) → the façade (`Deck`) and the front door (`tooldeck`) → the satellites
built on the deck (serve, batch) → the command line.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "tooldeck"

# Bottom up. The longest matching prefix decides a module's layer.
LAYERS: list[tuple[str, ...]] = [
    ("tooldeck.errors", "tooldeck._utils", "tooldeck._core"),
    # They depend on nothing of the core; the core uses them (the config checks rule names, the
    # assembly probes the sandbox, `tool_search` ranks with search, the call path is traced).
    ("tooldeck.safety", "tooldeck.search", "tooldeck.tracing"),
    (
        "tooldeck._core.diagnostics",
        "tooldeck._core.run_state",
        "tooldeck._core.output",
        "tooldeck._core.availability_types",
        "tooldeck._core.templates",
        "tooldeck._core.tool_names",
        "tooldeck._core.config_sections",
        "tooldeck._core.config_mcp",
        "tooldeck._core.config_check",
        "tooldeck._core.config",
        "tooldeck._core.config_load",
        "tooldeck._core.config_cache",
        "tooldeck._core.config_yaml",
        "tooldeck._core.config_platforms",
        "tooldeck._core.link_names",
        "tooldeck._core.channel",
        "tooldeck._core.context",
        "tooldeck._core.schemas",
        "tooldeck._core.fs",
        "tooldeck._core.control_plane",
        "tooldeck._core.workspace",
        "tooldeck._core.tool",
        "tooldeck._core.decorator",
        # Prompts and resources declared in Python: what they take, and calling them.
        "tooldeck._core.declared",
        "tooldeck._core.prompts",
        "tooldeck._core.resources",
    ),
    ("tooldeck._core.registry",),
    (
        "tooldeck._core.sources",
        "tooldeck._core.listing",
        "tooldeck._core.availability",
        "tooldeck._core.toolsets",
        "tooldeck._core.skills",
    ),
    ("tooldeck._core.assembly",),
    # What calls changed in the workspace, and undoing it (the call path records through it).
    ("tooldeck._core.checkpoints",),
    (
        "tooldeck._core.dialects",
        "tooldeck._core.execution",
        "tooldeck._core.session",
        "tooldeck._core.disclosure",
        # What a config brings to a deck: its sources, middleware, prompts and resources.
        "tooldeck._core.configured",
    ),
    ("tooldeck.core",),
    ("tooldeck.tools",),
    # The scripted model server imports nothing of tooldeck; it fakes what the agent talks to.
    # The interop adapters (other frameworks' tools in, the loadout out) take a deck as it is.
    # serve's config section, which the composed `tooldeck.Config` above holds, is read by the
    # server from the config it is given; it imports only the core's public face.
    ("tooldeck.agent", "tooldeck.testing", "tooldeck.interop", "tooldeck.serve.config"),
    ("tooldeck._deck", "tooldeck._config"),
    ("tooldeck.serve", "tooldeck.batch", "tooldeck.inspect"),
    ("tooldeck.cli",),
]

# The satellites: clients of the core's public face, as a user's own code would be.
SATELLITES = (
    "tooldeck.safety",
    "tooldeck.search",
    "tooldeck.tracing",
    "tooldeck.tools",
    "tooldeck.agent",
    "tooldeck.testing",
    "tooldeck.interop",
    "tooldeck.serve",
    "tooldeck.batch",
    "tooldeck.inspect",
    "tooldeck.cli",
)
# What a satellite may import of tooldeck besides the satellites: the front door, the errors, the
# core's public face, and the shared helpers that know nothing of tools.
PUBLIC = ("tooldeck", "tooldeck.errors", "tooldeck.core", "tooldeck._utils")

# Known edges that point up, each with the reason it is tolerated; keep this list empty.
ALLOWED_UPWARD: dict[tuple[str, str], str] = {}


def layer_of(module: str) -> int:
    best = (-1, -1)
    for i, prefixes in enumerate(LAYERS):
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best[1]:
                best = (i, len(p))
    if best[0] < 0:
        if module == "tooldeck":
            return layer_of("tooldeck._deck")  # the front door re-exports the deck and the agent
        raise AssertionError(f"module {module} has no layer: add it to LAYERS")
    return best[0]


def module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> list[tuple[str, bool]]:
    """(imported tooldeck module, at module top level) for every import in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rsplit(".", 1)[0]
    top_level = {id(node) for node in tree.body}
    found: list[tuple[str, bool]] = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            # `from pkg import sub` imports the submodule; `from pkg import name` the package.
            names = [f"{base}.{a.name}" if _exists(f"{base}.{a.name}") else base for a in node.names]
        for name in names:
            if name.startswith("tooldeck") and _exists(name):
                found.append((name, id(node) in top_level))
    return found


@functools.cache
def _exists(name: str) -> bool:
    rel = Path(*name.split("."))
    return (SRC.parent / rel).with_suffix(".py").exists() or (SRC.parent / rel / "__init__.py").exists()


def modules() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if "__pycache__" not in p.parts)


Imports = dict[Path, list[tuple[str, bool]]]


@pytest.fixture(scope="module")
def imports() -> Imports:
    """`imports_of` of every module, parsed once for the tests of this file."""
    return {path: imports_of(path) for path in modules()}


def test_no_module_imports_a_layer_above_its_own(imports: Imports) -> None:
    upward = []
    for path, found in imports.items():
        me = module_name(path)
        mine = layer_of(me)
        for target, _ in found:
            if layer_of(target) > mine and (me, target) not in ALLOWED_UPWARD:
                upward.append(f"{me} -> {target}")
    assert upward == []


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of `graph` (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            comp: list[str] = []
            while not comp or comp[-1] != node:
                comp.append(stack.pop())
            found.append(sorted(comp))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_files_import_each_other_in_a_circle(imports: Imports) -> None:
    """Every import counts (in functions and for type checking too), a package's `__init__`
    included: a circle means none of its files can be read, or changed, without the others."""
    graph = {module_name(p): {t for t, _ in found if t != module_name(p)} for p, found in imports.items()}
    circles = [comp for comp in strongly_connected(graph) if len(comp) > 1]
    assert circles == []


def package_of(module: str) -> str:
    """`tooldeck.X` (a top-level module or package), or `tooldeck._core.X` inside the private core
    and `tooldeck._utils.X` among the helpers: the core's folders are packages of their own."""
    parts = module.split(".")
    depth = 3 if len(parts) > 2 and parts[1] in ("_core", "_utils") else 2
    return ".".join(parts[:depth])


def test_no_packages_import_each_other_in_a_circle(imports: Imports) -> None:
    """The same for packages (`tooldeck.X` with all it holds): one that straddles floors, such
    as a catalog below the assembly and tools above it in one folder, closes a circle here."""

    package = package_of
    graph: dict[str, set[str]] = {}
    for p, found in imports.items():
        me = package(module_name(p))
        graph.setdefault(me, set()).update(package(t) for t, _ in found if package(t) != me)
    for targets in graph.values():
        targets &= set(graph)
    circles = [comp for comp in strongly_connected(graph) if len(comp) > 1]
    assert circles == []


def test_the_circle_check_finds_a_circle_of_three_files_and_nothing_else() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert [c for c in strongly_connected(graph) if len(c) > 1] == [["a", "b", "c"]]


def test_top_level_imports_have_no_cycles(imports: Imports) -> None:
    graph = {module_name(p): {t for t, top in found if top} for p, found in imports.items()}
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if nxt == node or nxt not in graph:
                continue
            if state.get(nxt) == 1:
                cycles.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    # A package's __init__ importing its own submodules is not a cycle of the design.
    real = [
        c
        for c in cycles
        if not all(m == c[0] or m.startswith(c[0] + ".") or c[0].startswith(m + ".") for m in c)
    ]
    assert real == []


def _under(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_satellites_use_only_the_public_api_of_the_core(imports: Imports) -> None:
    reached_in = []
    for path, found in imports.items():
        me = module_name(path)
        if not _under(me, SATELLITES):
            continue
        for target, _ in found:
            public = target in PUBLIC[:3] or _under(target, PUBLIC[3:]) or _under(target, SATELLITES)
            if not public:
                reached_in.append(f"{me} -> {target}")
    assert reached_in == []


def test_the_core_is_private_and_imports_no_satellite_built_on_it(imports: Imports) -> None:
    """Every module of the core is `_`-prefixed (in `tooldeck._core`), and the core uses only the
    libraries below it, never a satellite that is built on its public face."""
    above = (
        "tooldeck.tools",
        "tooldeck.agent",
        "tooldeck.testing",
        "tooldeck.interop",
        "tooldeck.serve",
        "tooldeck.batch",
        "tooldeck.inspect",
        "tooldeck.cli",
    )
    public_modules = sorted(
        module_name(p)
        for p in modules()
        if not _under(module_name(p), SATELLITES) and "._" not in module_name(p)
    )
    assert public_modules == ["tooldeck", "tooldeck.core", "tooldeck.errors"]
    wrong = [
        f"{module_name(p)} -> {t}"
        for p, found in imports.items()
        if _under(module_name(p), ("tooldeck._core", "tooldeck.core"))
        for t, _ in found
        if _under(t, above)
    ]
    assert wrong == []
