"""A cache of validated config files, so a command need not load YAML and pydantic each time.

An entry is keyed by the file's bytes, the folder it was read from and the code that validated
it (the config modules' size and mtime); it records the environment variables the file read
and their values, and is used only when the environment still gives those values. Entries live
in `$TOOLDECK_CACHE_DIR` (default `~/.cache/tooldeck`), under `config/`, in a folder only the
user can read, and are read back with an unpickler that builds nothing but config sections. A
cache that cannot be read or written is skipped: it only ever saves time.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
from pathlib import Path
from typing import Any

from tooldeck._core import config as config_module
from tooldeck._core import config_sections
from tooldeck._core.config import Config

_FORMAT = b"tooldeck-config-cache-2"
# The code a cached entry depends on: the model, its validation and this cache. Named by path
# (not imported), as the loader above imports this module.
_VALIDATING_CODE = [
    Path(__file__).with_name(name)
    for name in (
        "config.py",
        "config_sections.py",
        "config_check.py",
        "config_platforms.py",
        "config_load.py",
    )
] + [Path(__file__)]
# Where the pickled classes live.
_SECTION_MODULES = {"tooldeck._core.config": config_module, "tooldeck._core.config_sections": config_sections}


def cache_dir() -> Path | None:
    root = os.environ.get("TOOLDECK_CACHE_DIR")
    if root == "":
        return None  # an empty value turns the cache off
    if root is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "tooldeck")
    return Path(root) / "config"


def lookup(raw: bytes, base_dir: str) -> Config | None:
    """The cached config for these file bytes, if the environment still matches what it read."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        with open(folder / _key(raw, base_dir), "rb") as fh:
            entry = _SectionUnpickler(io.BytesIO(fh.read())).load()
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError, TypeError):
        return None
    if not isinstance(entry, dict) or not isinstance(entry.get("config"), Config):
        return None
    env = entry.get("env")
    if not isinstance(env, dict) or any(os.environ.get(k) != v for k, v in env.items()):
        return None
    config: Config = entry["config"]
    return config


def store(raw: bytes, base_dir: str, env: dict[str, str | None], config: Config) -> None:
    folder = cache_dir()
    if folder is None:
        return
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        if folder.is_symlink() or (folder.stat().st_mode & 0o077):
            return  # not a private folder: never write (or trust) entries there
        blob = pickle.dumps({"env": env, "config": config}, protocol=pickle.HIGHEST_PROTOCOL)
        import tempfile

        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".entry-")
        with os.fdopen(fd, "wb") as fh:
            fh.write(blob)
        os.replace(tmp, folder / _key(raw, base_dir))
    except OSError as exc:
        from tooldeck._utils.logs import get_logger

        get_logger("tooldeck.config").debug("config cache not written: %s", exc)


def _key(raw: bytes, base_dir: str) -> str:
    digest = hashlib.sha256(_FORMAT)
    for module in _VALIDATING_CODE:
        st = os.stat(module) if module.exists() else None
        digest.update(f"{st.st_size}:{st.st_mtime_ns};".encode() if st else b"?")
    digest.update(base_dir.encode("utf-8", "surrogateescape") + b"\0")
    digest.update(raw)
    return digest.hexdigest()[:40]


class _SectionUnpickler(pickle.Unpickler):
    """Builds only the dataclasses of `tooldeck._core.config`, nothing else."""

    def find_class(self, module: str, name: str) -> Any:
        if module in _SECTION_MODULES:
            found = getattr(_SECTION_MODULES[module], name, None)
            if isinstance(found, type) and hasattr(found, "__dataclass_fields__"):
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not a config section")
