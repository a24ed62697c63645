"""What a path names: the root filesystem, a system tree, the home directory, credentials, logs...

Paths are resolved lexically against the working directory the walker tracked (`cd / && rm -rf *`
deletes `/*`). Relative paths with no known working directory are the workspace's. A `**`
component stands for "anything below" (what `find ROOT` lists).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from typing import Literal

from tooldeck._utils.pathnames import is_within
from tooldeck.safety.analysis.model import HOME_MARK, WORKSPACE_MARK
from tooldeck.safety.knowledge.startup_files import SHELL_STARTUP_FILES

PathKind = Literal[
    "root",  # / itself
    "root_contents",  # /*, everything below /
    "system",  # /etc, /usr, /var/lib/docker, any top-level directory...
    "all_homes",  # /home, /home/*
    "home",  # the home directory itself
    "home_contents",  # ~/*, everything below ~
    "home_item",  # a first-level entry of the home directory (~/Documents, ~/.config)
    "credentials",  # ~/.ssh, ~/.aws, ~/.gnupg, ...
    "history",  # shell and REPL history files
    "log",  # /var/log and below
    "cache",  # ~/.cache, ~/.npm, ... (safe to delete)
    "scratch",  # /tmp, /var/tmp, /dev/shm
    "device",  # a block device
    "pseudo",  # /dev/null, /dev/stdout, /proc/...
    "git_dir",  # a .git directory
    "parent",  # .., ../*: outside the workspace
    "workspace_all",  # ., *, ./*: the whole workspace
    "local",  # anything else inside the workspace or deep below a user directory
    "unknown",  # depends on a value that cannot be known
]

SYSTEM_TOP = frozenset(
    [
        "bin",
        "boot",
        "dev",
        "etc",
        "lib",
        "lib32",
        "lib64",
        "libx32",
        "opt",
        "proc",
        "run",
        "sbin",
        "srv",
        "sys",
        "usr",
        "var",
        "snap",
        "media",
        "mnt",
    ]
)
CREDENTIAL_DIRS = frozenset(
    [
        ".ssh",
        ".gnupg",
        ".aws",
        ".kube",
        ".docker",
        ".azure",
        ".password-store",
        ".netrc",
        ".git-credentials",
        ".pgpass",
        ".vault-token",
        ".npmrc",
        ".pypirc",
        ".terraform.d",
        ".gcloud",
    ]
)
CREDENTIAL_SUBPATHS = (
    ".config/gcloud",
    ".config/gh",
    ".local/share/keyrings",
    ".config/rclone",
    # browser profiles: saved passwords, cookies and the keys that decrypt them
    ".mozilla/firefox",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
)
NOT_SECRET_IN_SSH = re.compile(r"(.*\.pub|known_hosts.*|config|authorized_keys2?|environment)$")
HISTORY_FILES = frozenset(
    [
        ".bash_history",
        ".zsh_history",
        ".history",
        ".sh_history",
        ".python_history",
        ".mysql_history",
        ".psql_history",
        ".node_repl_history",
        ".lesshst",
        ".sqlite_history",
        ".rediscli_history",
        ".zhistory",
    ]
)
CACHE_DIRS = frozenset(
    [
        ".cache",
        ".npm",
        ".yarn",
        ".pnpm-store",
        ".gradle",
        ".m2",
        ".ivy2",
        ".sbt",
        ".nuget",
        ".cargo",
        ".rustup",
        ".pub-cache",
        ".bundle",
        ".gem",
        ".conda",
        ".pyenv",
        ".nvm",
        ".deno",
        ".bun",
        ".pip",
        ".android",
        ".composer",
        ".cpan",
        ".dotnet",
        ".vscode-server",
    ]
)
# Files in the home directory that run code (or grant access) at a later login, shell, editor or
# git command.
RC_FILES = frozenset(
    [
        *SHELL_STARTUP_FILES,
        ".bash_aliases",
        ".zlogout",
        ".login",
        ".logout",
        ".cshrc",
        ".tcshrc",
        ".kshrc",
        ".mkshrc",
        ".xinitrc",
        ".xprofile",
        ".xsession",
        ".xsessionrc",
        ".pam_environment",
        ".inputrc",
        ".gitconfig",
        ".vimrc",
        ".gvimrc",
        ".exrc",
        ".nvimrc",
        ".tmux.conf",
    ]
)
RC_SUBPATHS = (
    ".config/fish/config.fish",
    ".config/fish/conf.d",
    ".config/fish/functions",
    ".ssh/authorized_keys",
    ".ssh/authorized_keys2",
    ".ssh/rc",
    ".config/autostart",
    ".config/systemd/user",
    ".local/share/systemd/user",
    ".config/environment.d",
    ".config/git/config",
    ".config/nvim/init.vim",
    ".config/nvim/init.lua",
    ".config/plasma-workspace/env",
    ".config/upstart",
    "Library/LaunchAgents",
)
# Python runs `.pth` files and these modules of a site-packages folder at every start.
_PYTHON_STARTUP = re.compile(r"(?:^|/)(?:site|dist)-packages/(?:[^/]+\.pth|(?:site|user)customize\.py)$")
BLOCK_DEVICE = re.compile(
    r"/dev/(sd[a-z]+\d*|hd[a-z]+\d*|vd[a-z]+\d*|xvd[a-z]+\d*|nvme\d+n\d+(p\d+)?|mmcblk\d+(p\d+)?"
    r"|md\d+(p\d+)?|dm-\d+|loop\d+(p\d+)?|sr\d+|nbd\d+(p\d+)?|zd\d+|rbd\d+|disk/.+|mapper/.+|root"
    r"|(?!(fd|pts|shm|tcp|udp|net|input|snd|dri|bus|char|cpu|hugepages|mqueue|usb)/)[A-Za-z0-9_-]+/[A-Za-z0-9_.+-]+)"
)
SECRET_FILE = re.compile(
    r"(^|/)(id_(rsa|dsa|ecdsa|ed25519)(_sk)?|\.env(\.(?!example$|sample$|template$|dist$|defaults$)[\w.-]+)?"
    r"|credentials(\.json)?|service[-_]account[\w.-]*\.json|[\w.-]+\.(pem|key|p12|pfx|keystore|jks)"
    r"|\.netrc|\.git-credentials|\.pgpass|\.vault-token|\.npmrc|\.pypirc|secrets?\.(ya?ml|json|toml))$"
)
# A browser profile's saved sessions and passwords (Chrome, Chromium, Brave, Edge, Firefox).
BROWSER_SECRET = re.compile(
    r"(^|/)(\.config/(google-chrome|chromium|BraveSoftware/[^/]+|microsoft-edge)|\.mozilla/firefox"
    r"|Library/Application Support/(Google/Chrome|Firefox))/.*/?"
    r"(Cookies|Login Data|Web Data|cookies\.sqlite|logins\.json|key[34]\.db|Local State)$"
)


@dataclass(frozen=True, slots=True)
class Resolved:
    """A path split into its anchor (`/`, `~`, `.` or `?` when unknown) and normalised parts."""

    anchor: str
    parts: tuple[str, ...]

    def shown(self) -> str:
        base = {"/": "", "~": "~", ".": ".", "?": "?"}[self.anchor]
        joined = "/".join(self.parts)
        if self.anchor == "/":
            return "/" + joined
        return f"{base}/{joined}" if joined else base


def resolve(text: str, cwd: str | None = None) -> Resolved:
    """Anchor and normalise `text`; relative paths are joined to `cwd` when it is known."""
    if not text or text.startswith(("$", "`")) or "\x00" in text:
        return Resolved("?", ())
    if text.startswith(HOME_MARK):
        anchor, rest = "~", text[len(HOME_MARK) :]
    elif text.startswith(WORKSPACE_MARK):
        anchor, rest = ".", text[len(WORKSPACE_MARK) :]
    elif text.startswith("/"):
        anchor, rest = "/", text
    elif cwd is not None:
        base = resolve(cwd)
        return _normalise(base.anchor, [*base.parts, *text.split("/")])
    else:
        anchor, rest = ".", text
    return _normalise(anchor, rest.split("/"))


def _normalise(anchor: str, raw_parts: list[str]) -> Resolved:
    parts: list[str] = []
    for part in raw_parts:
        if part in ("", "."):
            continue
        if part == ".." and parts and parts[-1] != "..":
            parts.pop()
        elif part == ".." and anchor == "/":
            continue
        elif part == ".." and anchor == "~":
            anchor, parts = "/", ["home"]
        else:
            parts.append(part)
    if anchor == "/" and len(parts) >= 2 and parts[0] == "home" and not _is_glob(parts[1]):
        return Resolved("~", tuple(parts[2:]))
    if anchor == "/" and parts[:1] == ["root"]:
        return Resolved("~", tuple(parts[1:]))
    return Resolved(anchor, tuple(parts))


def _is_glob(part: str) -> bool:
    return any(c in part for c in "*?[")


def _everything(part: str) -> bool:
    """A component that matches every entry: `*`, `.*`, `**`, `{*,.*}`, `[!.]*`..."""
    return part in ("*", ".*", "**", "*.*", ".[!.]*", "..?*") or bool(re.fullmatch(r"[*?.{},\[\]!^]+", part))


def classify(text: str, cwd: str | None = None) -> PathKind:
    """What `text` names, as far as a static look at it can tell."""
    path = resolve(text, cwd)
    if path.anchor == "?":
        return "unknown"
    if any(p == ".git" for p in path.parts) and path.parts[-1] in (".git", "**", "*"):
        return "git_dir" if path.parts[-1] == ".git" else "local"
    if path.anchor == "/":
        return _classify_absolute(path.parts)
    if path.anchor == "~":
        return _classify_home(path.parts)
    return _classify_relative(path.parts)


def _classify_absolute(parts: tuple[str, ...]) -> PathKind:
    if not parts:
        return "root"
    top = parts[0]
    if _everything(top) or (len(parts) == 1 and _is_glob(top)):
        return "root_contents"
    if top == "home":
        return "all_homes"
    if top == "tmp" or parts[:2] in (("var", "tmp"), ("dev", "shm")):
        return "scratch"
    if parts[:2] == ("var", "log"):
        return "log"
    if top == "dev":
        if BLOCK_DEVICE.fullmatch("/" + "/".join(parts)) or _device_pattern(parts[1:]):
            return "device"
        return "pseudo"
    if top in ("proc", "sys") and len(parts) > 1:
        return "pseudo"
    if top in SYSTEM_TOP or len(parts) == 1:
        return "system"
    return "local"


# Block device names a pattern under /dev is tried against (`/dev/sd*`, `/dev/nvme?n1`, the `**`
# of `find /dev -name 'sd[a-z]'`).
_SAMPLE_DEVICES = (
    "sda",
    "sda1",
    "hda",
    "vda",
    "vda1",
    "xvda",
    "xvda1",
    "nvme0n1",
    "nvme0n1p1",
    "mmcblk0",
    "mmcblk0p1",
    "md0",
    "dm-0",
    "loop0",
    "nbd0",
    "disk/by-id/ata-x",
    "mapper/root",
)


def _device_pattern(parts: tuple[str, ...]) -> bool:
    """Does a glob below /dev match block devices? `**` stands for any depth."""
    if not parts or not any(_is_glob(p) for p in parts):
        return False
    fixed = [p for p in parts if p != "**"]
    if not fixed:
        return True
    pattern = "/".join(fixed)
    for sample in _SAMPLE_DEVICES:
        if fnmatch.fnmatchcase(sample, pattern):
            return True
        if "**" in parts and fnmatch.fnmatchcase(sample.rsplit("/", 1)[-1], fixed[-1]):
            return True
    return False


_NOT_DISKS = re.compile(r"/dev/(?:fd|pts|shm|tcp|udp|std(?:in|out|err)|null|zero|u?random|tty\w*|console)\b")


def computed_device(text: str) -> bool:
    """A name under /dev that is computed at run time (`/dev/$disk`, `/dev/{}` of `xargs -I{}`):
    it may well be a disk."""
    return text.startswith("/dev/") and ("$" in text or "`" in text) and not _NOT_DISKS.match(text)


def _classify_home(parts: tuple[str, ...]) -> PathKind:
    if not parts:
        return "home"
    first = parts[0]
    sub = "/".join(parts)
    if _everything(first) or (len(parts) == 1 and first in ("**",)):
        return "home_contents"
    if first in HISTORY_FILES or sub == ".local/share/fish/fish_history":
        return "history"
    if first in CREDENTIAL_DIRS or any(is_within(sub, c) for c in CREDENTIAL_SUBPATHS):
        return "credentials"
    if first in CACHE_DIRS or sub.startswith(".local/share/Trash"):
        return "cache"
    if len(parts) == 1 or (len(parts) == 2 and _everything(parts[1])):
        return "home_item"
    return "local"


def _classify_relative(parts: tuple[str, ...]) -> PathKind:
    if not parts or (len(parts) == 1 and _everything(parts[0])):
        return "workspace_all"
    if parts[0] == "..":
        # `..`, `../*`, `../..`, `../../*`: a folder above the workspace, or all it holds.
        rest = [p for p in parts if p != ".."]
        if not rest or (len(rest) == 1 and _everything(rest[0])):
            return "parent"
    return "local"


def is_secret(text: str, cwd: str | None = None) -> bool:
    """Does reading this path yield a credential (a private key, cloud credentials, a .env...)?"""
    path = resolve(text, cwd)
    if path.anchor == "?":
        return False
    if path.anchor == "~" and path.parts:
        first = path.parts[0]
        if first == ".ssh":
            return len(path.parts) == 1 or not NOT_SECRET_IN_SSH.fullmatch(path.parts[-1])
        if first in CREDENTIAL_DIRS and first != ".ssh":
            return True
        sub = "/".join(path.parts)
        if any(is_within(sub, c) for c in CREDENTIAL_SUBPATHS):
            return True
        # Shell and client history: every password and token ever typed on a command line.
        if (first in HISTORY_FILES and len(path.parts) == 1) or sub == ".local/share/fish/fish_history":
            return True
    joined = path.shown()
    if joined in ("/etc/shadow", "/etc/gshadow") or re.fullmatch(r"/etc/ssh/ssh_host_\w+_key", joined):
        return True
    if re.fullmatch(r"/proc/[^/]+/environ", joined):
        return True
    return bool(SECRET_FILE.search(joined) or BROWSER_SECRET.search(joined))


def is_rc_file(text: str) -> bool:
    """Shell start-up files and other places where a write plants a backdoor for later."""
    if _PYTHON_STARTUP.search(text) or (text.startswith(("$", "`")) and text.endswith(".pth")):
        return True
    path = resolve(text)
    if path.anchor != "~" or not path.parts:
        return False
    sub = "/".join(path.parts)
    return path.parts[0] in RC_FILES or any(is_within(sub, c) for c in RC_SUBPATHS)


def under(text: str, prefix: str) -> bool:
    shown = resolve(text).shown()
    return is_within(shown, prefix)
