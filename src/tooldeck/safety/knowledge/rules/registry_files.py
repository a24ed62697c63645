"""Package sources redirected by writing a package manager's configuration file: a `registry=`
line in `.npmrc`, `index-url` in `pip.conf`, a `repository` in `.pypirc`, `npmRegistryServer` in
`.yarnrc.yml`, a cargo source replacement, a gem source. Every later install (or upload) then
talks to that server, as `npm config set registry` would make it (`config_files.py`)."""

from __future__ import annotations

import re

from tooldeck.safety.analysis.effects import written_files
from tooldeck.safety.analysis.model import Invocation
from tooldeck.safety.analysis.paths import resolve
from tooldeck.safety.knowledge.config_targets import config_file_tool, written_text
from tooldeck.safety.knowledge.rules.base import RuleSet

rules = RuleSet("config_tampering")

_FILES: dict[str, re.Pattern[str]] = {
    "npmrc": re.compile(r"(?im)^\s*((?:@[\w.-]+:)?registry)\s*=\s*(\S+)"),
    "yarnrc": re.compile(r"(?im)^\s*(npmRegistryServer|registry|npmScopes)\s*[:= ]\s*[\"']?([^\s\"']+)"),
    "pip": re.compile(r"(?im)^\s*((?:extra-)?index(?:-url)?|find-links|trusted-host)\s*[=:]\s*(\S+)"),
    "pypirc": re.compile(r"(?im)^\s*(repository)\s*[=:]\s*(\S+)"),
    "cargo": re.compile(r"(?im)^\s*(replace-with|registry|index)\s*=\s*[\"']?([^\s\"']+)"),
    "gem": re.compile(r"(?im)^\s*(:sources|-)\s*:?\s*(https?://\S+)"),
    "condarc": re.compile(r"(?im)^\s*(-|channel_alias:)\s*(https?://\S+)"),
}
_OFFICIAL = re.compile(
    r"(?i)https://(?:registry\.npmjs\.org|registry\.yarnpkg\.com|pypi\.org|upload\.pypi\.org|test\.pypi\.org"
    r"|pypi\.python\.org|files\.pythonhosted\.org|rubygems\.org|index\.crates\.io|crates\.io"
    r"|github\.com/rust-lang/crates\.io-index|npm\.pkg\.github\.com|conda\.anaconda\.org|repo\.anaconda\.com)(?:/\S*)?$"
)


@rules.rule(
    "registry-file",
    "approve",
    "writes an unofficial registry or package index into a package manager's file (.npmrc registry=, "
    "pip.conf index-url, .pypirc repository)",
)
def _registry_file(inv: Invocation) -> str | None:
    text = ""
    for target, how in written_files(inv):
        shown = resolve(target.text, inv.cwd).shown()
        kind = config_file_tool(shown)
        if kind not in _FILES:
            continue
        text = text or written_text(inv)
        for match in _FILES[kind].finditer(text):
            key, value = match.group(1), match.group(2).strip("'\"")
            if key == "replace-with" or key == "trusted-host" or not _OFFICIAL.match(value):
                return f"{inv.name} {how}s {shown} with {key} {value[:60]}: later installs come from there"
    return None
