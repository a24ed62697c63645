"""The common schema walker: rebuilds a schema bottom-up and resolves `$ref`s on the way.

`SchemaTransformer.transform` walks only what the keyword tables (`tooldeck/_core/schemas/keywords.py`) call
subschemas, so literal values are copied untouched. References are handled here once for
every dialect:

* `#/$defs/X` and `#/definitions/X` stay references (to `#/$defs/X`) unless the dialect sets
  `inline_refs` (Gemini has no `$ref`): then they are expanded in place.
* any other JSON pointer (`#/properties/data/properties/name`, `#`) is expanded in place: such
  pointers break as soon as a dialect reshapes the tree around them.
* a reference met again while it is being expanded is a recursion: it becomes a `$defs` entry
  (or, when inlining, a stub that says so) instead of an endless expansion.

Subclasses override `node` (called on every rebuilt schema node, children already done),
`ref_node` (a `{"$ref": ...}` node) and `root`. A walk keeps its state in a `WalkState`, so one
transformer can serve several threads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Protocol
from urllib.parse import unquote

from tooldeck._core.schemas.keywords import SUBSCHEMA, SUBSCHEMA_LIST, SUBSCHEMA_MAP, JsonSchema

_DEF_PREFIXES = ("#/$defs/", "#/definitions/")


class Hook(Protocol):
    """A node rewrite that runs after the dialect's own (a provider sanitizer)."""

    def prepare(self, schema: JsonSchema, state: WalkState) -> JsonSchema: ...

    def node(self, schema: JsonSchema, state: WalkState) -> JsonSchema: ...

    def root(self, schema: JsonSchema, state: WalkState) -> JsonSchema: ...


class WalkState:
    """What one walk of one schema has seen: definitions, the expansion stack, notes."""

    __slots__ = ("active", "defs", "hoisted", "inlined", "notes", "out_defs", "pending", "root")

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.defs: dict[str, Any] = {}
        for key in ("definitions", "$defs"):  # `$defs` wins a name clash
            table = root.get(key)
            if isinstance(table, Mapping):
                self.defs.update(table)
        self.active: list[str] = ["#"]
        self.hoisted: dict[str, str] = {}
        self.pending: list[str] = []
        self.out_defs: dict[str, JsonSchema] = {}
        self.inlined = 0
        self.notes: list[str] = []

    def note(self, message: str) -> None:
        if message not in self.notes:
            self.notes.append(message)

    def def_name(self, ref: str) -> str | None:
        """The definition a `#/$defs/X` / `#/definitions/X` reference names, if it exists."""
        for prefix in _DEF_PREFIXES:
            if ref.startswith(prefix):
                name = _unescape(ref[len(prefix) :])
                return name if name in self.defs else None
        return None

    def use(self, name: str) -> None:
        if name not in self.out_defs and name not in self.pending:
            self.pending.append(name)

    def hoist(self, ref: str, target: Any) -> str:
        """Make the (recursive) pointer target a definition of its own; return its name."""
        base = _unescape(ref.rsplit("/", 1)[-1]) if ref != "#" else "root"
        name, n = base or "node", 2
        while name in self.defs:
            name, n = f"{base}_{n}", n + 1
        if ref == "#" and isinstance(target, Mapping):
            target = {k: v for k, v in target.items() if k not in ("$defs", "definitions")}
        self.defs[name] = target
        self.hoisted[ref] = name
        self.use(name)
        return name

    def resolve(self, ref: str) -> Any:
        """The value a local JSON pointer designates in the original schema, or None."""
        if ref == "#":
            return self.root
        if not ref.startswith("#/"):
            return None
        node: Any = self.root
        for raw in ref[2:].split("/"):
            part = _unescape(unquote(raw))
            if isinstance(node, Mapping) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return None
        return node


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def ref_to(name: str) -> str:
    return "#/$defs/" + name.replace("~", "~0").replace("/", "~1")


def is_false_schema(node: Any) -> bool:
    return node is False or (isinstance(node, dict) and len(node) == 1 and node.get("not") == {})


def _read_through_root_ref(body: JsonSchema, state: WalkState) -> JsonSchema:
    """`{"$ref": "#/$defs/Model", "$defs": ...}` at the top (pydantic does this): use the target."""
    for _ in range(8):
        ref = body.get("$ref")
        if not isinstance(ref, str):
            return body
        rest = {k: v for k, v in body.items() if k != "$ref"}
        name = state.def_name(ref)
        target = None if ref == "#" else state.defs[name] if name is not None else state.resolve(ref)
        body = {**target, **rest} if isinstance(target, Mapping) else rest
        state.note(f"top-level reference {ref!r} read through")
    body.pop("$ref", None)
    return body


class SchemaTransformer:
    """Rebuild a schema bottom-up; subclasses override `node`, `ref_node` and `root`."""

    # Expand every `$ref` in place (dialects without references).
    inline_refs: ClassVar[bool] = False
    max_depth: ClassVar[int] = 48
    # Expansions per schema before a reference is replaced by a stub (guards against blow-up).
    max_inlined: ClassVar[int] = 400

    def __init__(self, *, hooks: Sequence[Hook] = ()) -> None:
        self.hooks = tuple(hooks)

    def transform(self, schema: Mapping[str, Any]) -> tuple[JsonSchema, list[str]]:
        """The rewritten schema and the notes (what was changed, dropped or cut, and why)."""
        state = WalkState(schema)
        body = _read_through_root_ref(
            {k: v for k, v in schema.items() if k not in ("$defs", "definitions")}, state
        )
        body = self.prepare(body, state)
        for hook in self.hooks:
            body = hook.prepare(body, state)
        out = self._walk(body, state, 0)
        while state.pending:
            name = state.pending.pop(0)
            state.active.append(ref_to(name))
            state.out_defs[name] = self._walk(state.defs[name], state, 1)
            state.active.pop()
        if state.out_defs:
            out["$defs"] = state.out_defs
        out = self.root(out, state)
        for hook in self.hooks:
            out = hook.root(out, state)
        return out, state.notes

    # -- hooks -----------------------------------------------------------------------------

    def prepare(self, schema: JsonSchema, state: WalkState) -> JsonSchema:
        """The root before the walk (its subschemas are still as written)."""
        return schema

    def node(self, schema: JsonSchema, state: WalkState) -> JsonSchema:
        return schema

    def ref_node(self, schema: JsonSchema, state: WalkState) -> JsonSchema:
        return schema

    def root(self, schema: JsonSchema, state: WalkState) -> JsonSchema:
        return schema

    def recursion_stub(self, target: Any, state: WalkState) -> JsonSchema:
        """What an inlining dialect puts where a recursive reference would loop."""
        kind = target.get("type") if isinstance(target, Mapping) else None
        stub: JsonSchema = {"description": "Same structure as the enclosing value (recursive)."}
        if isinstance(kind, str):
            stub["type"] = kind
        return stub

    # -- the walk --------------------------------------------------------------------------

    def _walk(self, node: Any, state: WalkState, depth: int) -> JsonSchema:
        if not isinstance(node, Mapping):
            node = {} if node is not False else {"not": {}}
        if depth > self.max_depth:
            state.note(f"schema nested deeper than {self.max_depth} levels: the rest is left open")
            return self._finish({}, state)
        if "$ref" in node:
            return self._ref(node, state, depth)
        return self._finish(self._children(node, state, depth), state)

    def _finish(self, schema: JsonSchema, state: WalkState) -> JsonSchema:
        schema = self.node(schema, state)
        for hook in self.hooks:
            schema = hook.node(schema, state)
        return schema

    def _children(self, node: Mapping[str, Any], state: WalkState, depth: int) -> JsonSchema:
        out: JsonSchema = {}
        down = depth + 1
        for key, value in node.items():
            if key in SUBSCHEMA:
                if isinstance(value, bool):
                    out[key] = value
                elif isinstance(value, list):
                    out[key] = [self._walk(v, state, down) for v in value]
                else:
                    out[key] = self._walk(value, state, down)
            elif key in SUBSCHEMA_LIST:
                items = value if isinstance(value, list) else [value]
                if key in ("anyOf", "oneOf"):
                    # A never-matching branch adds nothing to a union (zod's `{"not": {}}`).
                    items = [v for v in items if not is_false_schema(v)] or [False]
                out[key] = [self._walk(v, state, down) for v in items]
            elif key in SUBSCHEMA_MAP:
                if isinstance(value, Mapping):
                    out[key] = {n: self._walk(s, state, down) for n, s in value.items()}
            else:
                out[key] = value
        return out

    def _ref(self, node: Mapping[str, Any], state: WalkState, depth: int) -> JsonSchema:
        ref = node["$ref"]
        rest = {k: v for k, v in node.items() if k != "$ref"}
        if not isinstance(ref, str) or not ref.startswith("#"):
            state.note(f"reference {ref!r} is not local to the schema: left open")
            return self._walk(rest, state, depth)
        if ref in state.hoisted:
            return self._as_ref(state.hoisted[ref], rest, state, depth)
        name = state.def_name(ref)
        if name is not None and not self.inline_refs:
            state.use(name)
            return self._as_ref(name, rest, state, depth)
        key = ref_to(name) if name is not None else ref
        target = state.defs[name] if name is not None else state.resolve(ref)
        if target is None:
            state.note(f"reference {ref!r} does not resolve: left open")
            return self._walk(rest, state, depth)
        if key in state.active:
            if self.inline_refs:
                state.note(f"recursive reference {ref!r} cut after one level")
                stub = self.recursion_stub(target, state)
                return self._finish({**stub, **self._children(rest, state, depth)}, state)
            return self._as_ref(state.hoist(ref, target), rest, state, depth)
        state.inlined += 1
        if state.inlined > self.max_inlined:
            state.note(f"more than {self.max_inlined} references expanded: the rest are left open")
            return self._walk(rest, state, depth)
        merged = {**target, **rest} if isinstance(target, Mapping) else rest
        state.active.append(key)
        try:
            return self._walk(merged, state, depth)
        finally:
            state.active.pop()

    def _as_ref(self, name: str, rest: Mapping[str, Any], state: WalkState, depth: int) -> JsonSchema:
        out: JsonSchema = {"$ref": ref_to(name)}
        out.update(self._children(rest, state, depth))
        return self.ref_node(out, state)
