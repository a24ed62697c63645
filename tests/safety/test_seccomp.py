"""The set-ID filter's BPF, checked as a program: every jump lands inside it and every path ends
in a return. (Its effect is tested for real, through the sandbox, in tests/tools.)"""

from __future__ import annotations

import struct

import pytest

from tooldeck.safety.sandbox import seccomp

RET = 0x06
JUMPS = {0x15, 0x35, 0x45}


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_the_filter_is_a_well_formed_program(machine: str) -> None:
    code = seccomp.program(machine)
    assert code is not None and len(code) % 8 == 0
    ops = [struct.unpack("=HBBI", code[i : i + 8]) for i in range(0, len(code), 8)]
    assert len(ops) < 256  # jump offsets are one byte
    for i, (op, jt, jf, _k) in enumerate(ops):
        if op in JUMPS:
            assert i + 1 + max(jt, jf) < len(ops)
    assert ops[-1][0] == RET
    returns = {k for op, _, _, k in ops if op == RET}
    assert returns == {0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38}  # allow, EPERM, ENOSYS


def test_no_filter_is_guessed_for_another_cpu() -> None:
    assert seccomp.program("riscv64") is None
