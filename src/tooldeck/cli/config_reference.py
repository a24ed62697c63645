"""The config reference, generated from the config model itself (so it cannot drift from it).

Every key is listed with its type, its default and the comment written above it in
the config classes (`tooldeck/_core/config.py` and the sections the satellites own);
`docs/config.md` is this text, checked by a test.
"""

from __future__ import annotations

import dataclasses
import inspect
import io
import re
import tokenize
import typing
from typing import Any

from tooldeck import Config

HEADER = """# Configuration reference

Generated from the config model (`tooldeck config --reference`); `tooldeck config --schema` prints
the JSON Schema for editor completion. Every key is optional. Relative paths resolve against the
folder of the config file. `${VAR}` (or `${VAR:-default}`) in any string is replaced from the
environment; a missing variable is an error that names it and its key path. Unknown keys are
errors. Without a config file, tooldeck uses these defaults: every built-in tool, the current
directory as the workspace.
"""


def reference() -> str:
    out = io.StringIO()
    out.write(HEADER)
    _section(out, "top level", Config, "")
    return out.getvalue()


def _section(out: io.StringIO, title: str, cls: type, prefix: str) -> None:
    comments = _field_comments(cls)
    hints = typing.get_type_hints(cls, None, _annotation_names())
    nested: list[tuple[str, type, str]] = []
    out.write(f"\n## {title}\n\n| key | type | default | what it does |\n|---|---|---|---|\n")
    for f in dataclasses.fields(cls):
        if f.name in ("base_dir", "config_file"):
            continue
        hint = hints[f.name]
        section = _section_class(hint)
        key = f"{prefix}{f.name}"
        out.write(f"| `{key}` | {_type_name(hint)} | {_default(f)} | {comments.get(f.name, '')} |\n")
        if section is not None:
            suffix = "." if not _is_collection(hint) else ("[].") if _is_list(hint) else ".NAME."
            nested.append((key, section, f"{key}{suffix}"))
    for key, section, sub_prefix in nested:
        _section(out, f"`{key}`", section, sub_prefix)


def _field_comments(cls: type) -> dict[str, str]:
    """The `# ...` lines right above each field in the class body (and in its bases': the
    composed `Config` holds the core's keys and adds the satellites' sections)."""
    found: dict[str, str] = {}
    for base in reversed(cls.__mro__):
        if base is not cls and dataclasses.is_dataclass(base):
            found.update(_field_comments(base))
    source = inspect.getsource(cls)
    pending: list[str] = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            pending.append(tok.string.lstrip("# ").rstrip())
        elif tok.type == tokenize.NAME and tok.start[1] == 4 and pending:
            found[tok.string] = " ".join(pending).replace("|", "\\|")
            pending = []
        elif tok.type == tokenize.NAME and tok.start[1] == 4:
            pending = []
    return found


def _annotation_names() -> dict[str, Any]:
    import annotated_types

    return {"Ge": annotated_types.Ge, "Gt": annotated_types.Gt, "Le": annotated_types.Le}


def _section_class(hint: Any) -> type | None:
    for arg in (
        hint,
        *typing.get_args(hint),
        *[a for x in typing.get_args(hint) for a in typing.get_args(x)],
    ):
        if isinstance(arg, type) and dataclasses.is_dataclass(arg):
            return arg
    return None


def _is_collection(hint: Any) -> bool:
    return _is_list(hint) or any(typing.get_origin(a) is dict for a in (hint, *typing.get_args(hint)))


def _is_list(hint: Any) -> bool:
    return any(typing.get_origin(a) is list for a in (hint, *typing.get_args(hint)))


def _type_name(hint: Any) -> str:
    # Section classes by their own name, whichever module (the core's or a satellite's) owns them.
    text = re.sub(r"\btooldeck(\.\w+)*\.(?=[A-Z])", "", str(hint).replace("typing.", ""))
    text = re.sub(r"Annotated\[([^,\]]+), ([^\]]+)\]", r"\1 (\2)", text)
    text = re.sub(r"<class '([^']+)'>", r"\1", text)
    text = re.sub(r"Optional\[(.+)\]$", r"\1 | None", text)
    return f"`{text}`".replace("|", "\\|")


def _default(f: dataclasses.Field[Any]) -> str:
    if f.default is not dataclasses.MISSING:
        value: Any = f.default
    elif f.default_factory is not dataclasses.MISSING:
        value = f.default_factory()
        if dataclasses.is_dataclass(value):
            return "(section)"
    else:
        return "required"
    return f"`{value!r}`".replace("|", "\\|")
