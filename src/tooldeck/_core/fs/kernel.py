"""The two Linux system calls Python's `os` module does not wrap: `openat2` and `renameat2`.

`openat2` with `RESOLVE_BENEATH` makes the kernel refuse, in one call and without a race, any
path that would leave the directory it starts from: through `..`, an absolute symlink, or a
relative one climbing out (EXDEV). Kernels before 5.6, other systems, and sandboxes whose
seccomp filter blocks the call (ENOSYS or EPERM) do not have it; `openat2_available` probes
once and the callers fall back to walking the path one component at a time.

`ctypes` is imported on first use only, so importing tooldeck stays cheap.
"""

from __future__ import annotations

import errno
import os
import platform
import sys
import threading
from typing import Any

RESOLVE_NO_XDEV = 0x01
RESOLVE_NO_MAGICLINKS = 0x02
RESOLVE_NO_SYMLINKS = 0x04
RESOLVE_BENEATH = 0x08

RENAME_NOREPLACE = 0x1
RENAME_EXCHANGE = 0x2

# Syscall numbers: (openat2, renameat2). openat2 has one number on every architecture
# (it came after the syscall tables were unified); renameat2 does not.
_NUMBERS = {
    "x86_64": (437, 316),
    "aarch64": (437, 276),
    "arm64": (437, 276),
    "riscv64": (437, 276),
    "ppc64le": (437, 357),
    "s390x": (437, 347),
    "i686": (437, 353),
    "i386": (437, 353),
    "armv7l": (437, 382),
}

_lock = threading.Lock()
_state: dict[str, Any] = {}


class _Api:
    """libc's `syscall` and the `open_how` struct, loaded on first use."""

    def __init__(self) -> None:
        import ctypes

        self.ctypes = ctypes
        self.syscall: Any = None
        if sys.platform.startswith("linux"):
            try:
                self.syscall = ctypes.CDLL(None, use_errno=True).syscall
                self.syscall.restype = ctypes.c_long
            except (OSError, AttributeError):
                self.syscall = None

        class OpenHow(ctypes.Structure):
            _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]

        self.open_how = OpenHow
        self.numbers = _NUMBERS.get(platform.machine())

    def fail(self, path: str) -> OSError:
        code = self.ctypes.get_errno()
        return OSError(code, os.strerror(code), path)


def _api() -> _Api:
    api = _state.get("api")
    if api is None:
        with _lock:
            api = _state.setdefault("api", _Api())
    assert isinstance(api, _Api)
    return api


def openat2(dir_fd: int, path: str, flags: int, mode: int, resolve: int) -> int:
    """`openat2(2)`; raises OSError (ENOSYS where the call does not exist)."""
    api = _api()
    if api.syscall is None or api.numbers is None:
        raise OSError(errno.ENOSYS, "openat2 is not available here", path)
    c = api.ctypes
    how = api.open_how(flags, mode, resolve)
    fd = int(
        api.syscall(
            c.c_long(api.numbers[0]),
            c.c_int(dir_fd),
            c.c_char_p(os.fsencode(path)),
            c.byref(how),
            c.c_size_t(24),
        )
    )
    if fd < 0:
        raise api.fail(path)
    return fd


def renameat2(old_dir_fd: int, old: str, new_dir_fd: int, new: str, flags: int) -> None:
    """`renameat2(2)` (RENAME_NOREPLACE, RENAME_EXCHANGE); raises OSError, ENOSYS if absent."""
    api = _api()
    if api.syscall is None or api.numbers is None:
        raise OSError(errno.ENOSYS, "renameat2 is not available here", new)
    c = api.ctypes
    result = int(
        api.syscall(
            c.c_long(api.numbers[1]),
            c.c_int(old_dir_fd),
            c.c_char_p(os.fsencode(old)),
            c.c_int(new_dir_fd),
            c.c_char_p(os.fsencode(new)),
            c.c_uint(flags),
        )
    )
    if result < 0:
        raise api.fail(new)


def openat2_available() -> bool:
    """Whether `openat2` with RESOLVE_BENEATH works here (probed once)."""
    with _lock:
        known = _state.get("openat2")
    if known is not None:
        return bool(known)
    base = os.open("/", os.O_PATH | os.O_CLOEXEC)
    try:
        os.close(openat2(base, ".", os.O_PATH | os.O_CLOEXEC, 0, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS))
        ok = True
    except OSError:  # ENOSYS (old kernel), EPERM/ENOSYS (seccomp), E2BIG/EINVAL (unknown flags)
        ok = False
    finally:
        os.close(base)
    with _lock:
        _state["openat2"] = ok
    return ok
