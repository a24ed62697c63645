"""The control plane: what the tools may change only with consent, and what they may not see.

Two sets, computed from the config (`ControlPlane.of`):

- **protected**: paths whose change would run code on the host or widen the agent's rights at
  the user's next start or next git command: the config file in use (and an `mcp_servers` JSON
  file), the workspace modules it imports (`use:`, `discover:`), `.git/hooks`, `.git/config`,
  and other agents' and editors' control files (`sandbox.protected`, defaults below), and what
  the host runs later by class wherever it lies (`control_classes.py`: repositories at any
  depth, interpreter start-up hooks, tooldeck's own config, the user's home). The file tools
  ask before changing one; the effects of shell and code calls touching one are held; inside
  the sandbox the listed ones are mounted read-only.
- **hidden**: the tooldeck home (grants, audit log, sessions, memory, spill, caches) and the
  audit log and sessions database wherever the config puts them. The file tools neither see nor
  list them; inside the sandbox they are masked.

Paths are compared after resolving symlinks, and existing files also by identity (st_dev,
st_ino), so a hard link or a differently spelled name of a protected file is protected too.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import glob
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tooldeck._core import git_config
from tooldeck._core.config import ConfigSection, CoreConfig
from tooldeck._core.control_classes import CLASSES, ClassRules, PathChange, covers
from tooldeck._utils.home import tooldeck_home
from tooldeck._utils.pathnames import is_within, relative_to
from tooldeck.safety.knowledge.startup_files import SHELL_STARTUP_FILES

# Control files of git, editors and other coding agents, and shell start-up files: changed by a
# tool, they run code at the user's next git command, editor start or login shell.
DEFAULT_PROTECTED = (
    ".git/hooks",
    ".git/config",
    # Where git finds the repository's config and hooks (a linked worktree's, or one a tool
    # wrote: `../evil` makes the next `git status` read ../evil/config), and per-worktree config.
    ".git/commondir",
    ".git/config.worktree",
    ".git/worktrees/*/commondir",
    ".git/worktrees/*/config.worktree",
    ".git/modules/*/hooks",
    ".git/modules/*/config",
    ".git/modules/*/commondir",
    ".gitconfig",
    ".config/git",
    ".ssh",
    ".vscode",
    ".idea",
    ".claude",
    ".cursor",
    ".codex",
    ".gemini",
    ".mcp.json",
    *SHELL_STARTUP_FILES,
)
# The defaults that are folders (a placeholder for a missing one is a folder, not a file).
FOLDER_NAMES = frozenset(
    {".git/hooks", ".config/git", ".ssh", ".vscode", ".idea", ".claude", ".cursor", ".codex", ".gemini"}
)
# What a placeholder holds where its mere existence would change a program: an empty
# `commondir` makes git refuse the repository; "." names the repository itself.
PLACEHOLDER_TEXTS = {".git/commondir": ".\n"}
# Defaults that are git configs: judged by content (a config without keys that run a program lands).
_CONTENT_JUDGED = frozenset(
    {".git/config", ".git/config.worktree", ".git/worktrees/*/config.worktree", ".git/modules/*/config"}
)
_GLOB = frozenset("*?[")
_LISTED = "listed in sandbox.protected"

Identity = tuple[int, int]


def protected_entries(entries: Iterable[str]) -> tuple[str, ...]:
    """The defaults with the config's `sandbox.protected` entries added ('!entry' drops one)."""
    out = list(DEFAULT_PROTECTED)
    for raw in entries:
        entry = raw.strip().replace("\\", "/")
        if entry.startswith("!"):
            drop = _clean(entry[1:])
            out = [p for p in out if p != drop]
        elif _clean(entry) not in out:
            out.append(_clean(entry))
    return tuple(out)


def exempted_entries(entries: Iterable[str]) -> tuple[str, ...]:
    """The '!entry' entries of `sandbox.protected`: taken out of the classes as well."""
    out = [_clean(raw.strip().replace("\\", "/")[1:]) for raw in entries if raw.strip().startswith("!")]
    return tuple(e for e in out if e)


def _clean(entry: str) -> str:
    return "/".join(p for p in entry.strip().split("/") if p not in ("", "."))


def hidden_paths(config: CoreConfig) -> tuple[Path, ...]:
    """The tooldeck home, the stores the config's sections keep elsewhere (`stores`: the audit
    log, the sessions database), and
    the cache of validated configs (a forged entry there would be the next start's config)."""
    from tooldeck._core.config_cache import cache_dir

    out = [tooldeck_home(config.home, base_dir=config.base_dir)]
    configs = cache_dir()
    if configs is not None:
        out.append(configs)
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if isinstance(value, ConfigSection):
            out += value.stores(config.resolve_path)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Protection:
    """One protected path pattern relative to the workspace, and why it is protected."""

    pattern: str
    why: str
    # Whether the sandbox may put an empty read-only placeholder where it does not exist yet.
    placeholder: bool = True
    # Whether that placeholder is a folder (else a file, empty unless `text` says).
    folder: bool = False
    text: str | None = None
    # A default git config: a change whose content holds no key that runs a program lands.
    by_content: bool = False


@dataclass(frozen=True, slots=True)
class ControlPlane:
    """The protected and hidden sets of one workspace (see the module docstring)."""

    root: str
    protections: tuple[Protection, ...] = ()
    hidden: tuple[str, ...] = ()
    # Protected paths outside the patterns (the config file, an mcp_servers JSON), resolved.
    files: tuple[tuple[str, str], ...] = ()
    protected_ids: frozenset[Identity] = frozenset()
    hidden_ids: frozenset[Identity] = frozenset()
    # The hidden paths that are folders (the home, the config cache), for placeholders.
    hidden_folders: frozenset[str] = frozenset()
    # What the host runs later, by class (control_classes.py).
    classes: ClassRules | None = None

    @classmethod
    def of(cls, config: CoreConfig, root: str | os.PathLike[str] | None = None) -> ControlPlane:
        real_root = os.path.realpath(root if root is not None else config.workspace)
        protections = [
            Protection(
                p,
                f"{_LISTED}: {p!r}",
                folder=p in FOLDER_NAMES,
                text=PLACEHOLDER_TEXTS.get(p),
                by_content=p in _CONTENT_JUDGED,
            )
            for p in protected_entries(config.sandbox.protected)
        ]
        protections += _module_protections(config, real_root)
        protections += _host_protections(real_root)
        # A pattern naming the workspace itself would protect everything: the workspace is the
        # one folder the tools may write.
        protections = [p for p in protections if p.pattern.strip("/")]
        files = (
            [(os.path.realpath(config.config_file), "the config file in use")] if config.config_file else []
        )
        if isinstance(config.mcp_servers, str):
            files.append(
                (os.path.realpath(config.resolve_path(config.mcp_servers)), "the mcp_servers file in use")
            )
        # A home holding the workspace is out of reach anyway: hiding it would hide the workspace.
        hidden = tuple(
            h
            for h in dict.fromkeys(os.path.realpath(p) for p in hidden_paths(config))
            if not is_within(real_root, h)
        )
        plane = cls(real_root, tuple(protections), hidden, tuple(files))
        existing = [*plane.sandbox_paths(existing_only=True), *(path for path, _ in files)]
        protected_ids = {i for p in existing if (i := _identity(p.rstrip("/")))}
        hidden_ids = {i for p in hidden if (i := _identity(p))}
        for folder in hidden:  # the files directly in the home: a hard link to one is the same file
            if os.path.isdir(folder):
                hidden_ids |= {i for e in _entries(folder) if (i := _identity(os.path.join(folder, e)))}
        from tooldeck._core.config_cache import cache_dir

        configs = cache_dir()
        folders = [tooldeck_home(config.home, base_dir=config.base_dir), *([configs] if configs else [])]
        return cls(
            real_root,
            plane.protections,
            hidden,
            plane.files,
            frozenset(protected_ids),
            frozenset(hidden_ids),
            frozenset(os.path.realpath(f) for f in folders),
            ClassRules.of(
                real_root, exempted_entries(config.sandbox.protected), startup_files=SHELL_STARTUP_FILES
            ),
        )

    # -- questions -------------------------------------------------------------------------

    def hides(self, real: str, ident: Identity | None = None) -> bool:
        """Whether the resolved path `real` (or the file with this identity) is hidden."""
        if ident is not None and ident in self.hidden_ids:
            return True
        return any(is_within(real, h) for h in self.hidden)

    def hides_relative(self, rel: str) -> bool:
        """`hides` for a path relative to the root that has no symlinks in it (a tree walk's)."""
        return self.hides(os.path.join(self.root, rel) if rel else self.root)

    def protects(self, real: str, change: PathChange | None = None) -> str | None:
        """Why changing the resolved path `real` (into `change`, when known) needs consent, or
        None. Its existing ancestors (and itself) are compared by identity as well, so a hard
        link or another spelling counts too."""
        for path, why in self.files:
            if real == path:
                return why
        rel = self.relative(real)
        if rel is not None:
            by_class = self.classes.judge(rel, change) if self.classes is not None else None
            for protection in self.protections:
                if covers(protection.pattern, rel) and not (protection.by_content and by_class is None):
                    return protection.why
            for protection in self.protections:
                if _holds(rel, protection.pattern) and not os.path.isdir(real):
                    # A file made where a protected path's folder belongs (a `.git` file naming
                    # a repository of the model's making) redirects what the folder would hold.
                    return f"the place of the folder holding {protection.pattern!r}"
            if by_class is not None:
                return by_class
        if self.protected_ids:
            for ident in _identities_down_to(real, self.root):
                if ident in self.protected_ids:
                    return "the same file as a protected path (a hard link or another name of it)"
        return None

    def judged_by_content(self, real: str) -> bool:
        """Whether what `real` may become depends on the bytes written (a git config, a `.git`
        pointer file): a writer then passes them to `protects`."""
        rel = self.relative(real)
        return bool(rel) and self.classes is not None and self.classes.by_content(rel or "")

    @property
    def root_path(self) -> Path:
        return Path(self.root)

    def relative(self, real: str) -> str | None:
        return relative_to(real, self.root)

    def sandbox_paths(self, *, existing_only: bool = False) -> tuple[str, ...]:
        """The protected paths inside the workspace, as the sandbox mounts them (a folder ends
        with '/'): glob patterns by what they match now, literal ones whether they exist or not
        (unless `existing_only`, or they may not have a placeholder)."""
        out: list[str] = []
        for protection in self.protections:
            target = os.path.join(self.root, protection.pattern)
            if _GLOB & set(protection.pattern):
                out += sorted(
                    glob.glob(glob.escape(self.root) + "/" + protection.pattern, include_hidden=True)
                )
            elif os.path.lexists(target):
                out.append(target)
            elif protection.placeholder and not existing_only:
                out.append(target + "/" if protection.folder else target)
        out += [path for path, _ in self.files if self.relative(path) is not None and os.path.lexists(path)]
        return tuple(
            p + "/" if not p.endswith("/") and os.path.isdir(p) and not os.path.islink(p) else p
            for p in dict.fromkeys(out)
        )

    def placeholder_texts(self) -> dict[str, str]:
        """The content of the placeholders that are not empty, by their path."""
        return {
            os.path.join(self.root, p.pattern): p.text
            for p in self.protections
            if p.text is not None and p.placeholder
        }

    def unborn_hidden(self) -> tuple[str, ...]:
        """Hidden paths in the workspace that do not exist yet (a folder ends with '/'): the
        sandbox puts read-only placeholders there, or a command could make the home itself
        (a grants key of its own, with grants signed by it) before tooldeck does."""
        return tuple(
            h + "/" if h in self.hidden_folders else h
            for h in self.hidden
            if self.relative(h) and not os.path.lexists(h)
        )

    def describe(self) -> list[str]:
        """The sets as lines for `explain`."""
        listed = [p.pattern for p in self.protections if p.why.startswith(_LISTED)]
        lines = [f"protected ({_LISTED}): {', '.join(listed)}"] if listed else []
        lines += [f"protected: {p.pattern} ({p.why})" for p in self.protections if p.pattern not in listed]
        lines += [f"protected: {path} ({why})" for path, why in self.files]
        lines += [f"protected by class, {name}: {why}" for name, why in CLASSES]
        if self.classes is not None and self.classes.home is not None:
            lines.append(
                f"the workspace holds the user's home ({self.classes.home or '.'}): its top-level dot-files "
                f"and dot-folders are protected, and {', '.join(self.classes.home_extras)}"
            )
        if self.classes is not None and self.classes.exempt:
            lines.append(
                f"taken out of the classes (sandbox.protected '!'): {', '.join(self.classes.exempt)}"
            )
        lines += [f"hidden from every tool: {h}" for h in self.hidden]
        return lines


def _holds(rel: str, pattern: str) -> bool:
    """Whether `rel` names a folder on the way to what `pattern` names."""
    ours, theirs = rel.lower().split("/"), pattern.lower().split("/")
    return len(ours) < len(theirs) and all(
        fnmatch.fnmatchcase(a, b) for a, b in zip(ours, theirs, strict=False)
    )


def _module_protections(config: CoreConfig, root: str) -> list[Protection]:
    """The files a config's `use:` (tools, middleware, prompts, resources) and `discover:` entries
    import from folders on the import path that lie in the workspace: the top-level package or
    module, shadowing siblings, caches, and the same for the workspace modules their sources
    import."""
    uses = [entry.use for entry in config.tools] + [entry.use for entry in config.middleware]
    uses += [entry.use for entry in config.prompts] + [entry.use for entry in config.resources]
    tops = {use.split(":", 1)[0].split(".")[0] for use in uses}
    tops |= {name.split(".")[0] for name in config.discover}
    folders = [config.base_dir] if config.base_dir else []
    folders += [p or os.getcwd() for p in sys.path]
    inside = [
        folder
        for folder in dict.fromkeys(os.path.realpath(f) for f in folders)
        if relative_to(folder, root) is not None
    ]
    tops = _imported_closure(tops, inside)
    out: list[Protection] = []
    for folder in inside:
        prefix = relative_to(folder, root) or ""
        for top in sorted(tops):
            if not (
                os.path.exists(os.path.join(folder, top))
                or glob.glob(glob.escape(folder) + f"/{glob.escape(top)}.*")
            ):
                continue  # not imported from here
            why = f"a module the config imports ({top})"
            patterns = [top, f"{top}.*", f"__pycache__/{top}.*"]
            if os.path.isfile(os.path.join(folder, f"{top}.py")) and sys.implementation.cache_tag:
                # Its bytecode cache, which Python would trust if the header matched the source.
                patterns.append(f"__pycache__/{top}.{sys.implementation.cache_tag}.pyc")
            for pattern in patterns:
                # An empty package folder next to a module is harmless, and so is an empty cache
                # file (Python finds it invalid and compiles the source); an empty module file
                # would shadow the module, so globs get no placeholders.
                placeholder = not (_GLOB & set(pattern))
                where = f"{prefix}/{pattern}" if prefix else pattern
                out.append(Protection(where, why, placeholder, folder=pattern == top))
    return out


_MAX_SOURCES = 500
_MAX_SOURCE_BYTES = 1 << 20


def _imported_closure(tops: set[str], folders: Sequence[str]) -> set[str]:
    """`tops` and the top-level names their sources in `folders` import, again and again: a
    module the config's module imports from the workspace runs at the next start as well."""
    seen: set[str] = set()
    queue, budget = sorted(tops), _MAX_SOURCES
    while queue and budget > 0:
        top = queue.pop()
        if top in seen:
            continue
        seen.add(top)
        for folder in folders:
            for source in _sources(folder, top, budget):
                budget -= 1
                queue += sorted(_imported_names(source) - seen)
    return seen | set(queue)


def _sources(folder: str, top: str, budget: int) -> list[str]:
    """The Python files of module or package `top` in `folder` (at most `budget`)."""
    found = [os.path.join(folder, f"{top}.py")] if os.path.isfile(os.path.join(folder, f"{top}.py")) else []
    package = os.path.join(folder, top)
    if os.path.isdir(package) and not os.path.islink(package):
        for where, dirs, files in os.walk(package):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            found += [os.path.join(where, f) for f in sorted(files) if f.endswith(".py")]
            if len(found) >= budget:
                break
    return found[:budget]


def _imported_names(source: str) -> set[str]:
    """The top-level names a Python file imports absolutely (none when it cannot be read)."""
    import ast

    try:
        with open(source, "rb") as fh:
            tree = ast.parse(fh.read(_MAX_SOURCE_BYTES))
    except (OSError, SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _host_protections(root: str) -> list[Protection]:
    """What runs on the host from inside this workspace beyond the defaults: the Python running
    tooldeck (a virtual environment in the workspace: its scripts, site-packages, .pth files),
    a `.git` file pointing at the repository, the hooks folder `core.hooksPath` names, and the
    files the repository's config includes."""
    out: list[Protection] = []
    for prefix in dict.fromkeys((os.path.realpath(sys.prefix), os.path.realpath(sys.exec_prefix))):
        if rel := relative_to(prefix, root):
            out.append(Protection(rel, "the Python environment running tooldeck"))
    out += _user_site_protections(root)
    git = os.path.join(root, ".git")
    if os.path.isfile(git) and not os.path.islink(git):
        out.append(Protection(".git", "git's pointer to the repository"))
    for value, why in git_config.named_paths(git_config.read_config(os.path.join(git, "config"))):
        # Relative paths: core.hooksPath from the working tree, include paths from the config's folder.
        hooks = why.startswith("the hooks")
        real = os.path.realpath(os.path.join(root if hooks else git, os.path.expanduser(value)))
        if rel := relative_to(real, root):
            out.append(Protection(rel, why, folder=hooks))
    return out


def _user_site_protections(root: str) -> list[Protection]:
    """The user's site-packages (`~/.local/lib/pythonX.Y/site-packages`, or under
    PYTHONUSERBASE) when it lies in the workspace (tooldeck run in `~`): every Python the user
    starts on the host runs the `.pth` files and `usercustomize` found there."""
    base = os.environ.get("PYTHONUSERBASE") or os.path.join(os.path.expanduser("~"), ".local")
    rel = relative_to(os.path.realpath(base), root)
    if not rel:
        return []
    why = "the user's site-packages (Python runs its .pth files and usercustomize at every start)"
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    return [
        Protection(f"{rel}/lib/{version}/site-packages", why, folder=True),
        Protection(f"{rel}/lib/python*/site-packages", why, placeholder=False),
    ]


def _identity(path: str) -> Identity | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _entries(folder: str) -> Sequence[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return ()


def _identities_down_to(real: str, root: str) -> list[Identity]:
    """The identities of `real` and its existing ancestors below `root`."""
    out: list[Identity] = []
    path = real
    while path != root and is_within(path, root):
        ident = _identity(path)
        if ident is not None:
            out.append(ident)
        path = os.path.dirname(path)
    return out


__all__ = [
    "DEFAULT_PROTECTED",
    "FOLDER_NAMES",
    "PLACEHOLDER_TEXTS",
    "ControlPlane",
    "PathChange",
    "Protection",
    "exempted_entries",
    "hidden_paths",
    "protected_entries",
]
