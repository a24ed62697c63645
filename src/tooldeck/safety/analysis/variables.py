"""What assignments leave in the scope: scalars, `+=`, arrays and their items, namerefs, and the
builtins that set variables (`read`, `mapfile`, `printf -v`).

A command assembled in an array (`a=(rm -rf ~); "${a[@]}"`), item by item (`a[0]=rm`), by
appending (`c=r; c+=m`) or through a nameref (`declare -n r=c`) resolves to the words bash would
run. What cannot be known (a line read from a pipe of unknown text) is kept as unknown.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tooldeck.safety.analysis.argv import word_operands
from tooldeck.safety.analysis.expand import Expander, Scope
from tooldeck.safety.analysis.model import Field, Invocation
from tooldeck.safety.analysis.parser import node_text

if TYPE_CHECKING:
    from tree_sitter import Node

_NAME = re.compile(r"[A-Za-z_]\w*")
_KEYED_ITEM = re.compile(r"\[([^\]]*)\]\+?=(.*)", re.S)


def assign(node: Node, expander: Expander, *, nameref: bool = False) -> None:
    """One `name=value`, `name+=value`, `name[key]=value` or `name=(items...)`."""
    scope = expander.scope
    target = node.child_by_field_name("name")
    value = node.child_by_field_name("value")
    if target is None:
        return
    append = any(c.type == "+=" for c in node.children)
    key: str | None = None
    if target.type == "subscript":
        base = target.child_by_field_name("name")
        index = target.child_by_field_name("index")
        name = node_text(base) if base is not None else ""
        key = _key(index, expander) if index is not None else None
    else:
        name = node_text(target)
    if nameref and value is not None and key is None:
        scope.refs[name] = expander.value(value).text
        return
    name = scope.target(name)
    if value is not None and value.type == "array":
        _assign_array(name, value, expander, append=append)
    elif target.type == "subscript":
        _assign_item(scope, name, key, expander.value(value), append=append)
    else:
        new = expander.value(value)
        old = scope.variables.get(name)
        if append and old is not None:
            new = Field(old.text + new.text, old.exact and new.exact, old.taint | new.taint)
        elif append:
            new = Field(new.text, False, new.taint)
        scope.variables[name] = new
        if name in scope.arrays:
            items = dict(scope.arrays[name])
            items["0"] = new
            scope.set_items(name, items)


def declare(node: Node, expander: Expander) -> None:
    """`declare`, `local`, `export`, `readonly`, `typeset`: their assignments, and `-n` namerefs."""
    flags = "".join(node_text(c)[1:] for c in node.named_children if node_text(c).startswith("-"))
    exporting = (bool(node.children) and node.children[0].type == "export") or "x" in flags
    for child in node.named_children:
        if child.type == "variable_assignment":
            assign(child, expander, nameref="n" in flags)
            name = child.child_by_field_name("name")
            if exporting and name is not None:
                expander.scope.exported.add(expander.scope.target(node_text(name)))
        elif child.type == "variable_name" and exporting:
            expander.scope.exported.add(node_text(child))


def _key(index: Node, expander: Expander) -> str | None:
    if index.type in ("word", "number"):
        return node_text(index)
    value = expander.value(index)
    return value.text if value.exact else None


def _assign_array(name: str, value: Node, expander: Expander, *, append: bool) -> None:
    scope = expander.scope
    items: dict[str, Field] = dict(scope.arrays.get(name, {})) if append else {}
    position = _next_index(items)
    for child in value.named_children:
        for item in expander.fields(child):
            keyed = _KEYED_ITEM.fullmatch(item.text) if child.type == "concatenation" else None
            if keyed is not None:
                items[keyed.group(1)] = Field(keyed.group(2), item.exact, item.taint)
                continue
            items[str(position)] = item
            position += 1
    scope.set_items(name, items)


def _assign_item(scope: Scope, name: str, key: str | None, value: Field, *, append: bool) -> None:
    items = dict(scope.arrays.get(name, {}))
    if name not in scope.arrays and name in scope.variables:
        items["0"] = scope.variables[name]
    if key is None:
        # An item whose subscript is unknown may be any of them: the array is no longer known.
        scope.variables[name] = Field("${" + name + "[@]}", exact=False, taint=value.taint)
        scope.arrays.pop(name, None)
        return
    old = items.get(key)
    if append and old is not None:
        value = Field(old.text + value.text, old.exact and value.exact, old.taint | value.taint)
    items[key] = value
    scope.set_items(name, items)


def _next_index(items: dict[str, Field]) -> int:
    numbers = [int(k) for k in items if k.isdigit()]
    return max(numbers) + 1 if numbers else 0


def builtin_assignments(inv: Invocation, scope: Scope, printed: str | None) -> None:
    """Variables set by `read`, `mapfile`/`readarray` and `printf -v` (whose output is `printed`)."""
    words = inv.arg_texts()
    if inv.name == "read":
        _read(inv, scope)
    elif inv.name in ("mapfile", "readarray"):
        names = [w for w in word_operands(words, frozenset({"-d", "-n", "-O", "-s", "-u", "-C", "-c"}))]
        name = names[-1] if names else "MAPFILE"
        text = inv.data.text
        if text is None or "-d" in words:
            scope.variables[name] = Field("${" + name + "[@]}", exact=False, taint=inv.data.taint)
            scope.arrays.pop(name, None)
            return
        lines = text.split("\n")
        if lines and not lines[-1]:
            lines.pop()
        scope.set_items(name, {str(i): Field(line, taint=inv.data.taint) for i, line in enumerate(lines)})
    elif inv.name == "printf" and words[:1] == ["-v"] and len(words) > 1:
        name = words[1]
        if printed is None:
            scope.variables[name] = Field("$" + name, exact=False)
        else:
            scope.variables[name] = Field(printed)


def _read(inv: Invocation, scope: Scope) -> None:
    words = inv.arg_texts()
    value_options = frozenset({"-d", "-n", "-N", "-p", "-t", "-u", "-i"})
    array = next((words[i + 1] for i, w in enumerate(words[:-1]) if w == "-a"), None)
    names = [w for w in word_operands(words, value_options | {"-a"}) if _NAME.fullmatch(w)]
    text = inv.data.text
    taint = inv.data.taint
    line = text.split("\n", 1)[0] if text is not None and "-d" not in words else None
    if array is not None:
        if line is None:
            scope.variables[array] = Field("$" + array, exact=False, taint=taint)
            scope.arrays.pop(array, None)
        else:
            parts = line.split()
            scope.set_items(array, {str(i): Field(p, taint=taint) for i, p in enumerate(parts)})
        return
    names = names or ["REPLY"]
    if line is None:
        for name in names:
            scope.variables[name] = Field("$" + name, exact=False, taint=taint)
        return
    parts = line.split(None, len(names) - 1) if len(names) > 1 else [line.strip()]
    for i, name in enumerate(names):
        scope.variables[name] = Field(parts[i] if i < len(parts) else "", taint=taint)
