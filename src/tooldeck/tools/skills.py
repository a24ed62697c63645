"""`skills_list` and `skill_view`, built for one config by the library source.

Progressive disclosure: the list costs a line per skill; a skill's instructions (the SKILL.md
body) and its other files (references, scripts, templates) are read only when the model asks.
Both tools are essential: a skill that restricts tools must still be readable.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tooldeck.core import (
    SKILL_FILE,
    Availability,
    Diagnostic,
    Skill,
    SkillCatalog,
    Tool,
    active_skills,
    load_skills,
    skill_body,
    skill_dirs,
    tool,
)
from tooldeck.errors import ToolError
from tooldeck.tools.skill_files import MAX_FILES_LISTED, read_skill_file, skill_files

if TYPE_CHECKING:
    from tooldeck.core import CoreConfig


def skills_tools(config: CoreConfig) -> tuple[list[Tool], list[Diagnostic]]:
    """The skills toolset for this config, and what is wrong with its skill folders."""
    catalog = load_skills(config)
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
        found = load_skills(config)
        if not found.skills:
            dirs = ", ".join(str(d) for d in skill_dirs(config))
            return Availability.no(f"no valid SKILL.md found in skills_dirs ({dirs})")
        # The fingerprint makes an edited SKILL.md a new answer, so the next assembly is fresh.
        return Availability.yes(f"{len(found.skills)} skill(s), catalog {found.fingerprint}")

    return [_list_tool(config, check), _view_tool(config, check)], notes


def _list_tool(config: CoreConfig, check: Callable[[], Availability]) -> Tool:
    @tool(
        toolset="skills",
        check=check,
        read_only=True,
        essential=True,
        owner="tooldeck._core.skills:skills_list",
        description=(
            "List the skills available: each one's name and when to use it. Load a skill's "
            "instructions with skill_view before doing a task it covers."
        ),
    )
    def skills_list() -> str:
        catalog = load_skills(config)
        active = {a.name for a in active_skills(config)}
        return render_list(catalog, active)

    return skills_list


def render_list(catalog: SkillCatalog, active: set[str]) -> str:
    if not catalog.skills:
        return "No skills are available."
    lines = [f"{len(catalog.skills)} skill(s):"]
    for skill in catalog.skills:
        flags = " [active]" if skill.name in active else ""
        lines.append(f"- {skill.name}{flags}: {skill.description}")
    return "\n".join(lines)


def _view_tool(config: CoreConfig, check: Callable[[], Availability]) -> Tool:
    @tool(
        toolset="skills",
        check=check,
        read_only=True,
        essential=True,
        owner="tooldeck._core.skills:skill_view",
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
        catalog = load_skills(config)
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
    parts.append(skill_body(skill))
    files = skill_files(skill.folder)
    if files:
        shown = files[:MAX_FILES_LISTED]
        more = f"\n... and {len(files) - len(shown)} more" if len(files) > len(shown) else ""
        listing = "\n".join(f"- {f}" for f in shown)
        parts.append(
            f"\nFiles of this skill (read one with skill_view(name={skill.name!r}, file=...)):\n{listing}{more}"
        )
    return "\n".join(parts)
