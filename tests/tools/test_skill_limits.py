"""Agent Skills format caps on front matter, and `skill_view`'s refusals speaking of the skill's
own files (never of the workspace file tools), on real skill folders."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tooldeck import Deck, parse_config


def skill(root: Path, folder: str, name: str, description: str) -> Path:
    file = root / folder / "SKILL.md"
    file.parent.mkdir(parents=True)
    file.write_text(f"---\nname: {name}\ndescription: {description}\n---\nSteps.\n", encoding="utf-8")
    return file


def deck(root: Path) -> Deck:
    return Deck(parse_config({"skills_dirs": [str(root)]}))


def test_a_name_or_description_over_its_cap_is_a_warning_naming_the_file(tmp_path: Path) -> None:
    wordy = skill(tmp_path, "wordy", "wordy", "Use it. " * 200)  # 1,599 characters
    long_name = skill(tmp_path, "long", "a" * 65, "Fine.")
    skill(tmp_path, "exact", "b" * 64, "x" * 1024)  # both at their caps: kept
    d = deck(tmp_path)
    notes = {d.message.split(":", 1)[0]: d for d in d.explain().diagnostics if "skipped" in d.message}
    assert set(notes) == {str(wordy), str(long_name)}
    assert notes[str(wordy)].level == "warning" and notes[str(wordy)].path == "skills_dirs[0]"
    assert "description is 1599 characters long; the Agent Skills format allows at most 1024" in (
        notes[str(wordy)].message
    )
    assert "name is 65 characters long; the Agent Skills format allows at most 64" in (
        notes[str(long_name)].message
    )
    listed = d.call_sync("skills_list", {}).content
    assert "b" * 64 in listed and "wordy" not in listed and "a" * 65 not in listed


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    skill(root, "demo", "demo", "A demo skill.")
    (root / "demo" / "references").mkdir()
    (root / "demo" / "references" / "guide.md").write_text("Guide.\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("secret", encoding="utf-8")
    os.symlink(tmp_path / "secret.txt", root / "demo" / "leak.txt")
    return root


@pytest.mark.parametrize(
    ("file", "problem"),
    [
        (".", "'.' is a folder of the skill, not a file"),
        ("references", "'references' is a folder of the skill, not a file"),
        (
            "../demo/SKILL.md",
            "'../demo/SKILL.md' contains '..'; name the skill's files relative to its folder, without '..'",
        ),
        (
            "/etc/passwd",
            "'/etc/passwd' is not a path inside the skill's folder; name its files relative to it",
        ),
        ("leak.txt", "'leak.txt' leads outside the skill's folder through a symbolic link"),
        ("nope.md", "there is no file 'nope.md'"),
    ],
)
def test_skill_view_refusals_list_the_skills_own_files(folder: Path, file: str, problem: str) -> None:
    result = deck(folder).call_sync("skill_view", {"name": "demo", "file": file})
    assert result.error is not None
    assert result.error.message == (
        f"skill demo: {problem}. Its files: references/guide.md "
        "(read one with skill_view(name='demo', file=...))"
    )
    for wording in ("search_files", "file tools", "workspace", "/skill folder"):
        assert wording not in result.error.message


def test_the_listing_leaves_out_links_that_cannot_be_read(folder: Path) -> None:
    view = deck(folder).call_sync("skill_view", {"name": "demo"}).content
    assert "- references/guide.md" in view and "leak.txt" not in view
