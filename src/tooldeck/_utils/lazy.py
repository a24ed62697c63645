"""Names a package offers without importing the modules behind them until they are used."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


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
