"""Database destruction: DROP, TRUNCATE, DELETE/UPDATE without an effective WHERE, FLUSHALL,
dropDatabase, dropping indices over HTTP, and frameworks' flush/drop/reset commands."""

from __future__ import annotations

import re

from tooldeck.safety.model import Invocation
from tooldeck.safety.rules.base import RuleSet, options
from tooldeck.safety.sql import destructive_statement

rules = RuleSet("database_destruction")

_SQL_OPTION = {
    "psql": ("-c", "--command"),
    "mysql": ("-e", "--execute"),
    "mariadb": ("-e", "--execute"),
    "clickhouse-client": ("-q", "--query"),
    "cockroach": ("-e", "--execute"),
    "duckdb": ("-c",),
    "sqlcmd": ("-Q", "-q"),
    "cqlsh": ("-e", "--execute"),
    "snowsql": ("-q", "--query"),
    "usql": ("-c", "--command"),
}
_VALUE_OPTIONS = frozenset(
    [
        "-d",
        "-U",
        "-h",
        "-p",
        "-u",
        "-P",
        "-D",
        "-H",
        "-f",
        "--host",
        "--port",
        "--user",
        "--dbname",
        "--database",
        "-init",
        "-cmd",
        "-separator",
    ]
)


def sql_texts(inv: Invocation) -> list[str]:
    """SQL an invocation sends: from its query option, sqlite3's argument, or standard input."""
    texts: list[str] = []
    if inv.name in _SQL_OPTION:
        flags = _SQL_OPTION[inv.name]
        words = inv.arg_texts()
        for i, word in enumerate(words):
            if word in flags and i + 1 < len(words):
                texts.append(words[i + 1])
            elif any(word.startswith(f + "=") for f in flags if f.startswith("--")):
                texts.append(word.split("=", 1)[1])
            elif any(word.startswith(f) and len(word) > len(f) for f in flags if not f.startswith("--")):
                texts.append(word[2:])
    elif inv.name in ("sqlite3", "sqlite"):
        operands = options(inv, _VALUE_OPTIONS).operands
        if operands and operands[0].text == ":memory:":
            return []
        texts += [o.text for o in operands[1:]]
    if inv.name in (*_SQL_OPTION, "sqlite3", "sqlite") and inv.data.text is not None and not texts:
        texts.append(inv.data.text)
    return texts


@rules.rule("sql-destructive", "approve", "DROP, TRUNCATE, or DELETE/UPDATE without an effective WHERE")
def _sql(inv: Invocation) -> str | None:
    for text in sql_texts(inv):
        statement = destructive_statement(text)
        if statement:
            return f"{inv.name} runs `{statement[:80]}`"
    return None


@rules.rule("redis-flush", "approve", "empties a Redis (or compatible) database with FLUSHALL/FLUSHDB")
def _redis(inv: Invocation) -> str | None:
    if inv.name not in ("redis-cli", "keydb-cli", "valkey-cli", "dragonfly-cli"):
        return None
    words = [w.upper() for w in inv.arg_texts()]
    stdin = (inv.data.text or "").upper()
    if {"FLUSHALL", "FLUSHDB"} & set(words) or re.search(r"\bFLUSH(ALL|DB)\b", stdin):
        return f"{inv.name} empties the database"
    return None


_MONGO_DROP = re.compile(
    r"dropDatabase\s*\(|\.drop\s*\(|\.(deleteMany|remove)\s*\(\s*\{\s*\}\s*\)|drop_database"
)


@rules.rule("mongo-drop", "approve", "drops a MongoDB database or collection, or deletes every document")
def _mongo(inv: Invocation) -> str | None:
    if inv.name not in ("mongo", "mongosh"):
        return None
    code = " ".join(inv.arg_texts()) + " " + (inv.data.text or "")
    match = _MONGO_DROP.search(code)
    return f"{inv.name} runs {match.group(0)}" if match else None


@rules.rule("drop-database-tool", "approve", "drops a whole database (dropdb, mysqladmin drop)")
def _dropdb(inv: Invocation) -> str | None:
    words = inv.arg_texts()
    if inv.name == "dropdb" and not {"--help", "-?", "--version"} & set(words):
        return f"dropdb {' '.join(words)} deletes a database"
    if inv.name == "mysqladmin" and any(w.lower() == "drop" for w in words):
        return "mysqladmin drop deletes a database"
    return None


@rules.rule("http-index-delete", "approve", "deletes Elasticsearch/OpenSearch indices over HTTP")
def _http_delete(inv: Invocation) -> str | None:
    words = inv.arg_texts()
    method = options(inv).value("-X", "--request")
    if (inv.name == "curl" and method and method.upper() == "DELETE") or (
        inv.name in ("http", "xh") and "DELETE" in words
    ):
        urls = [w for w in words if re.search(r"https?://|localhost|:\d{2,5}", w)]
        if any(re.search(r":9200|/_all\b|\*|/_data_stream", u) for u in urls):
            return f"HTTP DELETE of {urls[0]}"
    return None


_FRAMEWORK = re.compile(
    r"(manage\.py|django-admin)\s+(flush|reset_db|sqlflush)"
    r"|\b(rails|rake)\s+db:(drop|reset|purge|schema:load|truncate_all)"
    r"|artisan\s+(migrate:fresh|migrate:reset|db:wipe)"
    r"|sequelize(-cli)?\s+db:drop|knex\s+migrate:rollback\s+.*--all|alembic\s+downgrade\s+base"
)


@rules.rule("framework-db-reset", "approve", "a framework command that flushes, drops or resets the database")
def _framework(inv: Invocation) -> str | None:
    words = [inv.argv[0].text.rsplit("/", 1)[-1], *inv.arg_texts()]
    match = _FRAMEWORK.search(" ".join(words))
    return f"{match.group(0)} deletes the application's data" if match else None
