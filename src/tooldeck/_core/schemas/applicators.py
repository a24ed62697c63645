"""The keywords that apply subschemas: references, combinators, conditionals, object members
and array items.

Combinators decide on exact matches first: a value that is valid as it is never gets converted
(`anyOf: [integer, string]` keeps `"5"` a string). Only when no option accepts the value as it
is does the lenient compiler try each option's conversions; for `oneOf` the converted value
must then match exactly one option. `not`, `if`, `contains` and `propertyNames` ask a yes/no
question of the value and always answer it strictly.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Protocol

from tooldeck._core.schemas.assertions import Check, field
from tooldeck._core.schemas.values import describe

_OBJECT_KEYS = ("properties", "patternProperties", "additionalProperties", "propertyNames")
_ARRAY_KEYS = ("items", "prefixItems", "contains")


def _fails(check: Check, value: Any, path: str) -> list[str]:
    trial: list[str] = []
    check(value, path, trial)
    return trial


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _shown(schema: Any) -> str:
    text = json.dumps(schema, sort_keys=True, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


class Compiles(Protocol):
    """What the applicators ask of the validator's `Compiler` (which builds them, so is not imported)."""

    @property
    def coerce(self) -> bool: ...
    def strict(self) -> Compiles: ...
    def compile(self, schema: Any) -> Check: ...
    def ref(self, ref: str) -> Check: ...


class Applicators:
    def __init__(self, compiler: Compiles) -> None:
        self.c = compiler

    def build(self, schema: Mapping[str, Any]) -> list[Check]:
        c = self.c
        out: list[Check] = []
        if "$ref" in schema:
            out.append(c.ref(schema["$ref"]))
        out.extend(c.compile(sub) for sub in schema.get("allOf", ()))
        if "anyOf" in schema:
            out.append(self.any_of(schema["anyOf"]))
        if "oneOf" in schema:
            out.append(self.one_of(schema["oneOf"]))
        if "not" in schema:
            out.append(self.not_(schema["not"]))
        if "if" in schema:
            out.append(self.if_then_else(schema))
        if any(k in schema for k in _OBJECT_KEYS):
            out.append(self.object(schema))
        if any(k in schema for k in _ARRAY_KEYS):
            out.append(self.array(schema))
        if "dependentSchemas" in schema:
            out.append(self.dependent_schemas(schema["dependentSchemas"]))
        return out

    # -- combinators -------------------------------------------------------------------------

    def any_of(self, options: list[Any]) -> Check:
        exact = [self.c.strict().compile(s) for s in options]
        lenient = [self.c.compile(s) for s in options] if self.c.coerce else []

        def check(value: Any, path: str, errors: list[str]) -> Any:
            first: list[str] = []
            for option in exact:
                trial = _fails(option, value, path)
                if not trial:
                    return value
                first = first or trial
            for option in lenient:
                trial = []
                out = option(value, path, trial)
                if not trial:
                    return out
            errors.append(
                first[0]
                if len(first) == 1
                else f"{field(path)}: matches none of the allowed forms ({describe(value)})"
            )
            return value

        return check

    def one_of(self, options: list[Any]) -> Check:
        exact = [self.c.strict().compile(s) for s in options]
        lenient = [self.c.compile(s) for s in options] if self.c.coerce else []

        def matching(value: Any, path: str) -> list[int]:
            hits: list[int] = []
            for i, option in enumerate(exact):
                if not _fails(option, value, path):
                    hits.append(i)
                    if len(hits) == 2:
                        break
            return hits

        def check(value: Any, path: str, errors: list[str]) -> Any:
            hits = matching(value, path)
            if len(hits) == 1:
                return value
            if len(hits) > 1:
                errors.append(
                    f"{field(path)}: matches more than one of the allowed forms (forms {hits[0] + 1} and "
                    f"{hits[1] + 1}); exactly one must match ({describe(value)})"
                )
                return value
            for option in lenient:
                trial: list[str] = []
                out = option(value, path, trial)
                if not trial and len(matching(out, path)) == 1:
                    return out
            errors.append(f"{field(path)}: matches none of the allowed forms ({describe(value)})")
            return value

        return check

    def not_(self, schema: Any) -> Check:
        sub = self.c.strict().compile(schema)
        shown = _shown(schema)

        def check(value: Any, path: str, errors: list[str]) -> Any:
            if not _fails(sub, value, path):
                errors.append(f"{field(path)}: must not match {shown} ({describe(value)})")
            return value

        return check

    def if_then_else(self, schema: Mapping[str, Any]) -> Check:
        condition = self.c.strict().compile(schema["if"])
        then = self.c.compile(schema.get("then", True))
        otherwise = self.c.compile(schema.get("else", True))

        def check(value: Any, path: str, errors: list[str]) -> Any:
            branch = otherwise if _fails(condition, value, path) else then
            return branch(value, path, errors)

        return check

    def dependent_schemas(self, table: Mapping[str, Any]) -> Check:
        subs = [(key, self.c.compile(s)) for key, s in table.items()]

        def check(value: Any, path: str, errors: list[str]) -> Any:
            if isinstance(value, dict):
                for key, sub in subs:
                    if key in value:
                        value = sub(value, path, errors)
            return value

        return check

    # -- arrays --------------------------------------------------------------------------------

    def array(self, schema: Mapping[str, Any]) -> Check:
        prefix = [self.c.compile(s) for s in schema.get("prefixItems", ())]
        items = self.c.compile(schema["items"]) if "items" in schema else None
        contains = self.c.strict().compile(schema["contains"]) if "contains" in schema else None
        least, most = schema.get("minContains", 1), schema.get("maxContains")
        shown = _shown(schema.get("contains"))

        def check(value: Any, path: str, errors: list[str]) -> Any:
            if not isinstance(value, list):
                return value
            out = value
            for i, item in enumerate(value):
                sub = prefix[i] if i < len(prefix) else items
                if sub is None:
                    continue
                new = sub(item, f"{path}[{i}]", errors)
                if new is not item:
                    if out is value:
                        out = list(value)
                    out[i] = new
            if contains is not None:
                n = sum(1 for i, item in enumerate(out) if not _fails(contains, item, f"{path}[{i}]"))
                if n < least:
                    errors.append(f"{field(path)}: must contain at least {least} item(s) matching {shown}")
                elif most is not None and n > most:
                    errors.append(f"{field(path)}: must contain at most {most} item(s) matching {shown}")
            return out

        return check

    # -- objects -------------------------------------------------------------------------------

    def object(self, schema: Mapping[str, Any]) -> Check:
        c = self.c
        raw_props = schema.get("properties", {})
        props = {k: c.compile(v) for k, v in raw_props.items()}
        patterns = [(re.compile(p), c.compile(s)) for p, s in schema.get("patternProperties", {}).items()]
        extra_schema = schema.get("additionalProperties", True)
        forbid = extra_schema is False
        extra = None if isinstance(extra_schema, bool) else c.compile(extra_schema)
        names = c.strict().compile(schema["propertyNames"]) if "propertyNames" in schema else None
        optional = frozenset(raw_props) - frozenset(schema.get("required", ()))
        drop_null = c.coerce
        known = ", ".join(sorted(raw_props)) or "none"

        def members(key: str) -> list[Check] | None:
            """The checks for one member; None when no keyword speaks about it."""
            found = [props[key]] if key in props else []
            found.extend(sub for regex, sub in patterns if regex.search(key))
            if found:
                return found
            return [extra] if extra is not None else None

        def check(value: Any, path: str, errors: list[str]) -> Any:
            if not isinstance(value, dict):
                return value
            out: dict[str, Any] | None = None
            for key, item in value.items():
                where = f"{path}.{key}" if path else key
                if names is not None and _fails(names, key, where):
                    errors.append(f"{field(where)}: the name {key!r} is not an allowed property name")
                sub = props.get(key)
                if sub is not None and not patterns:
                    checks = [sub]
                else:
                    found = members(key)
                    if found is None:
                        if forbid:
                            errors.append(f"unknown field '{where}' (known fields: {known})")
                        continue
                    checks = found
                if (
                    item is None
                    and drop_null
                    and key in optional
                    and any(_fails(k, None, where) for k in checks)
                ):
                    # OpenAI strict mode shows optional fields as nullable, so models send null
                    # for "not given": when the field itself does not allow null, drop it.
                    out = dict(value) if out is None else out
                    del out[key]
                    continue
                new = item
                for sub in checks:
                    new = sub(new, where, errors)
                if new is not item:
                    out = dict(value) if out is None else out
                    out[key] = new
            return value if out is None else out

        return check
