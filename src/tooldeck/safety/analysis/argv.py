"""Splitting a program's arguments into options and operands, the way GNU tools read them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tooldeck.safety.analysis.model import Field, Invocation


@dataclass(frozen=True, slots=True)
class Options:
    """An invocation's words split into options and operands, GNU style."""

    short: frozenset[str]
    long: frozenset[str]
    operands: tuple[Field, ...]
    words: tuple[str, ...]

    def has(self, *flags: str) -> bool:
        for flag in flags:
            if flag.startswith("--"):
                if flag in self.long or any(w.startswith(flag + "=") for w in self.long):
                    return True
            elif flag[1:] in self.short:
                return True
        return False

    def value(self, *flags: str) -> str | None:
        words = self.words
        for i, word in enumerate(words):
            for flag in flags:
                if word == flag and i + 1 < len(words):
                    return words[i + 1]
                if flag.startswith("--") and word.startswith(flag + "="):
                    return word.split("=", 1)[1]
                if not flag.startswith("--") and word.startswith(flag) and len(word) > len(flag):
                    return word[len(flag) :]
        return None


def options(inv: Invocation, takes_value: frozenset[str] = frozenset()) -> Options:
    """Split `inv`'s arguments; `takes_value` names options whose value is the next word."""
    short: set[str] = set()
    long: set[str] = set()
    operands: list[Field] = []
    args = inv.args
    i = 0
    while i < len(args):
        text = args[i].text
        if text == "--":
            operands += args[i + 1 :]
            break
        if text.startswith("--"):
            long.add(text.split("=", 1)[0] if "=" not in text else text)
            long.add(text.split("=", 1)[0])
            if text in takes_value:
                i += 1
        elif text.startswith("-") and len(text) > 1 and not re.fullmatch(r"-\d+", text):
            short.update(text[1:])
            if text in takes_value:
                i += 1
        else:
            operands.append(args[i])
        i += 1
    return Options(frozenset(short), frozenset(long), tuple(operands), tuple(a.text for a in args))


def word_operands(words: list[str], takes_value: frozenset[str]) -> list[str]:
    """Words that are not options, skipping the values of options that take one."""
    out: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word in takes_value:
            i += 2
            continue
        if not word.startswith("-"):
            out.append(word)
        i += 1
    return out
