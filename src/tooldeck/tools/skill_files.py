"""A skill's own files for `skill_view`: listed, and read one at a time, never outside its folder.

The workspace confinement does the reading (no '..', no absolute paths, no symbolic link
leading out), but the messages here speak of the skill: the model asked `skill_view` for a file
of one skill, so a refusal names that skill and lists the files it does have, rather than
pointing at the workspace file tools.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from tooldeck.core import SKILL_FILE, Skill
from tooldeck.errors import ToolError, WorkspaceError

MAX_FILES_LISTED = 100
MAX_FILE_CHARS = 100_000
MAX_FILE_BYTES = 4 * 1024 * 1024
_LISTED_IN_ERRORS = 20


def skill_files(folder: Path) -> list[str]:
    """The skill's files other than SKILL.md, relative to its folder (hidden ones and links that
    lead outside the folder left out: they cannot be read)."""
    root = os.path.realpath(folder)
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            path = Path(dirpath) / name
            rel = path.relative_to(folder).as_posix()
            inside = os.path.realpath(path).startswith(root + os.sep)
            if not name.startswith(".") and rel != SKILL_FILE and inside:
                out.append(rel)
        if len(out) > MAX_FILES_LISTED * 10:
            break
    return out


def read_skill_file(skill: Skill, file: str) -> str:
    """The text of `file`, relative to the skill's folder; a ToolError naming the skill and
    listing its files otherwise."""
    problem = _refusal(skill, file)
    if problem is not None:
        raise _error(skill, problem)
    text = _text(skill, file)
    if len(text) > MAX_FILE_CHARS:
        text = text[:MAX_FILE_CHARS] + f"\n[cut at {MAX_FILE_CHARS} of {len(text)} characters]"
    return text


def _refusal(skill: Skill, file: str) -> str | None:
    rel = file.strip()
    if rel.startswith(("/", "~", "\\")) or os.path.isabs(rel):
        return f"{file!r} is not a path inside the skill's folder; name its files relative to it"
    if ".." in PurePosixPath(rel.replace("\\", "/")).parts:
        return f"{file!r} contains '..'; name the skill's files relative to its folder, without '..'"
    if rel in ("", ".") or _is_dir(skill.folder / rel):
        return f"{file!r} is a folder of the skill, not a file"
    return None


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):  # a name too long, a NUL byte: the read says what is wrong
        return False


def _text(skill: Skill, file: str) -> str:
    from tooldeck.core import Workspace
    from tooldeck.tools.fileio import read_bytes
    from tooldeck.tools.textfile import NotText, decode

    try:
        data = read_bytes(Workspace(skill.folder), file, MAX_FILE_BYTES)
    except WorkspaceError as exc:
        how = " through a symbolic link" if "symlink" in str(exc) else ""
        raise _error(skill, f"{file!r} leads outside the skill's folder{how}") from None
    except ToolError as exc:
        if "not found" in str(exc):
            raise _error(skill, f"there is no file {file!r}") from None
        raise _error(skill, f"{file!r} cannot be shown ({exc})") from None
    try:
        return decode(data)[0]
    except NotText as exc:
        raise _error(skill, f"{file!r} {exc}; skill_view shows text files only") from None


def _error(skill: Skill, problem: str) -> ToolError:
    files = skill_files(skill.folder)
    shown = ", ".join(files[:_LISTED_IN_ERRORS]) or "none besides SKILL.md"
    more = f" and {len(files) - _LISTED_IN_ERRORS} more" if len(files) > _LISTED_IN_ERRORS else ""
    return ToolError(
        f"skill {skill.name}: {problem}. Its files: {shown}{more} "
        f"(read one with skill_view(name={skill.name!r}, file=...))",
        retryable=True,
    )
