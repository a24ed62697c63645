"""System state changed through less common tools: radios blocked, system filesystems unmounted or
made read-only, boot targets and sessions changed, system services unloaded on macOS, critical
daemons killed by a computed pid, swap turned off, power and sessions driven over D-Bus, routes and
leases dropped, inbound traffic refused, and the system clock set."""

from __future__ import annotations

import re

from tooldeck.safety.analysis.argv import word_operands
from tooldeck.safety.analysis.model import Invocation
from tooldeck.safety.analysis.paths import resolve
from tooldeck.safety.knowledge.rules.base import RuleSet
from tooldeck.safety.knowledge.rules.system import CRITICAL_PROCESSES, ENGINES

rules = RuleSet("privilege_system")

# Mount points the running system cannot lose (removable media live under /mnt and /media).
_SYSTEM_MOUNTS = frozenset(
    {
        "/",
        "/home",
        "/usr",
        "/var",
        "/boot",
        "/boot/efi",
        "/efi",
        "/etc",
        "/opt",
        "/srv",
        "/proc",
        "/sys",
        "/dev",
        "/run",
        "/var/lib",
        "/var/log",
        "/nix",
        "/root",
        "/tmp",
        "/bin",
        "/sbin",
        "/lib",
        "/lib64",
    }
)


def _mount_point(text: str, cwd: str | None) -> str:
    path = resolve(text, cwd)
    if path.anchor == "~":  # /home/USER and /root resolve to the home directory
        return "/home" if not path.parts else "~/" + "/".join(path.parts)
    return path.shown() if path.anchor == "/" else text


def _system_mount(text: str, cwd: str | None) -> bool:
    return _mount_point(text, cwd) in _SYSTEM_MOUNTS or text.rstrip("/") in ("/home", "/root")


@rules.rule("unmount-system", "approve", "unmounts, remounts read-only or mounts over a system filesystem")
def _unmount(inv: Invocation) -> str | None:
    words = inv.arg_texts()
    values = frozenset({"-t", "--types", "-O", "--test-opts", "-o", "--options", "-N", "--namespace"})
    targets = word_operands(words, values)
    if inv.name == "umount":
        if any(w in ("-a", "--all") or re.fullmatch(r"-[a-zA-Z]*a[a-zA-Z]*", w) for w in words):
            return "umount -a unmounts every filesystem"
        for target in targets:
            if _system_mount(target, inv.cwd):
                return f"umount {target} takes a filesystem the system runs from away"
    if inv.name == "mount":
        opts = ",".join(
            words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-o", "--options")
        ) + ",".join(w.split("=", 1)[1] for w in words if w.startswith("--options="))
        flags = set(opts.split(","))
        read_only = "ro" in flags or any(w in ("-r", "--read-only") for w in words)
        point = targets[-1] if targets else ""
        if not _system_mount(point, inv.cwd):
            return None
        if "remount" in flags and read_only:
            return f"mount remounts {point} read-only: nothing on it can be written"
        if "remount" not in flags and (len(targets) >= 2 or "--bind" in words or "-B" in words):
            return f"mount covers {point} with another filesystem, hiding what the system keeps there"
    return None


@rules.rule("radio-off", "approve", "blocks the machine's radios or drops its network (rfkill, dhclient -r)")
def _radio(inv: Invocation) -> str | None:
    words = inv.arg_texts()
    operands = [w for w in words if not w.startswith("-")]
    if inv.name == "rfkill" and operands[:1] == ["block"] and not set(operands[1:]) <= {"bluetooth"}:
        return f"rfkill block {' '.join(operands[1:])} turns the network radios off"
    if inv.name in ("dhclient", "dhcpcd") and any(w in ("-r", "-x", "-k", "--release") for w in words):
        return f"{inv.name} {' '.join(words)} releases the address the machine is reached at"
    route = operands[:2] in (["route", "del"], ["route", "delete"], ["r", "del"])
    if inv.name == "ip" and route and ("default" in operands or "0.0.0.0/0" in operands):
        return "ip route del default cuts the machine off the network"
    if inv.name == "ip" and operands[:1] == ["link"] and operands[1:2] in (["del"], ["delete"]):
        return f"ip {' '.join(operands)} removes a network interface"
    if inv.name == "networkctl" and operands[:1] == ["down"]:
        return f"networkctl {' '.join(operands)} takes an interface down"
    if inv.name == "nmcli" and operands[:1] == ["radio"] and "off" in operands:
        return "nmcli radio ... off turns the network radios off"
    if inv.name in ("wpa_cli", "iw") and "disconnect" in operands:
        return f"{inv.name} disconnects the wireless network"
    if inv.name == "tc" and "netem" in operands and any(re.fullmatch(r"100(\.0+)?%", w) for w in operands):
        return "tc netem drops every packet"
    return None


_DROP_ALL = frozenset({"DROP", "REJECT"})


@rules.rule("refuse-inbound", "approve", "makes the firewall drop all traffic (iptables -P INPUT DROP)")
def _refuse(inv: Invocation) -> str | None:
    if inv.name not in ("iptables", "ip6tables", "iptables-legacy", "iptables-nft"):
        return None
    words = inv.arg_texts()
    for i, word in enumerate(words):
        chain = words[i + 1 : i + 2] in (["INPUT"], ["OUTPUT"])
        if word in ("-P", "--policy") and chain and set(words[i + 2 : i + 3]) & _DROP_ALL:
            return f"iptables sets the {words[i + 1]} policy to {words[i + 2]}: every connection is refused"
    appended = any(w in ("-A", "-I", "--append", "--insert") for w in words)
    narrowed = any(
        w
        in (
            "-s",
            "--source",
            "-d",
            "--destination",
            "-p",
            "--protocol",
            "--dport",
            "-i",
            "-o",
            "-m",
            "--match",
        )
        for w in words
    )
    jump = words[words.index("-j") + 1] if "-j" in words and words.index("-j") + 1 < len(words) else ""
    if appended and jump in _DROP_ALL and not narrowed:
        return f"iptables {' '.join(words)} drops all traffic"
    return None


_FALLBACK_TARGETS = re.compile(r"(rescue|emergency|poweroff|reboot|halt|runlevel[016])(\.target)?")


@rules.rule("boot-target", "approve", "makes the machine boot into a rescue, emergency or halt target")
def _boot_target(inv: Invocation) -> str | None:
    operands = [w for w in inv.arg_texts() if not w.startswith("-")]
    setting = inv.name == "systemctl" and operands[:1] == ["set-default"] and operands[1:2]
    if setting and _FALLBACK_TARGETS.fullmatch(operands[1]):
        return f"systemctl set-default {operands[1]}: every boot stops in {operands[1]}"
    return None


@rules.rule("end-sessions", "approve", "logs users out or kills their sessions (loginctl terminate-user)")
def _sessions(inv: Invocation) -> str | None:
    operands = [w for w in inv.arg_texts() if not w.startswith("-")]
    if (
        inv.name == "loginctl"
        and operands[:1]
        and re.fullmatch(r"(terminate|kill)-(user|session|seat)", operands[0])
    ):
        return f"loginctl {' '.join(operands)} ends sessions and every process in them"
    if inv.name in ("gnome-session-quit", "xfce4-session-logout") and "--force" in inv.arg_texts():
        return f"{inv.name} --force logs the user out, losing unsaved work"
    return None


@rules.rule("unload-system-service", "approve", "unloads or disables a macOS system daemon (launchctl)")
def _launchctl(inv: Invocation) -> str | None:
    if inv.name != "launchctl":
        return None
    operands = [w for w in inv.arg_texts() if not w.startswith("-")]
    if operands[:1] == ["reboot"]:
        return "launchctl reboot restarts the machine"
    if operands[:1] not in (["unload"], ["bootout"], ["disable"], ["remove"], ["kill"], ["stop"]):
        return None
    for target in operands[1:]:
        system = target.startswith(("/System/", "/Library/LaunchDaemons", "system")) or (
            re.fullmatch(r"com\.apple\.[\w.-]+", target) is not None
        )
        if system:
            return f"launchctl {operands[0]} {target} stops a system service"
    return None


_FINDS_PIDS = re.compile(r"\b(?:pgrep|pidof|pgrep\s+-\w+)\s+(?:-\w+\s+)*([\w.@-]+)")
_EVERY_PID = re.compile(
    r"\bps\b[^)`]*\b(?:-e|-A|aux|ax)\b|\bpgrep\s+(?:-\w+\s+)*-u\s+(?:root|0)\b|\bls\s+/proc\b"
)


@rules.rule(
    "kill-computed", "approve", "kills a critical daemon or every process found by pgrep, pidof or ps"
)
def _kill_computed(inv: Invocation) -> str | None:
    if inv.name not in ("kill", "skill", "renice"):
        return None
    for arg in inv.args:
        if arg.exact:
            continue
        if _EVERY_PID.search(arg.text):
            return f"{inv.name} signals every process {arg.shown()[:60]} lists"
        for match in _FINDS_PIDS.finditer(arg.text):
            if match.group(1) in CRITICAL_PROCESSES:
                return f"{inv.name} kills {match.group(1)}, found by its name"
    return None


@rules.rule("swap-off", "approve", "turns swap off (memory-hungry processes are then killed)")
def _swap(inv: Invocation) -> str | None:
    if inv.name == "swapoff" and not any(w in ("--help", "-h", "--version", "-V") for w in inv.arg_texts()):
        return f"swapoff {' '.join(inv.arg_texts())} takes swap away from the running system"
    return None


_DBUS_TOOLS = frozenset({"dbus-send", "gdbus", "busctl", "qdbus", "qdbus6", "qdbus-qt5"})
_DBUS_POWER = re.compile(
    r"(?i)\b(?:login1|systemd1)\b.*\b(PowerOff|Reboot|Halt|Suspend|Hibernate|KExec|KillUser|TerminateUser"
    r"|KillSession|TerminateSession|StopUnit|KillUnit|MaskUnitFiles|DisableUnitFiles)\b"
)


@rules.rule("dbus-power", "approve", "powers off, reboots or stops services through D-Bus (login1, systemd1)")
def _dbus(inv: Invocation) -> str | None:
    if inv.name not in _DBUS_TOOLS:
        return None
    match = _DBUS_POWER.search(" ".join(inv.arg_texts()))
    return f"{inv.name} calls {match.group(1)} on the system bus" if match else None


@rules.rule("set-clock", "approve", "sets the system clock (TLS, logs, caches and timers break)")
def _clock(inv: Invocation) -> str | None:
    words = inv.arg_texts()
    if inv.name == "date" and any(w in ("-s", "--set") or w.startswith("--set=") for w in words):
        return "date -s sets the system clock"
    operands = [w for w in words if not w.startswith("-")]
    if inv.name == "timedatectl" and operands[:1] == ["set-time"]:
        return "timedatectl set-time sets the system clock"
    if inv.name == "hwclock" and any(w in ("--set", "--hctosys", "-s") for w in words):
        return "hwclock sets the clock from an unchecked source"
    return None


_EVERY_CONTAINER = re.compile(
    rf"\b(?:{'|'.join(map(re.escape, sorted(ENGINES)))})\s+(?:containers?\s+)?(?:ps|ls)\b(?![^)`]*(?:-f|--filter)\b)[^)`]*-\w*q"
)


@rules.rule("stop-all-containers", "approve", "stops, kills or force-removes every running container")
def _containers(inv: Invocation) -> str | None:
    if inv.name not in ENGINES:
        return None
    words = [w for w in inv.arg_texts() if w not in ("container", "containers", "c")]
    verb = next((w for w in words if not w.startswith("-")), "")
    forced = any(w in ("-f", "--force") for w in words)
    if verb not in ("stop", "kill", "pause") and not (verb in ("rm", "remove") and forced):
        return None
    if "--all" in words or ("-a" in words and verb in ("stop", "kill", "pause")):
        return f"{inv.name} {verb} --all stops every container"
    for arg in inv.args:
        if not arg.exact and _EVERY_CONTAINER.search(arg.text):
            return f"{inv.name} {verb} takes down every running container"
    return None


@rules.rule("disable-login", "approve", "gives an account a shell that refuses logins, or expires it")
def _login(inv: Invocation) -> str | None:
    words = inv.arg_texts()
    if inv.name in ("chsh", "usermod") and any(
        words[i] in ("-s", "--shell") and re.search(r"/(?:false|nologin)$", words[i + 1])
        for i in range(len(words) - 1)
    ):
        return f"{inv.name} {' '.join(words)} stops the account from logging in"
    if inv.name == "chage" and any(
        words[i] in ("-E", "--expiredate") and words[i + 1] in ("0", "1970-01-01")
        for i in range(len(words) - 1)
    ):
        return f"chage {' '.join(words)} expires the account"
    return None
