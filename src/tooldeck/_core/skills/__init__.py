"""Agent Skills: folders with a SKILL.md found under `skills_dirs`, offered to the model
progressively (`skills_list` shows names and descriptions, `skill_view` loads a skill's body and
files on demand), with an active skill's `allowed-tools` feeding the skills gate. The catalog
is here, below the assembly that gates on it; the two tools are in `tooldeck/tools/skills.py`."""
