"""`skills_list` and `skill_view`, built for one config by the library source.

Progressive disclosure: the list costs a line per skill; a skill's instructions (the SKILL.md
body) and its other files (references, scripts, templates) are read only when the model asks.
Both tools are essential: a skill that restricts tools must still be readable.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from tooldeck.availability_types import Availability
from tooldeck.decorator import tool
from tooldeck.diagnostics import Diagnostic
from tooldeck.errors import ToolError, WorkspaceError
from tooldeck.skills.catalog import SKILL_FILE, Catalog, Skill, active_skills, body, load_catalog, skill_dirs
from tooldeck.tool import Tool

if TYPE_CHECKING:
    from tooldeck.config import Config

MAX_FILES_LISTED = 100
MAX_FILE_CHARS = 100_000


def skills_tools(config: Config) -> tuple[list[Tool], list[Diagnostic]]:
    """The skills toolset for this config, and what is wrong with its skill folders."""
    catalog = load_catalog(config)
    notes = list(catalog.diagnostics)
    if config.skills_dirs:
        for i, entry in enumerate(config.skills):
            if entry.allowed_tools is None and catalog.get(entry.name) is None:
                notes.append(
                    Diagnostic(
                        "warning", f"no skill named {entry.name!r} in skills_dirs", f"skills[{i}].name"
                    )
                )

    def check() -> Availability:
        if not config.skills_dirs:
            return Availability.no(
                "no skill folders configured: set skills_dirs (folders of <name>/SKILL.md)"
            )
        found = load_catalog(config)
        if not found.skills:
            dirs = ", ".join(str(d) for d in skill_dirs(config))
            return Availability.no(f"no valid SKILL.md found in skills_dirs ({dirs})")
        # The fingerprint makes an edited SKILL.md a new answer, so the next assembly is fresh.
        return Availability.yes(f"{len(found.skills)} skill(s), catalog {found.fingerprint}")

    return [_list_tool(config, check), _view_tool(config, check)], notes


def _list_tool(config: Config, check: Callable[[], Availability]) -> Tool:
    @tool(
        toolset="skills",
        check=check,
        read_only=True,
        essential=True,
        owner="tooldeck.skills:skills_list",
        description=(
            "List the skills available: each one's name and when to use it. Load a skill's "
            "instructions with skill_view before doing a task it covers."
        ),
    )
    def skills_list() -> str:
        catalog = load_catalog(config)
        active = {a.name for a in active_skills(config)}
        return render_list(catalog, active)

    return skills_list


def render_list(catalog: Catalog, active: set[str]) -> str:
    if not catalog.skills:
        return "No skills are available."
    lines = [f"{len(catalog.skills)} skill(s):"]
    for skill in catalog.skills:
        flags = " [active]" if skill.name in active else ""
        lines.append(f"- {skill.name}{flags}: {skill.description}")
    return "\n".join(lines)


def _view_tool(config: Config, check: Callable[[], Availability]) -> Tool:
    @tool(
        toolset="skills",
        check=check,
        read_only=True,
        essential=True,
        owner="tooldeck.skills:skill_view",
        description=(
            "Load a skill: its instructions (SKILL.md) and the list of its files; with file=, one of "
            "those files (e.g. references/guide.md)."
        ),
    )
    def skill_view(name: str, file: str | None = None) -> str:
        """
        Args:
            name: The skill's name, as skills_list shows it.
            file: A file of the skill, relative to its folder; leave out for the instructions.
        """
        catalog = load_catalog(config)
        skill = catalog.get(name)
        if skill is None:
            known = ", ".join(catalog.names) or "none"
            raise ToolError(f"no skill named {name!r}; available: {known}", retryable=True)
        if file is None or file.strip() in ("", SKILL_FILE):
            return render_skill(skill)
        return read_skill_file(skill, file)

    return skill_view


def render_skill(skill: Skill) -> str:
    parts = [f"# Skill: {skill.name}", skill.description]
    if skill.allowed_tools is not None:
        parts.append(f"Allowed tools: {', '.join(skill.allowed_tools) or '(none)'}")
    if skill.compatibility:
        parts.append(f"Compatibility: {skill.compatibility}")
    parts.append("")
    parts.append(body(skill))
    files = skill_files(skill.folder)
    if files:
        shown = files[:MAX_FILES_LISTED]
        more = f"\n... and {len(files) - len(shown)} more" if len(files) > len(shown) else ""
        listing = "\n".join(f"- {f}" for f in shown)
        parts.append(
            f"\nFiles of this skill (read one with skill_view(name={skill.name!r}, file=...)):\n{listing}{more}"
        )
    return "\n".join(parts)


def skill_files(folder: Path) -> list[str]:
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            rel = (Path(dirpath) / name).relative_to(folder).as_posix()
            if not name.startswith(".") and rel != SKILL_FILE:
                out.append(rel)
        if len(out) > MAX_FILES_LISTED * 10:
            break
    return out


def read_skill_file(skill: Skill, file: str) -> str:
    """A file inside the skill's folder (never outside it: no '..', no symlink escapes)."""
    from tooldeck.tools.fileio import load_text
    from tooldeck.workspace import Workspace

    folder = Workspace(skill.folder)
    try:
        parts = folder.parts(file)
        text = load_text(folder, file, parts, tool="skill_view").text
    except WorkspaceError as exc:
        raise ToolError(f"skill {skill.name}: {exc}".replace("workspace", "skill folder")) from None
    except ToolError as exc:
        if "not found" in str(exc):
            files = ", ".join(skill_files(skill.folder)[:20]) or "none"
            raise ToolError(
                f"skill {skill.name} has no file {file!r}; its files: {files}", retryable=True
            ) from None
        raise
    if len(text) > MAX_FILE_CHARS:
        text = text[:MAX_FILE_CHARS] + f"\n[cut at {MAX_FILE_CHARS} of {len(text)} characters]"
    return text
