"""Reading git config files: the entries, which of them make git run a program, and the paths
they name that git runs or reads as config.

The reader follows git's syntax closely enough for judging: `[section]`, `[section "sub"]` and
the old `[section.sub]` headers, an entry on the header's own line (`[core] hooksPath = x`),
a key without `=` (a boolean true), quoted values with escapes, `#` and `;` comments, and lines
continued with a backslash. Section and key names compare without case, as git does.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

# The most of a config file that is read; git configs are a few KiB.
MAX_CONFIG_BYTES = 1 << 20

When = Literal["any", "bang", "command"]

# Keys whose value git runs as a program (or that lead git to run one: another config file, a
# hooks folder, a template with hooks, a transport that runs commands), as `section.key` globs
# over the lower-cased name (`*` spans a subsection): "any" value, "bang" a value starting with
# `!`, "command" any value but a boolean (`core.fsmonitor = true` is git's own daemon).
RUN_KEYS: tuple[tuple[str, When], ...] = (
    ("core.fsmonitor", "command"),
    ("core.hookspath", "any"),
    ("core.sshcommand", "any"),
    ("core.pager", "any"),
    ("core.editor", "any"),
    ("core.askpass", "any"),
    ("core.gitproxy", "any"),
    ("core.alternaterefscommand", "any"),
    ("sequence.editor", "any"),
    ("pager.*", "command"),
    ("alias.*", "bang"),
    ("credential.helper", "any"),
    ("credential.*.helper", "any"),
    ("filter.*.clean", "any"),
    ("filter.*.smudge", "any"),
    ("filter.*.process", "any"),
    ("diff.external", "any"),
    ("diff.*.command", "any"),
    ("diff.*.textconv", "any"),
    ("merge.*.driver", "any"),
    ("difftool.*.cmd", "any"),
    ("mergetool.*.cmd", "any"),
    ("gpg.program", "any"),
    ("gpg.*.program", "any"),
    ("gpg.ssh.defaultkeycommand", "any"),
    ("remote.*.uploadpack", "any"),
    ("remote.*.receivepack", "any"),
    ("remote.*.vcs", "any"),
    ("uploadpack.packobjectshook", "any"),
    ("include.path", "any"),
    ("includeif.*.path", "any"),
    ("init.templatedir", "any"),
    ("submodule.*.update", "bang"),
    ("protocol.allow", "any"),
    ("protocol.ext.allow", "any"),
    ("url.*.insteadof", "any"),
    ("url.*.pushinsteadof", "any"),
    ("web.browser", "any"),
    ("browser.*.cmd", "any"),
    ("browser.*.path", "any"),
    ("man.*.cmd", "any"),
    ("man.*.path", "any"),
    ("sendemail.smtpserver", "any"),
    ("sendemail.*cmd", "any"),
    ("trailer.*.command", "any"),
    ("trailer.*.cmd", "any"),
)
_BOOLEANS = frozenset({"", "true", "false", "yes", "no", "on", "off", "1", "0"})
_HEADER = re.compile(r'\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]')


@dataclass(frozen=True, slots=True)
class Entry:
    """One `key = value` of a git config; `name` is `section[.subsection].key` as git prints it
    (section and key lower-cased)."""

    name: str
    value: str | None  # None: a key without `=` (boolean true)


def entries(text: str) -> Iterator[Entry]:
    """The entries of a git config text, in order (lines that are not git syntax are skipped)."""
    section = ""
    for line in _logical_lines(text):
        header = _HEADER.match(line)
        if header:
            name, sub = header.group(1), header.group(2)
            if sub is not None:
                section = name.lower() + "." + re.sub(r"\\(.)", r"\1", sub)
            elif "." in name:  # the old `[section.subsection]` form
                head, _, rest = name.partition(".")
                section = f"{head.lower()}.{rest.lower()}"
            else:
                section = name.lower()
            line = line[header.end() :]
        entry = _entry(line)
        if entry is not None and section:
            key, value = entry
            yield Entry(f"{section}.{key.lower()}", value)


def _logical_lines(text: str) -> Iterator[str]:
    pending = ""
    for raw in text.splitlines():
        if raw.endswith("\\") and not raw.endswith("\\\\"):
            pending += raw[:-1]
            continue
        yield pending + raw
        pending = ""
    if pending:
        yield pending


def _entry(line: str) -> tuple[str, str | None] | None:
    match = re.match(r"\s*([A-Za-z][A-Za-z0-9-]*)\s*(=?)(.*)", line)
    if not match:
        return None
    key, equals, rest = match.groups()
    if not equals:
        return (key, None) if not rest.strip() or rest.lstrip()[0] in "#;" else None
    return key, _value(rest)


def _value(rest: str) -> str:
    """A value as git reads it: quotes removed, escapes applied, a comment outside quotes cut."""
    out, quoted, i = [], False, 0
    while i < len(rest):
        c = rest[i]
        if c == '"':
            quoted = not quoted
        elif c == "\\" and i + 1 < len(rest):
            i += 1
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(rest[i], rest[i]))
        elif c in "#;" and not quoted:
            break
        else:
            out.append(c)
        i += 1
    return "".join(out).strip()


def unreadable(text: str) -> list[str]:
    """The lines git could not read as config (git refuses a repository whose config has one)."""
    bad = []
    for line in _logical_lines(text):
        stripped = line.strip()
        if not stripped or stripped[0] in "#;":
            continue
        header = _HEADER.match(line)
        rest = line[header.end() :] if header else line
        if rest.strip() and rest.strip()[0] not in "#;" and _entry(rest) is None:
            bad.append(stripped)
    return bad


def looks_like_config(text: str) -> bool:
    """Whether the first line that is not blank or a comment is a section header."""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and stripped[0] not in "#;":
            return _HEADER.match(stripped) is not None
    return False


def run_keys(text: str) -> list[str]:
    """The entries of a git config text that make git run a program (`name = value`, for the
    approval question), in order."""
    found: list[str] = []
    for entry in entries(text):
        value = entry.value if entry.value is not None else "true"
        for pattern, when in RUN_KEYS:
            if not fnmatch.fnmatchcase(entry.name.lower(), pattern):
                continue
            if (
                when == "any"
                or (when == "bang" and value.startswith("!"))
                or (when == "command" and value.lower() not in _BOOLEANS)
            ):
                found.append(f"{entry.name} = {value}")
                break
    return found


def read_config(path: str) -> str:
    """The text of a config file ('' when it cannot be read)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read(MAX_CONFIG_BYTES)
    except OSError:
        return ""


def named_paths(text: str) -> list[tuple[str, str]]:
    """The paths a git config names that git runs or reads as config: `core.hooksPath` and
    `include.path` / `includeIf.*.path`, with why."""
    found = []
    for entry in entries(text):
        if not entry.value:
            continue
        name = entry.name.lower()
        if name == "core.hookspath":
            found.append((entry.value, "the hooks folder core.hooksPath names"))
        elif name == "include.path" or (name.startswith("includeif.") and name.endswith(".path")):
            found.append((entry.value, "a file the repository's git config includes"))
    return found


def global_configs() -> list[str]:
    """The user's global git config files, as git finds them."""
    given = os.environ.get("GIT_CONFIG_GLOBAL")
    if given:
        return [given]
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return [os.path.join(xdg, "git", "config"), os.path.join(os.path.expanduser("~"), ".gitconfig")]


def global_relative_hooks() -> tuple[str, ...]:
    """The relative `core.hooksPath` values of the global config: git takes them from the top
    of every repository's working tree."""
    out = []
    for path in global_configs():
        for value, why in named_paths(read_config(path)):
            if why.startswith("the hooks") and not value.startswith(("/", "~")):
                out.append("/".join(p for p in value.split("/") if p not in ("", ".")))
    return tuple(dict.fromkeys(p for p in out if p and ".." not in p.split("/")))


__all__ = [
    "RUN_KEYS",
    "Entry",
    "entries",
    "global_configs",
    "global_relative_hooks",
    "looks_like_config",
    "named_paths",
    "read_config",
    "run_keys",
    "unreadable",
]
