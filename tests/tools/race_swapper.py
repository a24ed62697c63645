"""Race-test helper, run as its own process: swap two names in a folder with
renameat2(RENAME_EXCHANGE), as fast as it can, until terminated.

Usage: python race_swapper.py FOLDER NAME_A NAME_B
Prints "ready" once a first exchange worked (exit 3 with the reason if the kernel cannot),
and the number of exchanges done when it gets SIGTERM.
"""

from __future__ import annotations

import ctypes
import os
import platform
import signal
import sys

RENAME_EXCHANGE = 2
NUMBERS = {"x86_64": 316, "aarch64": 276, "arm64": 276, "riscv64": 276, "ppc64le": 357, "s390x": 347}


def main(argv: list[str]) -> int:
    folder, first, second = argv
    number = NUMBERS.get(platform.machine())
    if number is None:
        print(f"no renameat2 syscall number known for {platform.machine()}", flush=True)
        return 3
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    fd = os.open(folder, os.O_PATH | os.O_DIRECTORY)
    a, b = first.encode(), second.encode()
    args = (ctypes.c_long(number), ctypes.c_int(fd), ctypes.c_char_p(a), ctypes.c_int(fd), ctypes.c_char_p(b))
    flags = ctypes.c_uint(RENAME_EXCHANGE)

    def exchange() -> int:
        return int(libc.syscall(*args, flags))

    for _ in range(2):  # swap there and back: proves the call works and leaves the start state
        if exchange() != 0:
            code = ctypes.get_errno()
            print(f"renameat2(RENAME_EXCHANGE) failed: {os.strerror(code)}", flush=True)
            return 3
    done = [0]

    def stop(*_: object) -> None:
        print(done[0], flush=True)
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    print("ready", flush=True)
    while True:
        exchange()
        done[0] += 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
