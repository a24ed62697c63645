"""Read-only JSON containers for rendered tools, which are cached and shared between callers.

A caller that appended to or edited a shared render would change every later request (a bug
Hermes users hit). Rendered tools are therefore dicts and lists that refuse changes, while
staying real `dict`/`list` instances (JSON encoders and SDKs accept them); `copy.copy`,
`copy.deepcopy` and pickling give ordinary, changeable containers.
"""

from __future__ import annotations

import copy
from typing import Any, NoReturn

_MESSAGE = "rendered tools are shared and read-only; change a copy (copy.deepcopy(tools))"


def _refuse(*_: Any, **__: Any) -> NoReturn:
    raise TypeError(_MESSAGE)


class FrozenDict(dict[str, Any]):
    __slots__ = ()
    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _refuse

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return {k: copy.deepcopy(v, memo) for k, v in self.items()}

    def __reduce__(self) -> Any:
        return (dict, (self.__deepcopy__({}),))


class FrozenList(list[Any]):
    __slots__ = ()
    __setitem__ = __delitem__ = append = extend = insert = pop = remove = clear = _refuse
    sort = reverse = __iadd__ = __imul__ = _refuse

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return [copy.deepcopy(v, memo) for v in self]

    def __reduce__(self) -> Any:
        return (list, (self.__deepcopy__({}),))


def freeze(value: Any) -> Any:
    """A read-only copy of a JSON-like value."""
    if isinstance(value, dict):
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return FrozenList(freeze(v) for v in value)
    return value
