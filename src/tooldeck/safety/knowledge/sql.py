"""Finding destructive statements in SQL text, with string literals and comments removed first."""

from __future__ import annotations

import re

_LITERALS = re.compile(r"'(?:''|[^'])*'|\"(?:\"\"|[^\"])*\"|\$\$.*?\$\$|--[^\n]*|/\*.*?\*/", re.S)
_DROP = re.compile(r"\b(DROP\s+(DATABASE|SCHEMA|TABLE|KEYSPACE|COLLECTION|OWNED|USER|ROLE)|TRUNCATE)\b", re.I)
_DELETE = re.compile(r"\bDELETE\s+FROM\s+[\w.\"`\[\]]+(?P<rest>[^;]*)", re.I)
_UPDATE = re.compile(r"\bUPDATE\s+[\w.\"`\[\]]+\s+SET\b(?P<rest>[^;]*)", re.I)
_ALTER_DROP = re.compile(r"\bALTER\s+TABLE\s+[\w.\"`]+\s+DROP\s+(COLUMN\s+)?", re.I)
_TRIVIAL = re.compile(
    r"^\s*(1|true|1\s*=\s*1|0\s*=\s*0|'?(\w+)'?\s*=\s*'?\2'?|not\s+false|1\s*<>\s*0)\s*(;|$)", re.I
)


def destructive_statement(sql: str) -> str | None:
    """The first destructive statement in `sql`, or None."""
    code = _LITERALS.sub("''", sql)
    for statement in code.split(";"):
        text = " ".join(statement.split())
        if _DROP.search(text) or _ALTER_DROP.search(text):
            return text
        for pattern in (_DELETE, _UPDATE):
            match = pattern.search(text)
            if match and _unscoped(match.group("rest")):
                return text
    return None


def _unscoped(rest: str) -> bool:
    where = re.search(r"\bWHERE\b(.*)", rest, re.I | re.S)
    if where is None:
        return not re.search(r"\bLIMIT\b", rest, re.I)
    condition = re.split(r"\b(RETURNING|LIMIT|ORDER\s+BY)\b", where.group(1), flags=re.I)[0]
    return bool(_TRIVIAL.match(condition))
