"""Destroying disks and filesystems: formatting, overwriting, wiping or repartitioning block devices."""

from __future__ import annotations

import re

from tooldeck.safety.analysis.effects import written_files
from tooldeck.safety.analysis.flows import output_of
from tooldeck.safety.analysis.model import Field, Invocation
from tooldeck.safety.analysis.paths import classify, computed_device
from tooldeck.safety.knowledge.rules.base import RuleSet, options

rules = RuleSet("disk_destruction")

_FORMATTERS = re.compile(r"mkfs(\.\w+)?|mke2fs|mkntfs|mkdosfs|mkexfatfs|mkswap|mkfs\.btrfs|mkreiserfs|newfs")


def _devices(fields: tuple[Field, ...] | list[Field], cwd: str | None) -> list[Field]:
    return [f for f in fields if classify(f.text, cwd) == "device"]


@rules.rule("format-device", "block", "creates a filesystem on a block device (mkfs, mkswap, ...)")
def _format(inv: Invocation) -> str | None:
    if not _FORMATTERS.fullmatch(inv.name):
        return None
    # Every word that is not an option: a device right after a flag (`mkfs.ext4 -F /dev/sda1`,
    # where -F forces rather than takes a value) is still the one formatted.
    devices = _devices([a for a in inv.args if not a.text.startswith("-")], inv.cwd)
    if devices:
        return f"{inv.name} formats {devices[0].shown()}, destroying everything on it"
    return None


@rules.rule("format-unknown-target", "approve", "creates a filesystem on a target that cannot be resolved")
def _format_unknown(inv: Invocation) -> str | None:
    if not _FORMATTERS.fullmatch(inv.name):
        return None
    operands = options(inv).operands
    if any(classify(f.text, inv.cwd) == "unknown" for f in operands[:1]):
        return f"{inv.name} formats {operands[0].shown()}, which may be a disk"
    return None


def written_devices(inv: Invocation) -> list[Field]:
    """Block devices this invocation writes to: dd of=, cp/tee/pv targets, output redirections."""
    return _devices([target for target, _kind in written_files(inv)], inv.cwd)


@rules.rule(
    "overwrite-computed-device",
    "approve",
    "writes raw data to, wipes or formats a device whose name is computed at run time (of=/dev/$disk)",
)
def _computed(inv: Invocation) -> str | None:
    targets = [target for target, _kind in written_files(inv)]
    if _FORMATTERS.fullmatch(inv.name) or inv.name in _WIPERS:
        targets += list(inv.args)
    for target in targets:
        if computed_device(target.text):
            return f"{inv.name} writes to {target.shown()}, a device named only at run time"
    return None


@rules.rule(
    "overwrite-device",
    "block",
    "writes raw data onto a block device (dd of=/dev/sda, > /dev/sda, tee /dev/sdb)",
)
def _overwrite(inv: Invocation) -> str | None:
    devices = written_devices(inv)
    if devices:
        return f"{inv.name} overwrites the block device {devices[0].shown()}"
    return None


_WIPERS: dict[str, tuple[str, ...]] = {
    "wipefs": ("-a", "--all", "-o", "--offset"),
    "blkdiscard": (),
    "shred": (),
    "scrub": (),
    "sgdisk": (
        "-Z",
        "--zap-all",
        "-z",
        "--zap",
        "-o",
        "--clear",
        "-d",
        "--delete",
        "-n",
        "--new",
        "-g",
        "--mbrtogpt",
    ),
    "sfdisk": ("--delete", "--wipe", "-w", "--wipe-partitions", "*"),
    "parted": ("mklabel", "mkpart", "rm", "resizepart", "mkpartfs", "mktable"),
    "fdisk": ("*",),
    "cfdisk": ("*",),
    "gdisk": ("*",),
    "badblocks": ("-w",),
    "hdparm": ("--security-erase", "--security-erase-enhanced", "--trim-sector-ranges", "--write-sector"),
    "mdadm": ("--zero-superblock",),
    # Filesystem debuggers opened for writing edit the on-disk structures directly.
    "debugfs": ("-w", "--writable"),
    "xfs_db": ("-x", "--expert"),
}
_READ_ONLY = frozenset(
    {
        "-l",
        "--list",
        "-p",
        "--print",
        "print",
        "-d",
        "--dump",
        "-v",
        "--verify",
        "-n",
        "--no-act",
        "-s",
        "--show",
        "-V",
        "--version",
        "-h",
        "--help",
        "-i",
        "--info",
        "-P",
        "--print-mbr",
        "-L",
    }
)


@rules.rule(
    "wipe-device",
    "approve",
    "wipes, discards or repartitions a block device (wipefs, shred, sgdisk, parted, ...)",
)
def _wipe(inv: Invocation) -> str | None:
    needed = _WIPERS.get(inv.name)
    if needed is None:
        return None
    words = inv.arg_texts()
    devices = _devices(list(inv.args), inv.cwd)
    if not devices:
        return None
    if inv.name in ("fdisk", "cfdisk", "gdisk", "sfdisk") and any(w in _READ_ONLY for w in words):
        return None
    if inv.name == "sfdisk" and inv.stdin is None and not any(w in needed for w in words):
        return None
    if inv.name == "wipefs" and any(w in ("-n", "--no-act") for w in words):
        return None
    # Short options run together (`wipefs -af`) name each of their letters.
    letters = [f"-{c}" for w in words if re.fullmatch(r"-[a-zA-Z]{2,}", w) for c in w[1:]]
    named = any(w in needed or w.split("=", 1)[0] in needed for w in [*words, *letters])
    combined = inv.name == "sgdisk" and any(re.fullmatch(r"-[A-Za-z]*[Zzod][A-Za-z]*", w) for w in words)
    if needed and "*" not in needed and not named and not combined:
        return None
    return f"{inv.name} {' '.join(words)[:60]} destroys data on {devices[0].shown()}"


_VOLUME_COMMANDS = {
    "cryptsetup": ("luksErase", "erase", "luksFormat", "luksKillSlot", "luksRemoveKey", "reencrypt"),
    "lvremove": (),
    "vgremove": (),
    "pvremove": (),
    "lvreduce": (),
    "zpool": ("destroy", "labelclear"),
    "zfs": ("destroy",),
    "btrfs": ("delete",),
    "nvme": ("format", "sanitize"),
    "dmsetup": ("remove_all", "wipe_table"),
}


@rules.rule("destroy-volume", "approve", "destroys an encrypted volume, LVM volume, ZFS pool or dataset")
def _volume(inv: Invocation) -> str | None:
    needed = _VOLUME_COMMANDS.get(inv.name)
    if needed is None:
        return None
    words = inv.arg_texts()
    if "--help" in words or "-h" in words:
        return None
    if needed and not any(w in needed for w in words):
        return None
    if not needed and not [w for w in words if not w.startswith("-")]:
        return None
    return f"{inv.name} {' '.join(words)[:60]} destroys a storage volume and its data"


# A file this large fills most disks: writes everywhere on the filesystem start to fail.
FILL_BYTES = 10 * 1024**3
_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4, "p": 1024**5, "e": 1024**6}


def size_bytes(text: str) -> int | None:
    """`500G`, `10GiB`, `1T`, `4096`, `2GB` (1000s) as bytes; None when it is not a size."""
    match = re.fullmatch(r"\+?(\d+(?:\.\d+)?)([kmgtpe]?)(i?b?)", text.strip().lower())
    if not match:
        return None
    number, unit, tail = match.groups()
    base = 1000 if tail == "b" and unit else 1024
    return int(float(number) * (base ** "kmgtpe".index(unit) * base if unit else 1))


def _allocated(inv: Invocation) -> int | None:
    """Bytes that fallocate, truncate, dd or head -c would write into one file."""
    words = inv.arg_texts()
    value_of = {w: words[i + 1] for i, w in enumerate(words[:-1]) if w.startswith("-")}
    if inv.name == "fallocate":
        raw = value_of.get("-l") or value_of.get("--length")
    elif inv.name == "truncate":
        raw = value_of.get("-s") or value_of.get("--size")
        raw = raw if raw is None or not raw.startswith(("-", "<", "%", "/")) else None
    elif inv.name == "head" and any(r.writes for r in inv.redirects):
        raw = value_of.get("-c") or value_of.get("--bytes")
    elif inv.name == "dd":
        sizes = {w.split("=", 1)[0]: w.split("=", 1)[1] for w in words if "=" in w}
        block = size_bytes(sizes.get("bs", sizes.get("obs", "512")))
        count = sizes.get("count")
        if block is None or count is None or not count.isdigit():
            return None
        return block * int(count)
    else:
        return None
    return size_bytes(raw) if raw else None


_ENDLESS_DEVICES = frozenset({"/dev/zero", "/dev/urandom", "/dev/random", "/dev/full"})
_NOT_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


def _writes_endlessly(inv: Invocation) -> bool:
    """Output without end going into a file: `yes > f`, `cat /dev/zero > f`, `dd if=/dev/zero of=f`."""
    files = [r for r in inv.redirects if r.writes and r.target.text not in _NOT_FILES]
    if inv.name == "dd":
        words = dict(w.split("=", 1) for w in inv.arg_texts() if "=" in w)
        into_file = words.get("of", "/dev/null") not in _NOT_FILES or bool(files)
        return words.get("if") in _ENDLESS_DEVICES and "count" not in words and into_file
    if not files:
        return False
    if inv.name == "cat" and any(a.text in _ENDLESS_DEVICES for a in inv.args):
        return True
    return output_of(inv).endless


# A size computed from the filesystem's free space (`$(df --output=avail -B1 / | tail -1)`,
# `$(stat -f -c '%a*%S' /)`, `$(findmnt -bno AVAIL /)`): the file takes all of it.
_FREE_SPACE = re.compile(
    r"(?:\$\(|`)[^`]*?(?:\bdf\b|\bstat\s[^|;)`]*(?:-f\b|--file-system)|\bfindmnt\b|statvfs)"
)
_SIZE_OPTIONS = frozenset({"-l", "--length", "-s", "--size", "-c", "--bytes"})


def _sized_by_free_space(inv: Invocation) -> bool:
    if inv.name not in ("fallocate", "truncate", "head", "dd", "xfs_mkfile", "mkfile"):
        return False
    words = inv.arg_texts()
    sizes = [words[i + 1] for i, w in enumerate(words[:-1]) if w in _SIZE_OPTIONS]
    sizes += [
        w.split("=", 1)[1] for w in words if w.split("=", 1)[0] in ("count", "bs", "--length", "--size")
    ]
    if inv.name in ("xfs_mkfile", "mkfile"):
        sizes += words[:1]
    return any(_FREE_SPACE.search(size) for size in sizes)


@rules.rule(
    "fill-disk",
    "approve",
    "writes a file of 10 GiB or more, or as large as the free space, or without end "
    "(fallocate -l 500G, fallocate -l $(df ...), yes > f, cat /dev/zero > f)",
)
def _fill(inv: Invocation) -> str | None:
    if _sized_by_free_space(inv):
        return f"{inv.name} writes a file as large as the filesystem's free space, filling the disk"
    size = _allocated(inv)
    if size is not None and size >= FILL_BYTES:
        return f"{inv.name} writes a {size / 1024**3:.0f} GiB file, which can fill the disk"
    if _writes_endlessly(inv):
        return f"{inv.name} writes into a file without end until the disk is full"
    return None
