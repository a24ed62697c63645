"""Every rule's own examples (`rule_examples.toml`): dangerous commands it must flag and benign
look-alikes that must pass. Tests run them one rule at a time; `tooldeck shell-check --rules`
lists them with each rule's level and category."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from tooldeck.safety.knowledge.table import TableError

EXAMPLES_FILE = Path(__file__).with_name("rule_examples.toml")
_KEYS = frozenset({"dangerous", "benign", "max_bytes", "unreachable"})


@dataclass(frozen=True, slots=True)
class RuleExamples:
    dangerous: tuple[str, ...] = ()
    benign: tuple[str, ...] = ()
    # The examples run under a policy reading at most this many bytes (`input-too-large`).
    max_bytes: int | None = None
    # Why no command raises the rule on purpose (it reports the analyser's own failure).
    unreachable: str | None = None


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise TableError(f"{where}: expected a list of commands")
    return tuple(value)


def _entry(rule_id: str, entry: Any, source: str) -> RuleExamples:
    where = f"{source}: [{rule_id}]"
    if not isinstance(entry, dict):
        raise TableError(f"{where}: expected a table")
    unknown = set(entry) - _KEYS
    if unknown:
        raise TableError(f"{where}: unknown key {sorted(unknown)[0]!r}")
    max_bytes = entry.get("max_bytes")
    if max_bytes is not None and (not isinstance(max_bytes, int) or max_bytes < 1):
        raise TableError(f"{where}.max_bytes: expected a positive integer")
    examples = RuleExamples(
        _strings(entry.get("dangerous", []), f"{where}.dangerous"),
        _strings(entry.get("benign", []), f"{where}.benign"),
        max_bytes,
        entry.get("unreachable"),
    )
    if examples.unreachable is None and not (examples.dangerous and examples.benign):
        raise TableError(f"{where}: a rule needs a dangerous and a benign example (or `unreachable`)")
    return examples


def load_rule_examples(path: Path = EXAMPLES_FILE) -> dict[str, RuleExamples]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise TableError(f"{path.name}: {exc}") from exc
    return {rule_id: _entry(rule_id, entry, path.name) for rule_id, entry in data.items()}


@cache
def rule_examples() -> dict[str, RuleExamples]:
    """The package's rule examples, by rule id."""
    return load_rule_examples()


__all__ = ["EXAMPLES_FILE", "RuleExamples", "load_rule_examples", "rule_examples"]
