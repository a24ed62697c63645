"""Finding and reading Agent Skills: folders with a `SKILL.md` under the configured `skills_dirs`.

A skill is a folder `<dir>/<name>/` whose `SKILL.md` starts with YAML front matter:

    ---
    name: pdf-report
    description: Turn a folder of notes into a PDF report. Use when ...
    allowed-tools: read_file write_file     # optional; spaces or commas between names
    ---
    Instructions for the model...

The catalog keeps only the front matter (names and descriptions are what a model needs to pick a
skill); bodies and the skill's other files are read on demand. A SKILL.md that cannot be read,
has no front matter, or lacks a name or description is a diagnostic naming the file, never an
exception. Catalogs are cached by the files' sizes and modification times, so an edited
SKILL.md is seen at the next look.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tooldeck._core.diagnostics import Diagnostic
from tooldeck.errors import ConfigError

if TYPE_CHECKING:
    from tooldeck._core.config import CoreConfig

SKILL_FILE = "SKILL.md"
"""The file that makes a folder a skill."""
NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_SPLIT = re.compile(r"[\s,]+")


@dataclass(frozen=True, slots=True)
class Skill:
    """One skill's front matter and where it lives."""

    name: str
    description: str
    folder: Path
    allowed_tools: tuple[str, ...] | None = None
    license: str | None = None
    compatibility: str | None = None
    metadata: Mapping[str, str] = field(default_factory=dict)

    @property
    def file(self) -> Path:
        return self.folder / SKILL_FILE


@dataclass(frozen=True, slots=True)
class Catalog:
    """The skills found, what was wrong with the others, and a fingerprint of the files read."""

    skills: tuple[Skill, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    fingerprint: str = ""

    def get(self, name: str) -> Skill | None:
        return next((s for s in self.skills if s.name == name), None)

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.skills]


def skill_dirs(config: CoreConfig) -> list[Path]:
    """The folders `skills_dirs` names, resolved against the config file's folder."""
    return [config.resolve_path(d) for d in config.skills_dirs]


_cache: dict[tuple[Any, ...], Catalog] = {}
_cache_lock = threading.Lock()


def load_catalog(config: CoreConfig) -> Catalog:
    """The skills under `config.skills_dirs` (the first of two same-named skills wins)."""
    dirs = skill_dirs(config)
    if not dirs:
        return Catalog()
    found, signature = _scan(dirs)
    key = (tuple(str(d) for d in dirs), signature)
    cached = _cache.get(key)
    if cached is not None:
        return cached
    skills: list[Skill] = []
    notes: list[Diagnostic] = []
    for i, folder in enumerate(dirs):
        where = f"skills_dirs[{i}]"
        if folder not in found:
            notes.append(Diagnostic("warning", f"skill folder {folder} does not exist", where))
            continue
        for file in found[folder]:
            parsed = parse_skill(file)
            if isinstance(parsed, Diagnostic):
                notes.append(Diagnostic(parsed.level, parsed.message, where))
            elif any(s.name == parsed.name for s in skills):
                first = next(s for s in skills if s.name == parsed.name)
                notes.append(
                    Diagnostic(
                        "warning",
                        f"{file}: skill {parsed.name!r} is also in {first.file}; the first one is used",
                        where,
                    )
                )
            else:
                skills.append(parsed)
    import hashlib

    digest = hashlib.sha256(repr(key).encode()).hexdigest()[:12]
    catalog = Catalog(tuple(skills), tuple(notes), digest)
    with _cache_lock:
        if len(_cache) > 32:
            _cache.clear()
        _cache[key] = catalog
    return catalog


def _scan(dirs: list[Path]) -> tuple[dict[Path, list[Path]], tuple[Any, ...]]:
    """The SKILL.md files of each existing folder, and their (path, size, mtime) signature."""
    found: dict[Path, list[Path]] = {}
    signature: list[Any] = []
    for folder in dirs:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            signature.append((str(folder), None))
            continue
        files = found.setdefault(folder, [])
        for entry in entries:
            if entry.name.startswith(".") or not entry.is_dir():
                continue
            file = Path(entry.path) / SKILL_FILE
            try:
                st = file.stat()
            except OSError:
                continue
            files.append(file)
            signature.append((str(file), st.st_size, st.st_mtime_ns))
    return found, tuple(signature)


def parse_skill(file: Path) -> Skill | Diagnostic:
    """A skill from its SKILL.md, or a diagnostic saying what is wrong with the file."""

    def bad(problem: str) -> Diagnostic:
        return Diagnostic("warning", f"{file}: {problem}; the skill is skipped")

    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return bad(f"cannot be read ({exc})")
    front = front_matter(text)
    if front is None:
        return bad(
            "no YAML front matter (the file must start with a '---' line, then name: and description:)"
        )
    from tooldeck._core.config_yaml import load_yaml

    try:
        data = load_yaml("\n" + front, "front matter")  # the newline: line numbers as in the file
    except ConfigError as exc:
        return bad(str(exc))
    if not isinstance(data, dict):
        return bad("the front matter is not a mapping of keys")
    name, description = data.get("name"), data.get("description")
    if isinstance(name, str) and len(name) > MAX_NAME:
        return bad(f"name is {len(name)} characters long; the Agent Skills format allows at most {MAX_NAME}")
    if not isinstance(name, str) or not NAME.match(name):
        return bad(f"name must be lower-case letters, digits and hyphens (at most {MAX_NAME}), got {name!r}")
    if not isinstance(description, str) or not description.strip():
        return bad("description is missing (it tells the model when to use the skill)")
    if len(description.strip()) > MAX_DESCRIPTION:
        return bad(
            f"description is {len(description.strip())} characters long; the Agent Skills format "
            f"allows at most {MAX_DESCRIPTION}"
        )
    allowed = data.get("allowed-tools", data.get("allowed_tools"))
    tools = _tool_list(allowed)
    if allowed is not None and tools is None:
        return bad(f"allowed-tools must be tool names separated by spaces or commas, got {allowed!r}")
    meta = data.get("metadata")
    return Skill(
        name=name,
        description=" ".join(description.split()),
        folder=file.parent,
        allowed_tools=tools,
        license=str(data["license"]) if data.get("license") else None,
        compatibility=str(data["compatibility"]) if data.get("compatibility") else None,
        metadata={str(k): str(v) for k, v in meta.items()} if isinstance(meta, dict) else {},
    )


def front_matter(text: str) -> str | None:
    match = _FRONT.match(text.lstrip("\ufeff"))
    return match.group(1) if match else None


def body(skill: Skill) -> str:
    """The SKILL.md text after its front matter."""
    text = skill.file.read_text(encoding="utf-8").lstrip("\ufeff")
    match = _FRONT.match(text)
    return text[match.end() :].strip() if match else text.strip()


def _tool_list(value: object) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return tuple(n for n in _SPLIT.split(value) if n)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(v.strip() for v in value if v.strip())
    return None


@dataclass(frozen=True, slots=True)
class ActiveSkill:
    """A skill that is on, with the tools it allows (None: it does not restrict tools)."""

    name: str
    allowed_tools: tuple[str, ...] | None
    where: str  # config key path of the entry that turned it on
    # The SKILL.md the allowed tools were read from (None: from the entry itself, or none).
    file: Path | None = None


def active_skills(config: CoreConfig) -> list[ActiveSkill]:
    """The `skills:` entries that are active; an entry without `allowed_tools` takes its skill
    folder's `allowed-tools`, when a skill of that name is in `skills_dirs`."""
    out: list[ActiveSkill] = []
    catalog: Catalog | None = None
    for i, entry in enumerate(config.skills):
        if not entry.active:
            continue
        if entry.allowed_tools is not None:
            out.append(ActiveSkill(entry.name, tuple(entry.allowed_tools), f"skills[{i}]"))
            continue
        catalog = catalog or load_catalog(config)
        found = catalog.get(entry.name)
        if found is not None and found.allowed_tools is not None:
            out.append(ActiveSkill(entry.name, found.allowed_tools, f"skills[{i}]", found.file))
        else:
            out.append(ActiveSkill(entry.name, None, f"skills[{i}]"))
    return out
