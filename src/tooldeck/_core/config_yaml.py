"""Reading YAML that a user, or anyone who can write a file we read, has written.

`yaml.safe_load` builds no objects but strings, numbers, lists and mappings, yet it still
accepts three things a config must not: the same key twice in one mapping (the last one
silently wins, so the first is lost without a word), aliases that expand to billions of values
("billion laughs": a few hundred bytes that take the CPU for hours), and nesting deep enough to
exhaust Python's recursion. Here each is a `ConfigError` that says where the problem is.

Merge keys (`<<: *defaults`) keep their meaning: keys written in the mapping override merged ones.
"""

from __future__ import annotations

from typing import Any

from tooldeck.errors import ConfigError

MAX_VALUES = 100_000  # values after expanding aliases; a real config has a few hundred
MAX_DEPTH = 100  # nested lists and mappings, aliases expanded


def load_yaml(text: str, where: str) -> Any:
    """The document in `text`; `where` (a file name) starts every error message."""
    import yaml

    loader = _loader_class()(text)
    loader.where = where
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_size(node, where)
        return loader.construct_document(node)
    except RecursionError:
        raise ConfigError(f"{where}: nested more than {MAX_DEPTH} levels deep") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{where}: invalid YAML{at}: {problem}") from None
    finally:
        loader.dispose()


def _check_size(root: Any, where: str) -> None:
    """Count the values the document expands to (an alias counts its whole target each time it
    is used) and how deep it nests once expanded, without expanding anything."""
    import yaml

    sizes: dict[int, tuple[int, int]] = {}  # id(node) -> (values, depth)
    on_path: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if id(node) in sizes:
            continue
        if isinstance(node, yaml.ScalarNode):
            sizes[id(node)] = (1, 1)
            continue
        children = _children(node)
        if not children_done:
            on_path.add(id(node))
            stack.append((node, True))
            for child in children:
                if id(child) in on_path:
                    raise ConfigError(
                        f"{where}: line {_line(child)}: an alias refers to a value that holds it"
                    )
                if id(child) not in sizes:
                    stack.append((child, False))
            continue
        on_path.discard(id(node))
        count = 1 + sum(sizes[id(c)][0] for c in children)
        depth = 1 + max((sizes[id(c)][1] for c in children), default=0)
        if count > MAX_VALUES:
            raise ConfigError(
                f"{where}: the document expands to more than {MAX_VALUES:,} values through its "
                f"aliases (line {_line(node)}); a config needs far fewer"
            )
        if depth > MAX_DEPTH:
            raise ConfigError(f"{where}: nested more than {MAX_DEPTH} levels deep (line {_line(node)})")
        sizes[id(node)] = (count, depth)


def _line(node: Any) -> int:
    return int(node.start_mark.line) + 1


def _children(node: Any) -> list[Any]:
    import yaml

    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return list(node.value)


_LOADER: Any = None


def _loader_class() -> Any:
    """A SafeLoader whose mappings refuse a key written twice."""
    global _LOADER
    if _LOADER is not None:
        return _LOADER
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader_class: Any = type("DuplicateKeySafeLoader", (base,), {})

    def construct_mapping(loader: Any, node: Any, deep: bool = False) -> Any:
        seen: dict[Any, Any] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = loader.construct_object(key_node, deep=True)
            try:
                first = seen.setdefault(key, key_node)
            except TypeError:  # an unhashable key: the constructor reports it
                continue
            if first is not key_node:
                raise ConfigError(
                    f"{getattr(loader, 'where', 'YAML')}: line {_line(key_node)}: the key {key!r} is "
                    f"written twice in one mapping (first at line {_line(first)}); keep one"
                )
        return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)

    loader_class.add_constructor("tag:yaml.org,2002:map", construct_mapping)
    _LOADER = loader_class
    return loader_class
