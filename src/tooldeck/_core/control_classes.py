"""What the host runs later, or reads as its own configuration, judged by class wherever it lies
in the workspace and whether or not it exists yet (the listed paths, and the hidden set, are in
`control_plane.py`).

A list of paths gets walked around (a nested repository, the project's own virtualenv, a config
file where none was yet), so these are classes, each judged from a path relative to the
workspace and, for a git config, from the content being written:

- **git**: every repository at any depth, a `.git` folder, a `.git` pointer file or a bare
  repository: its hooks (samples aside), a `.git` file or link that points git elsewhere, a
  `commondir` leading out of git's own folders, and any git config (a repository's `config`,
  `config.worktree`, `.gitconfig`, `.gitmodules`) whose content holds a key that makes git run
  a program. A config without such keys lands: `git init`, `add`, `commit` need nobody.
- **interpreter start-up**: what Python runs at every start of an environment (`*.pth`,
  `sitecustomize`, `usercustomize` under any `site-packages`/`dist-packages`), the `bin/` of
  an existing environment (its `pyvenv.cfg` or `conda-meta` says so) and conda's activation
  scripts, and the same for other ecosystems: an existing `node_modules/.bin` (first on PATH
  in `npm run`), `.cargo/config[.toml]` (cargo reads it from every parent folder; runners,
  wrappers), `.npmrc` / `.yarnrc` / `.yarnrc.yml` (node options, script shell, yarnPath).
- **tooldeck's configuration**: a `tooldeck.yaml` in any folder, present or not: a start of
  tooldeck there reads it (the MCP servers it starts, the modules it imports, approvals).
- **the user's home**, when the workspace is or contains it: every dot-file and dot-folder at
  its top (shell start-up files, what they source, `~/.local/bin`, tools' configuration), `bin`,
  and the other folders and files its start-up files put on PATH or source.

`sandbox.protected: ["!PATH"]` takes PATH (and what lies below it) out of every class: how a
user lets changes of a trusted virtualenv through (`!.venv`).
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import pwd
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from tooldeck._core import git_config
from tooldeck._utils.pathnames import relative_to

Kind = Literal["file", "folder", "symlink", "absent", "other"]

# Each class and why it is protected (`explain`, the README and the config reference say these).
CLASSES: tuple[tuple[str, str], ...] = (
    (
        "git",
        "hooks, pointer files and configs of every repository at any depth: git runs hooks, and "
        "programs a config names (fsmonitor, hooksPath, pager, editor, credential helpers, "
        "drivers, ! aliases, includes, ...), at the user's next git command; a config without "
        "such keys lands",
    ),
    (
        "interpreter start-up",
        "*.pth, sitecustomize and usercustomize under any site-packages or dist-packages, the bin/ "
        "of an existing environment (pyvenv.cfg, conda-meta) and conda's activate.d, node_modules/"
        ".bin, .cargo/config[.toml], .npmrc, .yarnrc[.yml]: run or read at the next start of that "
        "interpreter or tool",
    ),
    (
        "tooldeck configuration",
        "tooldeck.yaml in any folder, present or not (and the config file and mcp_servers file in "
        "use): the next start of tooldeck there reads it and starts what it names",
    ),
    (
        "the user's home",
        "when the workspace is or holds the home: every dot-file and dot-folder at its top, bin/, "
        "and what its shell start-up files source or put on PATH: a login shell runs them",
    ),
)
STARTUP_MODULES = frozenset({"sitecustomize", "usercustomize"})
CONFIG_NAMES = frozenset({"config", "config.worktree", ".gitconfig", ".gitmodules"})
TOOL_RC_FILES = frozenset({".npmrc", ".yarnrc", ".yarnrc.yml"})
# Inside a `.git` folder: where a nested git folder (a submodule's, a linked worktree's) starts,
# and folders of git's data whose names say nothing (a branch may be called `hooks`).
_GIT_NESTS = frozenset({"modules", "worktrees"})
_GIT_DATA = frozenset({"refs", "objects", "logs", "info", "lfs"})
_SITE = frozenset({"site-packages", "dist-packages"})
_SOURCED = re.compile(r"(?:^|[;&|\s])(?:source|\.)\s+[\"']?([^\s\"';|&]+)")
_PATH_SET = re.compile(r"\bPATH=[\"']?([^\s\"';]+)")


@dataclass(frozen=True, slots=True)
class PathChange:
    """What a path becomes: its kind and, for a file, its bytes when known."""

    kind: Kind
    data: bytes | None = None
    # Where the bytes can be read when `data` is not given (what is on disk now).
    source: str | None = None

    def bytes(self) -> bytes | None:
        if self.data is not None or self.source is None:
            return self.data
        try:
            with open(self.source, "rb") as fh:
                return fh.read(git_config.MAX_CONFIG_BYTES + 1)
        except OSError:
            return None


def covers(pattern: str, rel: str) -> bool:
    """Whether `pattern` names `rel` or a folder holding it. Case is ignored: on a file system
    that ignores it (a mounted macOS or Windows volume) `.MCP.json` is `.mcp.json`."""
    parts, pattern = rel.lower().split("/"), pattern.lower()
    return any(fnmatch.fnmatchcase("/".join(parts[:n]), pattern) for n in range(1, len(parts) + 1))


@dataclass(frozen=True, slots=True)
class ClassRules:
    """The classes as they apply to one workspace (see the module docstring)."""

    root: str
    # The user's home relative to the root ('' for the root itself), None when it lies elsewhere.
    home: str | None = None
    # Paths in the home (relative to it, not dot-names) its start-up files source or put on PATH.
    home_extras: tuple[str, ...] = ()
    # `!PATH` entries of sandbox.protected: taken out of every class.
    exempt: tuple[str, ...] = ()
    # Relative `core.hooksPath` values of the global git config (taken in every repository).
    global_hooks: tuple[str, ...] = ()

    @classmethod
    def of(cls, root: str, exempt: Sequence[str] = (), *, startup_files: Sequence[str] = ()) -> ClassRules:
        home = None
        for candidate in _homes():
            rel = relative_to(candidate, root)
            if rel is not None:
                home = rel
                extras = _startup_extras(candidate, startup_files)
                break
        else:
            extras = ()
        return cls(root, home, extras, tuple(exempt), git_config.global_relative_hooks())

    def judge(self, rel: str, change: PathChange | None = None) -> str | None:
        """Why changing `rel` (relative to the root, symlinks resolved on the way) as `change`
        says needs consent, or None. Without a change: an unknown write of what is there."""
        if not rel or any(covers(p, rel) for p in self.exempt):
            return None
        real = os.path.join(self.root, rel)
        change = change if change is not None else _unknown(real)
        parts = rel.split("/")
        low = [p.lower() for p in parts]
        return (
            self._git(parts, low, change)
            or self._startup(parts, low, change)
            or _tooldeck(low)
            or self._home(parts)
        )

    def by_content(self, rel: str) -> bool:
        """Whether the verdict for `rel` depends on the bytes written to it."""
        low = rel.lower().split("/")
        name = low[-1]
        return (
            name in CONFIG_NAMES
            or name in (".git", "commondir")
            or name.endswith(".gitconfig")
            or low[-2:] == ["git", "config"]
        )

    # -- git -------------------------------------------------------------------------------

    def _git(self, parts: list[str], low: list[str], change: PathChange) -> str | None:
        if ".git" in low:
            at = low.index(".git")
            inner = low[at + 1 :]
            if not inner:
                return self._pointer(parts[:at], change)
            if "hooks" in inner and _git_folder_path(inner, "hooks"):
                return _hook(inner[inner.index("hooks") + 1 :], change)
            if inner[-1] in ("config", "config.worktree") and _git_folder_path(inner, inner[-1]):
                return _config(change, inside_git=True)
            if inner[-1] == "commondir" and change.kind != "absent":
                return self._commondir(parts, change)
            return None
        for k, name in enumerate(low):
            if name == "hooks" and k > 0 and _is_bare(os.path.join(self.root, *parts[:k])):
                return _hook(low[k + 1 :], change)
        if low[-1] in CONFIG_NAMES or low[-1].endswith(".gitconfig") or low[-2:] == ["git", "config"]:
            why = _config(change, inside_git=False)
            if why:
                return why
        return self._global_hooks(parts, low, change)

    def _pointer(self, folder: list[str], change: PathChange) -> str | None:
        """The `.git` entry itself: a folder, or none, is git's own; a link or a file pointing
        outside git's folders makes git read another repository's config and hooks."""
        if change.kind in ("folder", "absent"):
            return None
        why = "a .git file or link: it points git at a repository whose config and hooks git runs"
        data = change.bytes()
        if change.kind != "file" or data is None:
            return why
        text = data[:4096].decode("utf-8", "replace").strip()
        if not text.startswith("gitdir:"):
            return why
        return self._inside_git(folder, text[len("gitdir:") :].strip(), why)

    def _commondir(self, parts: list[str], change: PathChange) -> str | None:
        why = "a commondir: it points git at another folder's config and hooks"
        data = change.bytes()
        if change.kind != "file" or data is None:
            return why
        text = data[:4096].decode("utf-8", "replace").strip()
        return self._inside_git(parts[:-1], text, why)

    def _inside_git(self, folder: list[str], target: str, why: str) -> str | None:
        """None when `target` (relative to `folder`) is a folder of git's own layout inside the
        workspace (a submodule's or worktree's under some `.git`), else `why`."""
        base = os.path.join(self.root, *folder)
        real = os.path.realpath(os.path.join(base, target))
        rel = relative_to(real, self.root)
        if rel and ".git" in rel.lower().split("/"):
            return None
        return why

    def _global_hooks(self, parts: list[str], low: list[str], change: PathChange) -> str | None:
        for hooks in self.global_hooks:
            names = hooks.lower().split("/")
            for k in range(len(low) - len(names) + 1):
                if low[k : k + len(names)] == names and os.path.lexists(
                    os.path.join(self.root, *parts[:k], ".git")
                ):
                    return _hook(low[k + len(names) :], change, root_why=f"global core.hooksPath {hooks!r}")
        return None

    # -- interpreters ------------------------------------------------------------------------

    def _startup(self, parts: list[str], low: list[str], change: PathChange) -> str | None:
        if change.kind == "absent":
            return None  # removing a start-up file runs nothing
        for i, name in enumerate(low):
            if name in _SITE:
                why = _site_entry(low[i + 1 :], change)
                if why:
                    return why
            elif name in ("bin", "scripts") and self._environment(parts[:i]):
                if i < len(low) - 1 or change.kind != "folder":
                    return "the bin/ of a Python environment: its programs run when the user starts them"
            elif name == "conda" and low[i + 1 : i + 2] in (["activate.d"], ["deactivate.d"]):
                if i >= 1 and low[i - 1] == "etc" and self._environment(parts[: i - 1]):
                    return "a conda environment's activation script: conda activate sources it"
            elif (
                name == ".bin"
                and low[i - 1 : i] == ["node_modules"]
                and os.path.isdir(os.path.join(self.root, *parts[:i]))
            ):
                return "node_modules/.bin: npm run and npx put it first on PATH"
        if low[-1] == "pyvenv.cfg" and os.path.lexists(os.path.join(self.root, *parts)):
            return "a Python environment's pyvenv.cfg: its interpreter reads it at every start"
        if low[-2:] in ([".cargo", "config"], [".cargo", "config.toml"]):
            return "a cargo config: cargo reads it from every folder below (runners, wrappers, aliases)"
        if low[-1] in TOOL_RC_FILES:
            return f"{parts[-1]}: npm or yarn reads it at every run (node options, script shell, yarnPath)"
        return None

    def _environment(self, folder: Sequence[str]) -> bool:
        base = os.path.join(self.root, *folder)
        return os.path.isfile(os.path.join(base, "pyvenv.cfg")) or os.path.isdir(
            os.path.join(base, "conda-meta")
        )

    # -- the home ----------------------------------------------------------------------------

    def _home(self, parts: list[str]) -> str | None:
        if self.home is None:
            return None
        top = [p for p in self.home.split("/") if p]
        if parts[: len(top)] != top or len(parts) == len(top):
            return None
        inside = parts[len(top) :]
        if inside[0].startswith("."):
            return (
                "a dot-file or dot-folder at the top of the user's home (the workspace holds the home): "
                "shell start-up files, what they source, ~/.local/bin, tools' configuration"
            )
        sub = "/".join(inside)
        for extra in self.home_extras:
            if covers(extra, sub):
                return f"~/{extra} in the user's home: its shell start-up files put it on PATH or source it"
        return None


def _git_folder_path(inner: list[str], name: str) -> bool:
    """Whether `name` in `inner` (the path below a `.git`) sits in a git folder: `.git` itself,
    or a submodule's or linked worktree's folder under it, not in git's data."""
    at = inner.index(name)
    above = inner[:at]
    return not above or (above[0] in _GIT_NESTS and not _GIT_DATA & set(above))


def _hook(after: list[str], change: PathChange, *, root_why: str = "") -> str | None:
    """A path in a hooks folder: the folder itself and the samples git writes are not hooks,
    and removing one runs nothing."""
    if change.kind == "absent":
        return None
    if not after:
        if change.kind == "folder":
            return None
        return f"the hooks folder of a git repository{f' ({root_why})' if root_why else ''}"
    if len(after) == 1 and after[0].endswith(".sample") and change.kind == "file":
        return None
    where = f" ({root_why})" if root_why else ""
    return f"a git hook{where}: git runs it at the matching git command"


def _config(change: PathChange, *, inside_git: bool) -> str | None:
    """A git config judged by its content: keys that make git run a program need consent."""
    if change.kind in ("absent", "folder"):
        return None
    if change.kind != "file":
        return "a link or special file where git reads a config"
    data = change.bytes()
    if data is None or len(data) > git_config.MAX_CONFIG_BYTES:
        return "a git config whose content could not be judged" if inside_git else None
    text = data.decode("utf-8", "replace")
    if not inside_git and not git_config.looks_like_config(text):
        return None
    keys = git_config.run_keys(text)
    if not keys:
        bad = git_config.unreadable(text) if inside_git else []
        return f"a git config with lines git cannot read ({bad[0][:80]!r})" if bad else None
    shown = "; ".join(keys[:5]) + (f"; and {len(keys) - 5} more" if len(keys) > 5 else "")
    return f"a git config with keys that make git run a program ({shown})"


def _site_entry(rest: list[str], change: PathChange) -> str | None:
    why = "an interpreter start-up hook: Python runs the .pth files, sitecustomize and usercustomize of site-packages at every start"
    if not rest:
        return None if change.kind == "folder" else why
    head = rest[0]
    if len(rest) == 1 and head.endswith(".pth"):
        return why
    if head.split(".")[0] in STARTUP_MODULES:
        return why
    if head == "__pycache__" and len(rest) > 1 and rest[1].split(".")[0] in STARTUP_MODULES:
        return why
    return None


def _tooldeck(low: list[str]) -> str | None:
    if low[-1] == "tooldeck.yaml":
        return (
            "a tooldeck config: the next start of tooldeck in this folder reads it and starts what it names"
        )
    return None


def _is_bare(folder: str) -> bool:
    """Whether git would take `folder` for a repository (a bare one, or a git folder)."""
    return os.path.isfile(os.path.join(folder, "HEAD")) and os.path.isdir(os.path.join(folder, "objects"))


def _unknown(real: str) -> PathChange:
    try:
        mode = os.lstat(real).st_mode
    except OSError:
        return PathChange("file")
    if stat.S_ISDIR(mode):
        return PathChange("folder")
    if stat.S_ISLNK(mode):
        return PathChange("symlink")
    if not stat.S_ISREG(mode):
        return PathChange("other")
    return PathChange("file", source=real)


def _homes() -> list[str]:
    """The user's home as $HOME says and as the password database says."""
    found = [os.path.expanduser("~")]
    with contextlib.suppress(KeyError):
        found.append(pwd.getpwuid(os.getuid()).pw_dir)
    return list(dict.fromkeys(os.path.realpath(h) for h in found if h and h != "/"))


def _startup_extras(home: str, startup_files: Sequence[str]) -> tuple[str, ...]:
    """`bin` (Debian's and Ubuntu's default .profile puts ~/bin on PATH when it exists) and the
    paths in the home, other than dot-names, that its shell start-up files source or add to PATH."""
    out = ["bin"]
    for name in startup_files:
        text = git_config.read_config(os.path.join(home, name))
        named = _SOURCED.findall(text) + [p for found in _PATH_SET.findall(text) for p in found.split(":")]
        for raw in named:
            path = re.sub(r"^(\$HOME|\$\{HOME\}|~)(?=/|$)", home, raw)
            rel = relative_to(os.path.normpath(path), home) if path.startswith("/") else None
            if rel and not rel.startswith("."):
                out.append(rel)
    return tuple(dict.fromkeys(out))


__all__ = ["CLASSES", "ClassRules", "PathChange", "covers"]
