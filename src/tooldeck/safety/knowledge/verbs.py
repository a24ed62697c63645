"""Effects of program verbs (`verbs.toml`): which command of which program has which effect.

A verb names programs (or a class of the program table), the command words its operands start
with (after global options and option values: `kubectl -n prod get secret x` has the operands
`get secret x`), options or words that must (`with`) or must not (`unless`) be on the line, and
the effect: the id of the rule that judges it, or a fact other code asks about
(`prints-secrets`). One engine (`verb_match`) answers for every rule; a program like a known
one is a table entry with its examples, not code. Each verb's `dangerous` lines must match it
and its `benign` look-alikes must not, checked when the table loads.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path
from typing import Any

from tooldeck.safety.analysis.argv import word_operands
from tooldeck.safety.analysis.model import Field, Invocation
from tooldeck.safety.knowledge.entries import Table, TableError
from tooldeck.safety.knowledge.table import command_words, programs, value_options_of

VERBS_FILE = Path(__file__).with_name("verbs.toml")
# Effects that are facts for other code rather than a rule's verdict.
FACTS = frozenset(
    {
        "prints-secrets",
        "container-start",
        "resets-database",
        "push-forces",
        "push-forces-with-lease",
        "push-deletes",
    }
)
_KEYS = frozenset(
    {"effect", "programs", "classes", "commands", "with", "unless", "says", "dangerous", "benign"}
)
# Every verb is skipped when the line only asks for help.
_HELP = ("--help",)


@dataclass(frozen=True, slots=True)
class Verb:
    effect: str
    programs: frozenset[str]
    # Word sequences the operands start with; `*` is any word, `x*` any word starting with x, a
    # leading `**` any number of words; the empty sequence is the program itself, whatever follows.
    commands: tuple[tuple[str, ...], ...]
    with_: tuple[str, ...]
    unless: tuple[str, ...]
    says: str
    dangerous: tuple[str, ...]
    benign: tuple[str, ...]


def _strings(entry: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TableError(f"{where}.{key}: expected a list of strings")
    return tuple(value)


def _verb(entry: Any, where: str, table: Table) -> Verb:
    if not isinstance(entry, dict):
        raise TableError(f"{where}: expected a table")
    unknown = set(entry) - _KEYS
    if unknown:
        raise TableError(f"{where}: unknown key {sorted(unknown)[0]!r}")
    effect, says = entry.get("effect"), entry.get("says")
    if not isinstance(effect, str) or not effect or not isinstance(says, str) or not says:
        raise TableError(f"{where}: a verb needs an `effect` and what it `says`")
    names = set(_strings(entry, "programs", where))
    for cls in _strings(entry, "classes", where):
        members = table.in_class(cls)
        if not members:
            raise TableError(f"{where}.classes: no program of the table is in class {cls!r}")
        names |= members
    if not names:
        raise TableError(f"{where}: a verb needs `programs` or `classes`")
    verb = Verb(
        effect,
        frozenset(names),
        tuple(tuple(c.split()) for c in _strings(entry, "commands", where)) or ((),),
        _strings(entry, "with", where),
        _strings(entry, "unless", where) + _HELP,
        says,
        _strings(entry, "dangerous", where),
        _strings(entry, "benign", where),
    )
    if not verb.dangerous or not verb.benign:
        raise TableError(f"{where}: a verb needs a dangerous example and a benign look-alike")
    return verb


def _word_matches(pattern: str, word: str) -> bool:
    if pattern.endswith("*"):
        return word.startswith(pattern[:-1])
    return word == pattern


def _is(want: str, word: str, following: str | None = None) -> bool:
    """`word` is `want`: the same word, `--opt=value`, a short option cluster holding `-x`, any
    word starting with `want` without its final `*` (`--vacuum*`), a word matching a glob
    (`*://*[*]*`), or an option whose value matches a glob, given as `--opt=value` or as
    `--opt value` (`--pid=host`, `--cap-add=SYS_*`: `following` is the word after `word`)."""
    option, eq, value = want.partition("=")
    if eq and want.startswith("-"):
        if word == option:
            return following is not None and fnmatchcase(following, value)
        return word.startswith(option + "=") and fnmatchcase(word[len(option) + 1 :], value)
    if _GLOB.search(want[:-1]):
        return fnmatchcase(word, want)
    if want.endswith("*"):
        return word.startswith(want[:-1])
    if word == want or (want.startswith("--") and word.startswith(want + "=")):
        return True
    short = len(want) == 2 and want[0] == "-" and want[1].isalpha()
    return short and re.fullmatch(rf"-[a-zA-Z]*{want[1]}[a-zA-Z]*", word) is not None


_GLOB = re.compile(r"[*?\[]")


def _pairs(words: list[str]) -> list[tuple[str, str | None]]:
    """Each word with the word after it (None for the last): an option and its value."""
    return [(w, words[i + 1] if i + 1 < len(words) else None) for i, w in enumerate(words)]


def _shown(word: str, following: str | None, given: str) -> str:
    """`--pid host` for the option `--pid=host` matched over two words; else the word."""
    if given.startswith("-") and "=" in given and word == given.partition("=")[0] and following:
        return f"{word} {following}"
    return word


def _has(words: list[str], wanted: Iterable[str]) -> str | None:
    """The first of `wanted` on the line."""
    for want in wanted:
        if want.startswith("-") and "=" in want:  # an option and its value: maybe two words
            if any(_is(want, w, after) for w, after in _pairs(words)):
                return want
        elif any(_is(want, w) for w in words):
            return want
    return None


def verb_command(verb: Verb, inv: Invocation, table: Table | None = None) -> list[str] | None:
    """The command words of `inv` that `verb` matches (and the `with` word found), or None."""
    if inv.name not in verb.programs:
        return None
    words = command_words(inv, table)
    if not words and inv.args:
        return None  # only help or the version
    given = _has(words, verb.with_) if verb.with_ else ""
    if given is None or _has(words, verb.unless) is not None:
        return None
    operands = word_operands(words, value_options_of(inv.name, table))
    for command in verb.commands:
        head = _command_head(command, operands)
        if head is not None:
            found = [
                (w, after) for w, after in _pairs(words) if w in head or (given and _is(given, w, after))
            ]
            return list(dict.fromkeys(_shown(w, after, given) for w, after in found))
    return None


def _command_head(command: tuple[str, ...], operands: list[str]) -> list[str] | None:
    """The operands up to the end of `command`'s match, or None; a leading `**` lets the rest
    start at any operand (`** delete`: `compute instances delete web`)."""
    anywhere = command[:1] == ("**",)
    rest = command[1:] if anywhere else command
    for start in range(len(operands) - len(rest) + 1 if anywhere else 1):
        head = operands[start : start + len(rest)]
        if len(head) == len(rest) and all(map(_word_matches, rest, head)):
            return operands[: start + len(rest)]
    return None


@dataclass(frozen=True, slots=True)
class Verbs:
    by_effect: dict[str, dict[str, tuple[Verb, ...]]]
    # Every verb in the order of the file (the same in every process, unlike a set's order).
    in_order: tuple[Verb, ...] = ()

    def effects(self) -> frozenset[str]:
        return frozenset(self.by_effect)

    def all(self) -> list[Verb]:
        return list(self.in_order)


def _label(entry: Any) -> str:
    """` (security-off: ufw)`: the effect and the first program or class, to find the entry by."""
    if not isinstance(entry, dict):
        return ""
    names = entry.get("programs") or entry.get("classes") or ["?"]
    first = names[0] if isinstance(names, list) and names else "?"
    return f" ({entry.get('effect', '?')}: {first})"


def _check(verb: Verb, where: str, table: Table) -> None:
    for line, wanted in [(line, True) for line in verb.dangerous] + [(line, False) for line in verb.benign]:
        got = verb_command(verb, Invocation(tuple(Field(w) for w in shlex.split(line))), table)
        if (got is not None) != wanted:
            expected = "match" if wanted else "not match"
            raise TableError(f"{where}: `{line}` should {expected}")


def load_verbs(path: Path = VERBS_FILE, table: Table | None = None) -> Verbs:
    """Parse and check a verb table; every example must hold."""
    table = table or programs()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise TableError(f"{path.name}: {exc}") from exc
    by_effect: dict[str, dict[str, list[Verb]]] = {}
    in_order: list[Verb] = []
    for i, entry in enumerate(data.get("verb", [])):
        where = f"{path.name}: verb[{i}]" + _label(entry)
        verb = _verb(entry, where, table)
        _check(verb, where, table)
        in_order.append(verb)
        index = by_effect.setdefault(verb.effect, {})
        for name in verb.programs:
            index.setdefault(name, []).append(verb)
    return Verbs(
        {e: {n: tuple(vs) for n, vs in index.items()} for e, index in by_effect.items()}, tuple(in_order)
    )


@cache
def verbs() -> Verbs:
    """The package's verb table, loaded and checked once."""
    return load_verbs()


def verb_match(effect: str, inv: Invocation) -> str | None:
    """Why `inv` has `effect` by the verb table (`helm uninstall site removes ...`), or None."""
    for verb in verbs().by_effect.get(effect, {}).get(inv.name, ()):
        words = verb_command(verb, inv)
        if words is not None:
            return " ".join([inv.name, *words, verb.says])
    return None


def carried_verb_match(effect: str, inv: Invocation) -> str | None:
    """`verb_match`, also for a verb's program carried in another's arguments, its words from
    there on: `python manage.py flush`, `heroku run rails db:drop`, `yarn prisma migrate reset`."""
    found = verb_match(effect, inv)
    index = verbs().by_effect.get(effect, {})
    for i in range(1, len(inv.argv)):
        if found is not None:
            break
        if inv.argv[i].text.rsplit("/", 1)[-1] in index:
            found = verb_match(effect, dataclasses.replace(inv, argv=inv.argv[i:]))
    return found


__all__ = [
    "FACTS",
    "VERBS_FILE",
    "Verb",
    "Verbs",
    "carried_verb_match",
    "load_verbs",
    "verb_command",
    "verb_match",
    "verbs",
]
