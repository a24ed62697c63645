"""Package sources redirected by writing a package manager's configuration file: a `registry=`
line in `.npmrc`, `index-url` in `pip.conf`, a `repository` in `.pypirc`, `npmRegistryServer` in
`.yarnrc.yml`, a cargo source replacement, a gem source. Every later install (or upload) then
talks to that server, as `npm config set registry` would make it (`config_files.py`)."""

from __future__ import annotations

import re

from tooldeck.safety.effects import written_files
from tooldeck.safety.flows import output_of
from tooldeck.safety.model import Invocation
from tooldeck.safety.paths import resolve
from tooldeck.safety.rules.base import RuleSet
from tooldeck.safety.sed_script import sed_scripts

rules = RuleSet("config_tampering")

_FILES: dict[str, re.Pattern[str]] = {
    "npm": re.compile(r"(?im)^\s*((?:@[\w.-]+:)?registry)\s*=\s*(\S+)"),
    "yarn": re.compile(r"(?im)^\s*(npmRegistryServer|registry|npmScopes)\s*[:= ]\s*[\"']?([^\s\"']+)"),
    "pip": re.compile(r"(?im)^\s*((?:extra-)?index(?:-url)?|find-links|trusted-host)\s*[=:]\s*(\S+)"),
    "pypirc": re.compile(r"(?im)^\s*(repository)\s*[=:]\s*(\S+)"),
    "cargo": re.compile(r"(?im)^\s*(replace-with|registry|index)\s*=\s*[\"']?([^\s\"']+)"),
    "gem": re.compile(r"(?im)^\s*(:sources|-)\s*:?\s*(https?://\S+)"),
    "conda": re.compile(r"(?im)^\s*(-|channel_alias:)\s*(https?://\S+)"),
}
_OFFICIAL = re.compile(
    r"(?i)https://(?:registry\.npmjs\.org|registry\.yarnpkg\.com|pypi\.org|upload\.pypi\.org|test\.pypi\.org"
    r"|pypi\.python\.org|files\.pythonhosted\.org|rubygems\.org|index\.crates\.io|crates\.io"
    r"|github\.com/rust-lang/crates\.io-index|npm\.pkg\.github\.com|conda\.anaconda\.org|repo\.anaconda\.com)(?:/\S*)?$"
)


def _kind(shown: str) -> str | None:
    name = shown.rsplit("/", 1)[-1]
    if name == ".npmrc" or shown.endswith("/etc/npmrc"):
        return "npm"
    if name in (".yarnrc", ".yarnrc.yml"):
        return "yarn"
    if name in ("pip.conf", "pip.ini"):
        return "pip"
    if name == ".pypirc":
        return "pypirc"
    if name in ("config", "config.toml") and "/.cargo/" in f"/{shown}":
        return "cargo"
    if name == ".gemrc":
        return "gem"
    if name == ".condarc":
        return "conda"
    return None


def _written_text(inv: Invocation) -> str:
    if inv.name == "tee":
        return inv.data.text or ""
    if inv.name in ("sed", "gsed"):
        return "\n".join(s.text for s in sed_scripts(inv))
    return output_of(inv).text or ""


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
        kind = _kind(shown)
        if kind is None:
            continue
        text = text or _written_text(inv)
        for match in _FILES[kind].finditer(text):
            key, value = match.group(1), match.group(2).strip("'\"")
            if key == "replace-with" or key == "trusted-host" or not _OFFICIAL.match(value):
                return f"{inv.name} {how}s {shown} with {key} {value[:60]}: later installs come from there"
    return None
