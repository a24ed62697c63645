"""System and account configuration tampering: writes to /etc (passwd, shadow, sudoers, sshd,
ld.so.preload, hosts...), shell start-up files and authorized_keys, crontab replacement,
account changes, and removal of core packages."""

from __future__ import annotations

import re

from tooldeck.safety.analysis.model import Field, Invocation
from tooldeck.safety.analysis.paths import is_rc_file, resolve
from tooldeck.safety.knowledge.rules.base import RuleSet, options, written_match

rules = RuleSet("config_tampering")

_WHY = {
    "/etc/passwd": "the account database",
    "/etc/shadow": "password hashes",
    "/etc/group": "group membership",
    "/etc/sudoers": "who may become root",
    "/etc/ld.so.preload": "a library loaded into every program",
    "/etc/hosts": "name resolution",
    "/etc/resolv.conf": "the DNS servers",
    "/etc/ssh/sshd_config": "SSH server access",
    "/etc/crontab": "scheduled jobs run as root",
    "/etc/pam.d": "authentication",
    "/etc/sudoers.d": "who may become root",
    "/etc/profile": "every login shell",
    "/etc/environment": "every process's environment",
    "/etc/fstab": "what mounts at boot",
    "/etc/profile.d": "every login shell",
    "/etc/bash.bashrc": "every interactive shell",
    "/etc/systemd/system": "services started at boot",
    "/etc/cron.d": "scheduled jobs run as root",
    "/var/spool/cron": "scheduled jobs",
}


def _why(path: str) -> str:
    for prefix, why in _WHY.items():
        if path == prefix or path.startswith(prefix + "/") or path.startswith(prefix + "."):
            return why
    return "system configuration"


_SYSTEM_TREES = (("etc",), ("boot",), ("usr",), ("lib",), ("bin",), ("sbin",))
_SPOOLS = (("var", "spool", "cron"), ("var", "spool", "anacron"))


@rules.writes(
    "write-system-config",
    "approve",
    "writes a file under /etc, /boot or /usr (accounts, sudoers, sshd, hosts...)",
)
def _system(inv: Invocation, target: Field) -> str | None:
    path = resolve(target.text, inv.cwd)
    if path.anchor == "/" and (path.parts[:1] in _SYSTEM_TREES or path.parts[:3] in _SPOOLS):
        return _why(path.shown())
    return None


def _startup_file(inv: Invocation, target: Field) -> str | None:
    home_relative = resolve(target.text, inv.cwd).shown().replace("~", "\ue000", 1)
    if is_rc_file(target.text) or is_rc_file(home_relative):
        return "it runs code later (at a login or a program's start)"
    return None


@rules.rule(
    "write-shell-startup",
    "approve",
    "writes start-up files (shell rc files, editor and git config, autostart units, Python .pth files) or "
    "authorized_keys: a backdoor that runs later",
)
def _startup(inv: Invocation) -> str | None:
    return written_match(inv, _ssh_config, _ssh_commands) or written_match(inv, _startup_file)


_SSH_COMMANDS = re.compile(r"(?im)^\s*(?:proxycommand|localcommand|knownhostscommand|match\s.*\bexec)\b")


def _ssh_commands(inv: Invocation, text: str | None) -> bool:
    """An ssh client config gaining a command ssh will run (ProxyCommand, LocalCommand, Match exec)."""
    return _SSH_COMMANDS.search((inv.data.text if inv.name == "tee" else text) or "") is not None


def _ssh_config(inv: Invocation, target: Field) -> str | None:
    shown = resolve(target.text, inv.cwd).shown()
    if shown in ("~/.ssh/config", "/etc/ssh/ssh_config") or shown.startswith("/etc/ssh/ssh_config.d/"):
        return "a command every ssh connection runs"
    return None


@rules.rule("crontab-replace", "approve", "removes or replaces the user's crontab")
def _crontab(inv: Invocation) -> str | None:
    if inv.name != "crontab":
        return None
    opts = options(inv, frozenset({"-u"}))
    if opts.has("-r", "--remove"):
        return "crontab -r deletes every scheduled job"
    if opts.operands and not opts.has("-l", "-e", "--list"):
        return f"crontab {opts.operands[0].shown()} replaces every scheduled job"
    if not opts.operands and inv.stdin is not None and not opts.has("-l", "-e", "--list"):
        return "crontab installs the jobs piped into it, replacing every scheduled job"
    return None


@rules.writes(
    "write-git-hook",
    "approve",
    "writes a git hook or the repository's config (code that runs at the next commit, checkout or fetch)",
)
def _git_hook(inv: Invocation, target: Field) -> str | None:
    parts = resolve(target.text, inv.cwd).parts
    for i, part in enumerate(parts[:-1]):
        if part == ".git" and (
            (parts[i + 1] == "hooks" and len(parts) > i + 2) or parts[i + 1 :] == ("config",)
        ):
            return "git runs or reads it on later commands"
    return None


# Editor files whose tasks run on their own when the folder is opened (VS Code's runOn).
_AUTORUN_TASKS = re.compile(
    r"(?:^|/)\.vscode/(tasks|settings)\.json|(?:^|/)\.devcontainer/devcontainer\.json"
)
_AUTORUN_WORDS = re.compile(
    r"folderOpen|allowAutomaticTasks|postCreateCommand|postStartCommand|initializeCommand"
)


def _autorun_words(inv: Invocation, text: str | None) -> bool:
    return text is None or _AUTORUN_WORDS.search(text) is not None


@rules.writes(
    "write-autorun-task",
    "approve",
    "writes an editor task that runs on its own when the folder is opened (.vscode/tasks.json runOn folderOpen)",
    content=_autorun_words,
)
def _autorun_task(inv: Invocation, target: Field) -> str | None:
    return "a task the editor runs when the folder opens" if _AUTORUN_TASKS.search(target.text) else None


# The official registries; a registry or package index set to anything else serves every later
# install from there.
_OFFICIAL_REGISTRY = re.compile(
    r"https://(registry\.npmjs\.org|registry\.yarnpkg\.com|registry\.npmmirror\.com|pypi\.org/simple"
    r"|pypi\.python\.org/simple|files\.pythonhosted\.org|rubygems\.org|index\.crates\.io|crates\.io)/?$"
)
_REGISTRY_KEYS = re.compile(
    r"(?:@[\w.-]+:)?registry|npmRegistryServer|(?:global|install|\w+)\.(?:index-url|extra-index-url|trusted-host)"
    r"|index-url|extra-index-url|trusted-host"
)


def _registry_setting(inv: Invocation) -> tuple[str, str] | None:
    """(key, value) that `npm/pnpm/yarn config set` or `pip config set` would set."""
    words = [w for w in inv.arg_texts() if not w.startswith("--") or "=" in w]
    if inv.name in ("npm", "pnpm", "yarn") and words[:2] in (["config", "set"], ["set", "registry"]):
        rest = words[2:] if words[0] == "config" else words[1:]
    elif inv.name in ("pip", "pip3") and words[:2] == ["config", "set"]:
        rest = words[2:]
    elif inv.name == "gem" and words[:1] == ["sources"] and "--add" in inv.arg_texts():
        return ("sources", words[-1] if len(words) > 1 else "")
    else:
        return None
    if len(rest) == 1 and "=" in rest[0]:
        rest = rest[0].split("=", 1)
    if len(rest) < 2:
        return None
    return rest[0], rest[1]


@rules.rule(
    "package-registry",
    "approve",
    "points a package manager at an unofficial registry or index (npm config set registry, pip extra-index-url)",
)
def _registry(inv: Invocation) -> str | None:
    setting = _registry_setting(inv)
    if setting is None:
        return None
    key, value = setting
    if key != "sources" and not _REGISTRY_KEYS.fullmatch(key):
        return None
    if key.endswith("trusted-host") or not _OFFICIAL_REGISTRY.match(value.strip("'\"")):
        return f"{inv.name} sets {key} to {value[:80]}: every later install comes from there"
    return None


_AUTOSTART_VERBS = frozenset({"enable", "link", "reenable", "add-wants", "add-requires", "preset"})


@rules.rule(
    "install-autostart",
    "approve",
    "makes a program start on its own: systemctl --user enable/link, a unit file linked in, launchctl load, lingering",
)
def _autostart(inv: Invocation) -> str | None:
    words = inv.arg_texts()
    positional = [w for w in words if not w.startswith("-")]
    if inv.name == "systemctl" and positional[:1] and positional[0] in _AUTOSTART_VERBS:
        units = positional[1:]
        if "--user" in words or positional[0] == "link" or any("/" in u for u in units):
            return f"systemctl {' '.join(words)} makes {' '.join(units)[:60]} start on its own"
    if (
        inv.name == "launchctl"
        and positional[:1]
        and positional[0] in ("load", "bootstrap", "submit", "enable")
    ):
        return f"launchctl {positional[0]} installs an agent that starts on its own"
    if inv.name == "loginctl" and positional[:1] == ["enable-linger"]:
        return "loginctl enable-linger keeps the user's services running after logout"
    return None


_PRIVILEGED_GROUPS = frozenset(
    ["sudo", "wheel", "admin", "root", "docker", "adm", "lxd", "libvirt", "disk", "shadow"]
)


@rules.rule(
    "account-tamper",
    "approve",
    "changes accounts: empty or new root passwords, uid 0, admin groups, deletion",
)
def _accounts(inv: Invocation) -> str | None:
    words = inv.arg_texts()
    if inv.name == "passwd" and (set(words) & {"-d", "--delete", "-l", "-u", "root"}):
        return f"passwd {' '.join(words)} changes how an account logs in"
    if (
        inv.name in ("chpasswd", "userdel", "deluser", "vipw", "visudo")
        and "--help" not in words
        and (inv.name != "visudo" or "-c" not in words)
    ):
        return f"{inv.name} changes accounts or sudo rights"
    if inv.name in ("usermod", "useradd", "adduser", "gpasswd"):
        groups = {g for w in words for g in w.split(",")}
        if groups & _PRIVILEGED_GROUPS or ("-u" in words and "0" in words) or "-o" in words:
            return f"{inv.name} {' '.join(words)} grants administrative rights"
    return None


_CORE_PACKAGES = re.compile(
    r"coreutils|libc6|glibc|bash|dash|sudo|openssh-server|openssh|ssh|systemd|systemd-sysv|apt|dpkg|rpm|yum|dnf"
    r"|util-linux|login|passwd|base-files|base-passwd|libpam.*|grub.*|linux-image.*|kernel.*|e2fsprogs|init"
    r"|tar|gzip|findutils|sed|grep|mount|procps|iproute2|ca-certificates|python3|perl-base|bubblewrap"
)
_REMOVE_WORDS = {
    "apt": ("remove", "purge", "autoremove"),
    "apt-get": ("remove", "purge", "autoremove"),
    "aptitude": ("remove", "purge"),
    "yum": ("remove", "erase"),
    "dnf": ("remove", "erase"),
    "zypper": ("remove", "rm"),
    "apk": ("del",),
}


@rules.rule(
    "remove-core-package",
    "approve",
    "removes a core system package, or removes packages with force flags",
    previewable=True,
)
def _packages(inv: Invocation) -> str | None:
    words = inv.arg_texts()
    operands = [w for w in words if not w.startswith("-")]
    forced = any(w.startswith(("--force", "--nodeps")) for w in words)
    removing = False
    if inv.name in _REMOVE_WORDS:
        removing = bool(operands) and operands[0] in _REMOVE_WORDS[inv.name]
        operands = operands[1:]
    elif inv.name == "dpkg":
        removing = any(w in ("-r", "-P", "--remove", "--purge") for w in words)
    elif inv.name == "rpm":
        removing = any(w in ("-e", "--erase") for w in words)
    elif inv.name == "pacman":
        removing = any(re.fullmatch(r"-R\w*", w) for w in words)
    if not removing:
        return None
    core = [p for p in operands if _CORE_PACKAGES.fullmatch(p.split(":", 1)[0])]
    if core or forced:
        return f"{inv.name} removes {', '.join(core or operands)[:80]}{' with force' if forced else ''}"
    return None
