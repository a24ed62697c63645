"""A seccomp filter that stops sandboxed commands from making set-user-ID or set-group-ID files.

The sandbox writes the workspace as the files' owner. When tooldeck runs as root that owner is
root on disk (the workspace is idmapped for the sandbox's uid), so `chmod u+s` on a copied shell
would leave a set-user-ID-root program on the host, for any local user to run. The filter makes
every call that sets a mode (chmod, fchmod, fchmodat, fchmodat2, and open, openat, creat, mknod,
mknodat when they create) fail with EPERM when the mode holds S_ISUID or S_ISGID; openat2 and
io_uring, whose arguments a filter cannot read, fail with ENOSYS (programs fall back to openat
and plain reads and writes). System V shared memory (`shmget`) fails with ENOSYS too: its
segments are charged to no process, so they would hold memory past `sandbox.limits.memory_mb`
(POSIX shared memory, in `/dev/shm`, stays: its size is bounded by `tmp_mb`). Other ABIs of the same CPU (i386 and x32 on x86_64) get ENOSYS for
everything, so they are no way around it.

`program()` is the classic BPF that bwrap's `--seccomp FD` loads, for x86_64 and aarch64.
"""

from __future__ import annotations

import errno
import os
import struct
from dataclasses import dataclass

# BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
_LD_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET = 0x06  # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
# Offsets in struct seccomp_data: the syscall number, the ABI, and the low half of each argument
# (both CPUs are little-endian).
_NR, _ARCH = 0, 4
SETID = 0o6000  # S_ISUID | S_ISGID
CREATES = 0o100 | 0o20000000  # O_CREAT | __O_TMPFILE, the same on both CPUs
X32_BIT = 0x40000000


@dataclass(frozen=True, slots=True)
class _Abi:
    arch: int
    # syscall number -> (index of the flags argument or None, index of the mode argument)
    modes: dict[int, tuple[int | None, int]]
    unreadable: tuple[int, ...]  # openat2, io_uring_setup
    refused: tuple[int, ...] = ()  # shmget
    x32: bool = False


_ABIS = {
    "x86_64": _Abi(
        arch=0xC000003E,
        modes={
            2: (1, 2),  # open(path, flags, mode)
            85: (None, 1),  # creat(path, mode)
            90: (None, 1),  # chmod(path, mode)
            91: (None, 1),  # fchmod(fd, mode)
            133: (None, 1),  # mknod(path, mode, dev)
            257: (2, 3),  # openat(dirfd, path, flags, mode)
            259: (None, 2),  # mknodat(dirfd, path, mode, dev)
            268: (None, 2),  # fchmodat(dirfd, path, mode)
            452: (None, 2),  # fchmodat2(dirfd, path, mode, flags)
        },
        unreadable=(437, 425),
        refused=(29,),
        x32=True,
    ),
    "aarch64": _Abi(
        arch=0xC00000B7,
        modes={33: (None, 2), 52: (None, 1), 53: (None, 2), 56: (2, 3), 452: (None, 2)},
        unreadable=(437, 425),
        refused=(194,),
    ),
}


def _arg(index: int) -> int:
    return 16 + 8 * index


def program(machine: str | None = None) -> bytes | None:
    """The filter for this CPU (`os.uname().machine` by default), or None where none is written."""
    abi = _ABIS.get(machine or os.uname().machine)
    if abi is None:
        return None
    # Each entry: (code, jump-if-true label, jump-if-false label, k); labels are resolved below.
    code: list[tuple[int, str | None, str | None, int]] = [
        (_LD_ABS, None, None, _ARCH),
        (_JEQ, None, "nosys", abi.arch),
        (_LD_ABS, None, None, _NR),
    ]
    if abi.x32:
        code.append((_JGE, "nosys", None, X32_BIT))
    for nr in (*abi.unreadable, *abi.refused):
        code.append((_JEQ, "nosys", None, nr))
    for nr in abi.modes:
        code.append((_JEQ, f"check{nr}", None, nr))
    code.append((_RET, None, None, _ALLOW))
    labels: dict[str, int] = {}
    for nr, (flags, mode) in abi.modes.items():
        labels[f"check{nr}"] = len(code)
        if flags is not None:  # the mode counts only when the call creates a file
            code += [(_LD_ABS, None, None, _arg(flags)), (_JSET, None, "allow", CREATES)]
        code += [(_LD_ABS, None, None, _arg(mode)), (_JSET, "eperm", "allow", SETID)]
    for name, value in (("allow", _ALLOW), ("eperm", _ERRNO | errno.EPERM), ("nosys", _ERRNO | errno.ENOSYS)):
        labels[name] = len(code)
        code.append((_RET, None, None, value))
    out = bytearray()
    for i, (op, true, false, k) in enumerate(code):
        jt = labels[true] - i - 1 if true else 0
        jf = labels[false] - i - 1 if false else 0
        out += struct.pack("=HBBI", op, jt, jf, k)
    return bytes(out)
