"""Privilege and system control: root shells, power state, stopping services, killing everything,
firewalls and security modules off, the network down, containers with the host's root."""

from __future__ import annotations

import re

from tooldeck.safety.analysis.model import Field, Invocation
from tooldeck.safety.analysis.paths import classify, resolve
from tooldeck.safety.analysis.programs import SHELLS
from tooldeck.safety.knowledge.rules.base import RuleSet, options, written_match
from tooldeck.safety.knowledge.rules.remote import source_of
from tooldeck.safety.knowledge.table import command_words, operands_of, programs
from tooldeck.safety.knowledge.verbs import verb_match

rules = RuleSet("privilege_system")

# Container engines (docker, podman, nerdctl, finch...): the table's one list.
ENGINES = programs().in_class("container-engine")

_LOGGING_UNITS = re.compile(r"(auditd|rsyslog|syslog-ng|syslog|systemd-journald|journald)(\.service)?")


@rules.rule("root-shell", "approve", "opens an interactive root shell (sudo -i, sudo su, su -, sudo bash)")
def _root_shell(inv: Invocation) -> str | None:
    if inv.name in ("sudo", "doas") and any(a.text in ("-i", "-s", "--login", "--shell") for a in inv.args):
        return f"{inv.name} {' '.join(inv.arg_texts())} opens a root shell"
    words = inv.arg_texts()
    interactive = "-c" not in words and words[:1] != ["--help"]
    if interactive and (inv.name == "su" or (inv.name == "machinectl" and words[:1] == ["shell"])):
        return f"{inv.name} {' '.join(words)}".strip() + " opens a shell as another user"
    if inv.privileged and inv.name in SHELLS and source_of(inv) is None and inv.stdin is None:
        return f"{inv.name} runs as root, interactively"
    return None


rules.declare("power-state", "approve", "shuts down, reboots or halts the machine")


def service_actions(inv: Invocation) -> list[tuple[str, str]]:
    """(action, unit) pairs of systemctl/service/init scripts that stop, disable or mask a system service."""
    words = inv.arg_texts()
    if inv.name == "systemctl" and "--user" not in words:
        operands = operands_of(inv)
        if operands and operands[0] in ("stop", "disable", "mask", "kill"):
            return [(operands[0], unit) for unit in operands[1:]]
        return []
    if inv.name in ("service", "rc-service") and len(words) >= 2 and words[1] == "stop":
        return [("stop", words[0])]
    if inv.argv and inv.argv[0].text.startswith("/etc/init.d/") and words[:1] == ["stop"]:
        return [("stop", inv.name)]
    operands = [w for w in words if not w.startswith("-")]
    if inv.name == "update-rc.d" and ("disable" in words or "remove" in words):
        return [("disable", operands[0] if operands else "")]
    if inv.name == "chkconfig" and operands[-1:] == ["off"] and len(operands) >= 2:
        return [("disable", operands[0])]
    if inv.name == "rc-update" and operands[:1] in (["del"], ["delete"]) and len(operands) >= 2:
        return [("disable", operands[1])]
    if inv.name == "sv" and operands[:1] in (["down"], ["stop"], ["d"], ["force-stop"]):
        return [("stop", unit) for unit in operands[1:]]
    return []


@rules.rule("stop-service", "approve", "stops, disables or masks a system service (an outage)")
def _service(inv: Invocation) -> str | None:
    for action, unit in service_actions(inv):
        if not _LOGGING_UNITS.fullmatch(unit):
            return f"{action} of the system service {unit}"
    return None


_CRITICAL_PROCESSES = frozenset(
    [
        "sshd",
        "systemd",
        "init",
        "dockerd",
        "containerd",
        "postgres",
        "postmaster",
        "mysqld",
        "mariadbd",
        "mongod",
        "redis-server",
        "nginx",
        "apache2",
        "httpd",
        "kubelet",
        "Xorg",
        "gdm",
        "NetworkManager",
        "systemd-journald",
        "auditd",
    ]
)

CRITICAL_PROCESSES = _CRITICAL_PROCESSES


def _kill_targets(words: list[str]) -> list[str]:
    """The process ids of a kill command line, after its signal options."""
    i = 0
    if words[:1] and words[0] in ("-s", "-n"):
        i = 2
    elif words[:1] and re.fullmatch(r"-(\d+|[A-Z][A-Z0-9+-]*)", words[0]):
        i = 1
    if words[i : i + 1] == ["--"]:
        i += 1
    return words[i:]


@rules.rule(
    "kill-everything", "approve", "kills every process, every process of a user, or a critical daemon"
)
def _kill(inv: Invocation) -> str | None:
    words = inv.arg_texts()
    if inv.name == "kill" and "-1" in _kill_targets(words):
        return "kill -1 signals every process the user can reach"
    if inv.name == "kill" and "1" in _kill_targets(words):
        return "kill 1 signals init, which takes the whole system down"
    if inv.name == "killall5":
        return "killall5 signals every process"
    if inv.name in ("pkill", "killall"):
        if options(inv, frozenset({"-u", "-U", "-s", "--signal"})).value("-u", "-U", "--user") is not None:
            return f"{inv.name} -u kills every process of a user"
        targets = [w for w in words if not w.startswith("-")]
        if any(t in _CRITICAL_PROCESSES for t in targets) or (inv.privileged and inv.name == "killall"):
            return f"{inv.name} kills {' '.join(targets)}"
        if any(t in (".", ".*", "") for t in targets):
            return f"{inv.name} matches every process"
    return None


rules.declare("security-off", "approve", "flushes the firewall or turns SELinux/AppArmor off")
rules.declare("network-down", "approve", "takes network interfaces or routes down")


@rules.rule(
    "container-host-root", "approve", "starts a container with the host's root filesystem or full privileges"
)
def _container(inv: Invocation) -> str | None:
    # --privileged, --pid=host, --cap-add, --device are verbs (verbs.toml); here, the host paths
    # a container started by any engine of the class mounts (`-v /:/host`, `--mount source=/`).
    if verb_match("container-start", inv) is None:
        return None
    for host in _mount_sources(command_words(inv)):
        if classify(host) in _HOST_CLASSES or host.endswith("docker.sock"):
            return f"{inv.name} mounts the host's {host} into a container"
    return None


# Host paths whose mount gives a container the host: its root, system, homes and credentials.
_HOST_CLASSES = frozenset({"root", "system", "home", "all_homes", "credentials"})
_MOUNT_SOURCE = re.compile(r"(?:^|,)(?:source|src)=([^,]+)")


def _mount_sources(words: list[str]) -> list[str]:
    """The host side of every bind mount: `-v HOST:CTR`, `--volume=HOST:CTR`, `--mount
    type=bind,source=HOST,...` (a named volume has no `/` and is no host path)."""
    out: list[str] = []
    for i, word in enumerate(words):
        option, eq, value = word.partition("=")
        if option in ("-v", "--volume", "--mount") and not eq:
            value = words[i + 1] if i + 1 < len(words) else ""
        elif option not in ("-v", "--volume", "--mount"):
            continue
        if option == "--mount":
            match = _MOUNT_SOURCE.search(value)
            out += [match.group(1)] if match else []
        elif ":" in value:
            out.append(value.split(":", 1)[0])
    return out


@rules.rule(
    "kernel-tamper",
    "approve",
    "changes kernel parameters or modules (sysctl -w, writes under /proc/sys, rmmod)",
)
def _kernel(inv: Invocation) -> str | None:
    # sysctl -w, rmmod, modprobe -r... are verbs (verbs.toml); here, what a verb cannot say.
    words = inv.arg_texts()
    if inv.name == "sysctl" and any("=" in w and not w.startswith("-") for w in words):
        return f"sysctl {' '.join(words)} changes kernel parameters"
    return written_match(inv, _kernel_file)


def _kernel_file(inv: Invocation, target: Field) -> str | None:
    """Kernel parameters and triggers (/proc/sys, /sys, /proc/sysrq-trigger), however written."""
    path = resolve(target.text, inv.cwd)
    parts = path.parts if path.anchor == "/" else ()
    if parts[:2] == ("proc", "sys") or parts[:1] == ("sys",) or parts == ("proc", "sysrq-trigger"):
        return "it changes the running kernel"
    return None
