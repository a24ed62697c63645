"""A cache of validated config files, so a command need not load YAML and pydantic each time.

An entry is keyed by the file's bytes, the folder it was read from and the code that validated
it (the size and mtime of the core's config modules and of the modules defining the config
class and its sections); it records the environment variables the file read
and their values, and is used only when the environment still gives those values. Entries live
in `$TOOLDECK_CACHE_DIR` (default `~/.cache/tooldeck`), under `config/`, in a folder only the
user can read, and are read back with an unpickler that builds nothing but config sections of
modules already imported. A
cache that cannot be read or written is skipped: it only ever saves time.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import os
import pickle
import sys
from pathlib import Path
from typing import Any, TypeVar

from tooldeck._core.config import ConfigSection, CoreConfig
from tooldeck._utils.cache import cache_folder, write_entry

C = TypeVar("C", bound=CoreConfig)
_FORMAT = b"tooldeck-config-cache-3"
# The core's code a cached entry depends on: the model, its validation and this cache. Named by
# path (not imported), as the loader above imports this module.
_VALIDATING_CODE = [
    Path(__file__).with_name(name)
    for name in (
        "config.py",
        "config_sections.py",
        "config_mcp.py",
        "config_check.py",
        "config_platforms.py",
        "config_load.py",
    )
] + [Path(__file__)]


def cache_dir() -> Path | None:
    return cache_folder("config")


def lookup(kind: type[C], raw: bytes, base_dir: str) -> C | None:
    """The cached config for these file bytes, if the environment still matches what it read."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        with open(folder / _key(raw, base_dir, kind), "rb") as fh:
            entry = _SectionUnpickler(io.BytesIO(fh.read())).load()
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError, TypeError):
        return None
    if not isinstance(entry, dict) or type(entry.get("config")) is not kind:
        return None
    env = entry.get("env")
    if not isinstance(env, dict) or any(os.environ.get(k) != v for k, v in env.items()):
        return None
    config: C = entry["config"]
    return config


def store(raw: bytes, base_dir: str, env: dict[str, str | None], config: CoreConfig) -> None:
    folder = cache_dir()
    if folder is None:
        return
    try:
        blob = pickle.dumps({"env": env, "config": config}, protocol=pickle.HIGHEST_PROTOCOL)
        write_entry(folder, _key(raw, base_dir, type(config)), blob)
    except OSError as exc:
        from tooldeck._utils.logs import get_logger

        get_logger("tooldeck.config").debug("config cache not written: %s", exc)


def _key(raw: bytes, base_dir: str, kind: type[CoreConfig]) -> str:
    digest = hashlib.sha256(_FORMAT)
    digest.update(f"{kind.__module__}.{kind.__qualname__}\0".encode())
    for module in [*_VALIDATING_CODE, *_defining_files(kind)]:
        st = os.stat(module) if module.exists() else None
        digest.update(f"{st.st_size}:{st.st_mtime_ns};".encode() if st else b"?")
    digest.update(base_dir.encode("utf-8", "surrogateescape") + b"\0")
    digest.update(raw)
    return digest.hexdigest()[:40]


def _defining_files(kind: type) -> list[Path]:
    """The files of the modules defining `kind`, its bases and the sections its defaults build
    (a satellite's section changes what a file validates to)."""
    seen: set[type] = set()
    todo = [kind]
    while todo:
        cls = todo.pop()
        if cls in seen or not (issubclass(cls, ConfigSection) and dataclasses.is_dataclass(cls)):
            continue
        seen.add(cls)
        todo += cls.__mro__[1:]
        for f in dataclasses.fields(cls):
            factory = f.default_factory
            if isinstance(factory, type):
                todo.append(factory)
    files = {getattr(sys.modules.get(c.__module__), "__file__", None) for c in seen}
    return sorted(Path(f) for f in files if f)


class _SectionUnpickler(pickle.Unpickler):
    """Builds only config sections (`ConfigSection` classes) of modules already imported,
    nothing else."""

    def find_class(self, module: str, name: str) -> Any:
        found = getattr(sys.modules.get(module), name, None)
        if isinstance(found, type) and issubclass(found, ConfigSection) and found.__module__ == module:
            return found
        raise pickle.UnpicklingError(f"{module}.{name} is not a config section")
