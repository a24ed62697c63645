"""Names a package offers without importing the modules behind them until they are used.

A package says where each lazily offered name comes from once, as the import a type checker
reads, and which names are public once, in `__all__`:

    if TYPE_CHECKING:
        from tooldeck._deck import Deck                      # imported on first use

    __all__ = ["Deck", ...]
    __getattr__ = lazy_exports(__name__, __file__, globals())

`lazy_exports` reads the imports under `if TYPE_CHECKING:` back from the package's source (a
quick scan, not a parse: it runs on every import of the package) and makes the `__getattr__`
that imports them on first use; a name of `__all__` the package neither imports nor offers is
an ImportError at once, not an AttributeError later.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from typing import Any

# One `from M import ...` statement: its indent, its module, and its names (in parentheses over
# several lines, or to the end of the line).
_FROM = re.compile(r"^([ \t]*)from[ \t]+([\w.]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.MULTILINE)
_COMMENT = re.compile(r"#[^\n]*")
_GUARD = re.compile(r"^if TYPE_CHECKING:[ \t]*$", re.MULTILINE)
_UNINDENTED = re.compile(r"^[^\s#]", re.MULTILINE)


def lazy_attributes(
    package: str, where: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: a name in `where` is imported from the module
    `where[name]` names on first use and kept in `namespace` (the package's globals), so later
    uses cost nothing; any other name is an AttributeError as usual. `"module:attr"` offers
    `attr` of that module under another name."""

    def __getattr__(name: str) -> Any:
        source = where.get(name)
        if source is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attr = source.partition(":")
        value = getattr(importlib.import_module(module), attr or name)
        namespace[name] = value
        return value

    return __getattr__


def lazy_exports(package: str, file: str | None, namespace: dict[str, Any]) -> Callable[[str], Any]:
    """The package's `__getattr__`, read from its own imports (see the module docstring); an
    ImportError names a name of `__all__` that is neither imported nor lazily offered."""
    if file is None:
        raise ImportError(f"{package}: lazy exports need the package's source file")
    with open(file, encoding="utf-8") as handle:
        lazy = lazy_imports(handle.read())
    missing = [n for n in namespace.get("__all__", ()) if n not in namespace and n not in lazy]
    if missing:
        raise ImportError(f"{package}.__all__ names {', '.join(missing)}, which it does not import")
    return lazy_attributes(package, lazy, namespace)


def lazy_imports(source: str) -> dict[str, str]:
    """From a module's source: {name: "module" or "module:attr"} for the imports under its
    top-level `if TYPE_CHECKING:`."""
    guard = _GUARD.search(source)
    if guard is None:
        return {}
    end = _block_end(source, guard.end())
    lazy: dict[str, str] = {}
    for found in _FROM.finditer(source, guard.end(), end):
        module, names = found.group(2), found.group(3)
        for item in _COMMENT.sub("", names).strip().strip("()").split(","):
            original, _, alias = (part.strip() for part in item.partition(" as "))
            if original:
                name = alias or original
                lazy[name] = module if name == original else f"{module}:{original}"
    return lazy


def _block_end(source: str, start: int) -> int:
    """Where the indented block beginning after `start` ends (the next unindented line)."""
    found = _UNINDENTED.search(source, start)
    return found.start() if found else len(source)
