"""The run state the tools of one run share, typed: the deferred tools it promoted, its todo list,
the files it presented.

`RunState` is what `ToolContext.state` holds and what the session store persists
(`to_json`/`from_json`; a stored record that is malformed in a field loads with that field
empty, so an old or hand-edited session still opens). A state-update tool does not write it
directly: it returns a `RunStateUpdate` (or a mapping of the same fields, checked when the
`ToolOutput` is built; an unknown field is refused) and the agent loop applies it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal, TypeVar, get_args

T = TypeVar("T")
TodoStatus = Literal["pending", "in_progress", "completed", "cancelled"]
"""Where an item of the `todo` tool's list stands."""
TODO_STATUSES: tuple[str, ...] = get_args(TodoStatus)


@dataclass(frozen=True, slots=True)
class TodoItem:
    """One task of the agent's todo list."""

    id: int
    content: str
    status: TodoStatus = "pending"

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "content": self.content, "status": self.status}

    @classmethod
    def from_json(cls, raw: object) -> TodoItem:
        """The item in `raw` (a mapping with `id`, `content`, `status`); ValueError naming what is wrong."""
        if isinstance(raw, TodoItem):
            return raw
        if not isinstance(raw, Mapping):
            raise ValueError(
                f"a todo item is a mapping with id, content and status, not {type(raw).__name__}"
            )
        ident, content, status = raw.get("id"), raw.get("content"), raw.get("status", "pending")
        if not isinstance(ident, int) or isinstance(ident, bool):
            raise ValueError(f"a todo item's id is an integer, got {ident!r}")
        if not isinstance(content, str):
            raise ValueError(f"todo item {ident}: content is a string, got {content!r}")
        if status not in TODO_STATUSES:
            raise ValueError(f"todo item {ident}: status {status!r} is not one of {', '.join(TODO_STATUSES)}")
        return cls(ident, content, status)


@dataclass(frozen=True, slots=True)
class Promotions:
    """The deferred tools a run promoted, scoped by the hash of the deferred catalog they were
    promoted from (see `tooldeck._core.disclosure.promotion`)."""

    catalog: str
    names: frozenset[str]

    def to_json(self) -> dict[str, Any]:
        return {"catalog": self.catalog, "names": sorted(self.names)}

    @classmethod
    def from_json(cls, raw: object) -> Promotions:
        """The record in `raw` (`{"catalog": hash, "names": [...]}`); ValueError when malformed."""
        if isinstance(raw, Promotions):
            return raw
        if not isinstance(raw, Mapping):
            raise ValueError(
                f'a promotion record is {{"catalog": ..., "names": [...]}}, not {type(raw).__name__}'
            )
        catalog, names = raw.get("catalog"), raw.get("names")
        if not isinstance(catalog, str) or not catalog:
            raise ValueError(f"a promotion record needs its catalog hash, got {catalog!r}")
        if not isinstance(names, list | tuple | frozenset | set) or not all(
            isinstance(n, str) for n in names
        ):
            raise ValueError(f"a promotion record's names are a list of strings, got {names!r}")
        return cls(catalog, frozenset(names))


def _todo(raw: object) -> tuple[TodoItem, ...]:
    if isinstance(raw, str | bytes) or not isinstance(raw, Iterable):
        raise ValueError(f"todo is a list of items, not {type(raw).__name__}")
    return tuple(TodoItem.from_json(i) for i in raw)


def _artifacts(raw: object) -> tuple[str, ...]:
    if isinstance(raw, str | bytes) or not isinstance(raw, Iterable):
        raise ValueError(f"artifacts is a list of paths, not {type(raw).__name__}")
    items = tuple(raw)
    if not all(isinstance(a, str) for a in items):
        raise ValueError(f"artifacts is a list of path strings, got {list(items)!r}")
    return items


@dataclass(frozen=True, slots=True)
class RunStateUpdate:
    """Changes a state-update tool makes to the run state; a field left None is unchanged."""

    promoted: Promotions | None = None
    todo: tuple[TodoItem, ...] | None = None
    artifacts: tuple[str, ...] | None = None

    @classmethod
    def of(cls, update: RunStateUpdate | Mapping[str, Any]) -> RunStateUpdate:
        """`update` checked: a mapping may name only the run state's fields, with values of their
        types. ValueError naming the field otherwise."""
        if isinstance(update, RunStateUpdate):
            return update
        known = {f.name for f in fields(cls)}
        unknown = sorted(str(k) for k in update if k not in known)
        if unknown:
            raise ValueError(
                f"run state update: unknown field(s) {', '.join(unknown)}; the run state has "
                f"{', '.join(f.name for f in fields(cls))}"
            )
        try:
            promoted = update.get("promoted")
            return cls(
                promoted=None if promoted is None else Promotions.from_json(promoted),
                todo=None if update.get("todo") is None else _todo(update["todo"]),
                artifacts=None if update.get("artifacts") is None else _artifacts(update["artifacts"]),
            )
        except ValueError as exc:
            raise ValueError(f"run state update: {exc}") from None

    def changed(self) -> tuple[str, ...]:
        """The names of the fields this update sets."""
        return tuple(f.name for f in fields(self) if getattr(self, f.name) is not None)

    def to_json(self) -> dict[str, Any]:
        """The fields this update sets, as JSON values."""
        out: dict[str, Any] = {}
        if self.promoted is not None:
            out["promoted"] = self.promoted.to_json()
        if self.todo is not None:
            out["todo"] = [i.to_json() for i in self.todo]
        if self.artifacts is not None:
            out["artifacts"] = list(self.artifacts)
        return out


@dataclass(slots=True)
class RunState:
    """The state the tools of one run share (one agent conversation, one served client session)."""

    promoted: Promotions | None = None
    todo: list[TodoItem] = field(default_factory=list)
    artifacts: list[str] = field(default_factory=list)

    def apply(self, update: RunStateUpdate) -> None:
        """Take the fields `update` sets."""
        if update.promoted is not None:
            self.promoted = update.promoted
        if update.todo is not None:
            self.todo = list(update.todo)
        if update.artifacts is not None:
            self.artifacts = list(update.artifacts)

    def copy(self) -> RunState:
        return RunState(self.promoted, list(self.todo), list(self.artifacts))

    def to_json(self) -> dict[str, Any]:
        return {
            "promoted": self.promoted.to_json() if self.promoted is not None else None,
            "todo": [i.to_json() for i in self.todo],
            "artifacts": list(self.artifacts),
        }

    @classmethod
    def from_json(cls, raw: object) -> RunState:
        """The state stored as `raw` (the form `to_json` writes, or the older free-form dict):
        fields it does not know are ignored, a malformed field loads empty (a malformed promotion
        record counts as none, so the next promotion replaces it)."""
        if not isinstance(raw, Mapping):
            return cls()
        todo, artifacts = _lenient(_todo, raw.get("todo")), _lenient(_artifacts, raw.get("artifacts"))
        return cls(
            _lenient(Promotions.from_json, raw.get("promoted")), list(todo or ()), list(artifacts or ())
        )


def _lenient(parse: Callable[[object], T], raw: object) -> T | None:
    """`parse(raw)`, or None when `raw` is missing or malformed."""
    if raw is None:
        return None
    try:
        return parse(raw)
    except ValueError:
        return None
