"""`python -m benchmarks graph`: the file-level import graph of src/tooldeck, drawn in floors.

Every file is a node and every import of another tooldeck file an edge: at the top, inside
functions, under `if TYPE_CHECKING:` alike (the parser in tests/test_layers.py finds them). Printed:

  * floors: the longest-path layering of the graph's condensation (each strongly connected
    component is one node); a file that imports no tooldeck file is on floor 0, any other file
    one floor above the highest file it imports;
  * arrows back up: imports that point to a higher layer of `LAYERS` in tests/test_layers.py;
  * circles across files: the strongly connected components of more than one file, each with the
    edges that close it. A package's `__init__` importing its own submodules is listed too.

The same figures follow for the graph of packages (`tooldeck.X`: a top-level module, or a
subpackage with all it holds; inside the private core `tooldeck._core.X`), where an import
between two files of one package is no edge.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

LAYERS_TEST = Path(__file__).resolve().parents[1] / "tests" / "test_layers.py"


def load_layers() -> ModuleType:
    """tests/test_layers.py as a module: its LAYERS and its import parser are the reference."""
    spec = importlib.util.spec_from_file_location("_tooldeck_layers", LAYERS_TEST)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {LAYERS_TEST}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_graph(layers: ModuleType) -> dict[str, set[str]]:
    """module -> the tooldeck modules it imports anywhere in its file (itself left out)."""
    graph: dict[str, set[str]] = {}
    for path in layers.modules():
        me = layers.module_name(path)
        graph[me] = {target for target, _ in layers.imports_of(path) if target != me}
    return graph


def components(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components (Tarjan, iterative), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, list[str]]] = [(root, sorted(graph[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    comp.append(member)
                    if member == node:
                        break
                found.append(sorted(comp))
    return found


def floors(graph: dict[str, set[str]], comps: list[list[str]]) -> dict[str, int]:
    """Each module's floor: 0 if its component imports nothing else, else 1 + the highest below."""
    comp_of = {m: i for i, comp in enumerate(comps) for m in comp}
    # Tarjan emits a component after every component it reaches, so one pass in order suffices.
    floor_of_comp: list[int] = []
    for i, comp in enumerate(comps):
        below = {comp_of[t] for m in comp for t in graph[m] if t in comp_of and comp_of[t] != i}
        floor_of_comp.append(1 + max((floor_of_comp[j] for j in below), default=-1))
    return {m: floor_of_comp[comp_of[m]] for m in graph}


def package_graph(graph: dict[str, set[str]], layers: ModuleType) -> dict[str, set[str]]:
    """The graph of packages (`tooldeck.X`, and `tooldeck._core.X` inside the private core): an
    edge where a file of one imports a file of another."""
    package = layers.package_of

    out: dict[str, set[str]] = {}
    for src, targets in graph.items():
        out.setdefault(package(src), set()).update(package(t) for t in targets if package(t) != package(src))
    return out


def package_report(graph: dict[str, set[str]], layers: ModuleType) -> dict[str, object]:
    packages = package_graph(graph, layers)
    comps = components(packages)
    floor = floors(packages, comps)
    return {
        "packages": len(packages),
        "floors": 1 + max(floor.values(), default=-1),
        "circles": [comp for comp in comps if len(comp) > 1],
    }


def report(graph: dict[str, set[str]], layers: ModuleType) -> dict[str, object]:
    comps = components(graph)
    floor = floors(graph, comps)
    upward = sorted(
        (src, dst)
        for src, targets in graph.items()
        for dst in targets
        if layers.layer_of(dst) > layers.layer_of(src)
    )
    circles = []
    for comp in comps:
        if len(comp) > 1:
            members = set(comp)
            edges = sorted((s, d) for s in comp for d in graph[s] if d in members)
            circles.append({"files": comp, "edges": edges})
    return {
        "files": len(graph),
        "imports": sum(len(t) for t in graph.values()),
        "floors": 1 + max(floor.values(), default=-1),
        "upward": upward,
        "allowed_upward": sorted(layers.ALLOWED_UPWARD),
        "circles": circles,
        "floor_of": floor,
        "by_package": package_report(graph, layers),
    }


def print_report(result: dict[str, object], *, show_floors: bool) -> None:
    upward = result["upward"]
    circles = result["circles"]
    assert isinstance(upward, list) and isinstance(circles, list)
    print(f"files {result['files']}, imports {result['imports']}, floors {result['floors']}")
    print(f"arrows back up (against tests/test_layers.py LAYERS): {len(upward)}")
    for src, dst in upward:
        allowed = result["allowed_upward"]
        tolerated = " (in ALLOWED_UPWARD)" if isinstance(allowed, list) and (src, dst) in allowed else ""
        print(f"  {src} -> {dst}{tolerated}")
    print(f"circles across files (strongly connected components > 1): {len(circles)}")
    for circle in circles:
        print(f"  {len(circle['files'])} files: {', '.join(circle['files'])}")
        for src, dst in circle["edges"]:
            print(f"    {src} -> {dst}")
    by_package = result["by_package"]
    assert isinstance(by_package, dict)
    print(
        f"packages {by_package['packages']}, floors {by_package['floors']}, "
        f"circles across packages: {len(by_package['circles'])}"
    )
    for circle in by_package["circles"]:
        print(f"  {', '.join(circle)}")
    if show_floors:
        floor_of = result["floor_of"]
        assert isinstance(floor_of, dict)
        for level in range(int(str(result["floors"]))):
            names = sorted(m for m, f in floor_of.items() if f == level)
            print(f"floor {level:>2} ({len(names)}): {', '.join(names)}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks graph", description=__doc__)
    parser.add_argument("--floors", action="store_true", help="list the files on each floor")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    layers = load_layers()
    result = report(build_graph(layers), layers)
    if args.json:
        json.dump(result, sys.stdout, indent=1, default=sorted)
        print()
    else:
        print_report(result, show_floors=args.floors)
    return 0
