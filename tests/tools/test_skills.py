"""Agent Skills from real folders: discovery, progressive loading, diagnostics and the skills gate."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tooldeck import Deck, load_config, parse_config


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    write(
        root / "pdf-report" / "SKILL.md",
        """
        ---
        name: pdf-report
        description: Turn a folder of notes into a PDF report. Use when the user asks for a report.
        allowed-tools: read_file write_file
        license: MIT
        ---
        # Making the report

        1. Read every note with read_file.
        2. Follow references/guide.md for the layout.
        """,
    )
    write(root / "pdf-report" / "references" / "guide.md", "Titles in bold, one section per note.\n")
    write(root / "pdf-report" / "scripts" / "build.py", "print('building')\n")
    (root / "pdf-report" / "assets").mkdir()
    (root / "pdf-report" / "assets" / "logo.bin").write_bytes(b"\x00\x01binary")
    write(
        root / "tide-tables" / "SKILL.md",
        """
        ---
        name: tide-tables
        description: >
          Look up tide tables on the web.
        allowed-tools: [web_extract, web_search, tide_oracle]
        ---
        Search first, then read the harbour office page.
        """,
    )
    write(root / "no-front" / "SKILL.md", "Just instructions, no front matter.\n")
    write(root / "bad-yaml" / "SKILL.md", "---\nname: [unclosed\n---\nbody\n")
    write(root / "no-description" / "SKILL.md", "---\nname: no-description\n---\nbody\n")
    write(root / "Bad_Name" / "SKILL.md", "---\nname: Bad_Name\ndescription: x\n---\n")
    write(root / ".hidden" / "SKILL.md", "---\nname: hidden\ndescription: never listed\n---\n")
    (root / "not-a-skill").mkdir()
    return root


def deck(folder: Path, **extra: Any) -> Deck:
    return Deck(parse_config({"skills_dirs": [str(folder)], **extra}))


def test_the_list_shows_names_and_descriptions_and_the_view_loads_on_demand(skills: Path) -> None:
    d = deck(skills)
    listed = d.call_sync("skills_list", {})
    assert listed.ok
    assert listed.content.splitlines() == [
        "2 skill(s):",
        "- pdf-report: Turn a folder of notes into a PDF report. Use when the user asks for a report.",
        "- tide-tables: Look up tide tables on the web.",
    ]
    view = d.call_sync("skill_view", {"name": "pdf-report"}).content
    assert view.startswith("# Skill: pdf-report\nTurn a folder of notes")
    assert "Allowed tools: read_file, write_file" in view
    assert "# Making the report\n\n1. Read every note with read_file." in view and "license: MIT" not in view
    assert "- references/guide.md\n- scripts/build.py" in view and "- assets/logo.bin" in view
    guide = d.call_sync("skill_view", {"name": "pdf-report", "file": "references/guide.md"})
    assert guide.content == "Titles in bold, one section per note.\n"


def test_skill_files_stay_inside_the_skill_folder(skills: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("secret")
    os.symlink(tmp_path / "secret.txt", skills / "pdf-report" / "leak.txt")
    d = deck(skills)
    cases = {
        "../tide-tables/SKILL.md": "contains '..'",
        str(tmp_path / "secret.txt"): "is not a path inside the skill's folder",
        "leak.txt": "'leak.txt' leads outside the skill's folder through a symbolic link",
        "assets/logo.bin": "is a binary file",
        "references/missing.md": "there is no file 'references/missing.md'. Its files: assets/logo.bin, "
        "references/guide.md, scripts/build.py (read one with skill_view(name='pdf-report', file=...))",
    }
    for file, message in cases.items():
        result = d.call_sync("skill_view", {"name": "pdf-report", "file": file})
        assert result.error is not None and message in result.error.message, (file, result.error)
    unknown = d.call_sync("skill_view", {"name": "pdf"})
    assert (
        unknown.error is not None
        and "no skill named 'pdf'; available: pdf-report, tide-tables" in unknown.error.message
    )


def test_malformed_skill_files_are_diagnostics_naming_the_file(skills: Path) -> None:
    notes = [str(n) for n in deck(skills).explain().diagnostics]
    expected = {
        "no-front": "no YAML front matter",
        "bad-yaml": "front matter: invalid YAML at line",  # then the line in the file
        "no-description": "description is missing",
        "Bad_Name": "name must be lower-case letters, digits and hyphens",
    }
    for folder, problem in expected.items():
        file = skills / folder / "SKILL.md"
        assert any(n.startswith(f"skills_dirs[0]: {file}: {problem}") and "skipped" in n for n in notes), (
            folder,
            notes,
        )
    assert not any("hidden" in n or "not-a-skill" in n for n in notes)


def test_an_active_skill_restricts_tools_to_its_allowed_tools(skills: Path) -> None:
    d = deck(skills, skills=[{"name": "pdf-report"}])
    fates = {f.name: f for f in d.explain().fates}
    assert fates["read_file"].status == "exposed" and fates["write_file"].status == "exposed"
    assert fates["web_extract"].gate == "skills"
    assert fates["web_extract"].reason == "not in allowed_tools of the active skills (pdf-report)"
    # The skills tools are essential: the model can still read the skill it works under.
    assert fates["skill_view"].status == "exposed" and fates["skills_list"].status == "exposed"
    assert "- pdf-report [active]:" in d.call_sync("skills_list", {}).content
    refused = d.call_sync("web_extract", {"urls": ["https://example.org"]})
    assert refused.error is not None
    # Two active skills: the union of their lists; unknown names in a SKILL.md are reported.
    both = deck(skills, skills=[{"name": "pdf-report"}, {"name": "tide-tables"}])
    fates = {f.name: f for f in both.explain().fates}
    assert fates["web_extract"].status == "exposed" and fates["read_file"].status == "exposed"
    assert fates["patch"].gate == "skills"
    notes = [str(n) for n in both.explain().diagnostics]
    assert (
        f"skills[1]: unknown tool 'tide_oracle' in allowed-tools of {skills / 'tide-tables' / 'SKILL.md'}"
        in notes
    )


def test_config_entries_override_or_switch_off_folder_skills(skills: Path) -> None:
    own = deck(skills, skills=[{"name": "pdf-report", "allowed_tools": ["patch"]}])
    fates = {f.name: f for f in own.explain().fates}
    assert fates["patch"].status == "exposed" and fates["read_file"].gate == "skills"
    off = deck(skills, skills=[{"name": "pdf-report", "active": False}])
    assert all(f.gate != "skills" for f in off.explain().fates)
    typo = deck(skills, skills=[{"name": "pdf-reprot"}])
    assert "skills[0].name: no skill named 'pdf-reprot' in skills_dirs" in [
        str(n) for n in typo.explain().diagnostics
    ]


def test_an_edited_skill_is_seen_at_the_next_check(skills: Path) -> None:
    d = deck(skills, skills=[{"name": "pdf-report"}], checks={"ttl_s": 0})
    assert {f.name: f for f in d.explain().fates}["patch"].gate == "skills"
    file = skills / "pdf-report" / "SKILL.md"
    file.write_text(
        file.read_text().replace("allowed-tools: read_file write_file", "allowed-tools: read_file patch")
    )
    fates = {f.name: f for f in d.explain().fates}
    assert fates["patch"].status == "exposed" and fates["write_file"].gate == "skills"
    assert "Allowed tools: read_file, patch" in d.call_sync("skill_view", {"name": "pdf-report"}).content


def test_hidden_with_the_reason_when_there_are_no_skills(tmp_path: Path) -> None:
    [fate] = Deck(parse_config({})).explain("skills_list").fates
    assert fate.gate == "availability"
    assert fate.reason == "no skill folders configured: set skills_dirs (folders of <name>/SKILL.md)"
    (tmp_path / "empty").mkdir()
    [fate] = Deck(parse_config({"skills_dirs": [str(tmp_path / "empty")]})).explain("skill_view").fates
    assert fate.reason == f"no valid SKILL.md found in skills_dirs ({tmp_path / 'empty'})"
    missing = Deck(parse_config({"skills_dirs": [str(tmp_path / "nowhere")]}))
    assert f"skills_dirs[0]: skill folder {tmp_path / 'nowhere'} does not exist" in [
        str(n) for n in missing.explain().diagnostics
    ]


def test_skill_folders_are_relative_to_the_config_file(skills: Path, tmp_path: Path) -> None:
    cfg = tmp_path / "tooldeck.yaml"
    cfg.write_text("skills_dirs: [skills]\nskills: [{name: tide-tables}]\n", encoding="utf-8")
    d = Deck(load_config(cfg))
    assert "tide-tables" in d.call_sync("skills_list", {}).content
    assert {f.name: f for f in d.explain().fates}["read_file"].gate == "skills"
