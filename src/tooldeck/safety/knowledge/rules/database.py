"""Database destruction: DROP, TRUNCATE, DELETE/UPDATE without an effective WHERE, FLUSHALL,
dropDatabase, dropping indices over HTTP, and frameworks' flush/drop/reset commands."""

from __future__ import annotations

import re

from tooldeck.safety.analysis.model import Invocation
from tooldeck.safety.knowledge.rules.base import RuleSet, options
from tooldeck.safety.knowledge.sql import destructive_statement
from tooldeck.safety.knowledge.table import operands_of, programs, sql_of
from tooldeck.safety.knowledge.verbs import carried_verb_match

rules = RuleSet("database_destruction")


def sql_texts(inv: Invocation) -> list[str]:
    """SQL an invocation sends: from its query option, sqlite3's argument (the table's SQL clients),
    or standard input."""
    texts = sql_of(inv.name, inv.args)
    if inv.name in _SQL_CLIENTS and inv.data.text is not None and not texts:
        texts.append(inv.data.text)
    # A framework's database shell reads SQL from standard input (`manage.py dbshell <<< SQL`).
    words = inv.arg_texts()
    shell = "dbshell" in words[:2] or (inv.name == "rails" and words[:1] in (["dbconsole"], ["db"]))
    if shell and inv.data.text is not None and not texts:
        texts.append(inv.data.text)
    return texts


_SQL_CLIENTS = programs().in_class("sql-client")


@rules.rule("sql-destructive", "approve", "DROP, TRUNCATE, or DELETE/UPDATE without an effective WHERE")
def _sql(inv: Invocation) -> str | None:
    for text in sql_texts(inv):
        statement = destructive_statement(text)
        if statement:
            return f"{inv.name} runs `{statement[:80]}`"
    return None


_REDIS_CLIENTS = programs().in_class("key-value-client")


def _redis_commands(inv: Invocation) -> list[list[str]]:
    """The commands a redis client sends: its operands (past the values of its options, the
    table's), and each line of its standard input."""
    operands = operands_of(inv)
    commands = [operands] if operands else []
    commands += [line.split() for line in (inv.data.text or "").split("\n") if line.strip()]
    return commands


@rules.rule(
    "redis-flush",
    "approve",
    "empties a Redis (or compatible) database with FLUSHALL/FLUSHDB, also inside EVAL",
)
def _redis(inv: Invocation) -> str | None:
    if inv.name not in _REDIS_CLIENTS:
        return None
    text = " ".join(" ".join(c) for c in _redis_commands(inv))
    if re.search(r"(?i)\bflush(all|db)\b", text):
        return f"{inv.name} empties the database"
    return None


@rules.rule(
    "redis-destructive",
    "approve",
    "deletes Redis keys by pattern or by a list made at run time, moves its dump file (CONFIG SET dir) or shuts it down",
)
def _redis_other(inv: Invocation) -> str | None:
    if inv.name not in _REDIS_CLIENTS:
        return None
    exact = all(a.exact for a in inv.args)
    for command in _redis_commands(inv):
        verb = command[0].upper() if command else ""
        keys = command[1:]
        if verb in ("DEL", "UNLINK") and (any("*" in k for k in keys) or not exact):
            return f"{inv.name} {verb} deletes every key matching {' '.join(keys)[:60] or 'a list made at run time'}"
        if (
            verb == "CONFIG"
            and [k.upper() for k in keys[:1]] == ["SET"]
            and keys[1:2]
            and keys[1].lower() in ("dir", "dbfilename")
        ):
            return f"{inv.name} CONFIG SET {keys[1]} makes the server write its dump file elsewhere"
        if verb in ("SHUTDOWN", "DEBUG") or (verb == "SCRIPT" and [k.upper() for k in keys[:1]] == ["FLUSH"]):
            return f"{inv.name} {' '.join(command)[:60]} stops the server or drops its state"
    return None


_MONGO_DROP = re.compile(
    r"dropDatabase\s*\(|\.drop\s*\(|\.(deleteMany|remove)\s*\(\s*\{\s*\}\s*\)|drop_database"
)


_DOCUMENT_CLIENTS = programs().in_class("document-db-client")


@rules.rule("mongo-drop", "approve", "drops a MongoDB database or collection, or deletes every document")
def _mongo(inv: Invocation) -> str | None:
    if inv.name not in _DOCUMENT_CLIENTS:
        return None
    code = " ".join(inv.arg_texts()) + " " + (inv.data.text or "")
    match = _MONGO_DROP.search(code)
    return f"{inv.name} runs {match.group(0)}" if match else None


rules.declare("drop-database-tool", "approve", "drops a whole database (dropdb, mysqladmin drop)")


# Ports and names of the stores an HTTP DELETE drops data from: Elasticsearch/OpenSearch, CouchDB,
# InfluxDB, Consul, etcd, ArangoDB, Couchbase, Solr and the vector databases.
_STORE_PORTS = re.compile(r":(?:9200|9243|9300|5984|8086|8500|2379|8529|8091|8983|6333|19530|8108|7700)\b")
_STORE_NAMES = re.compile(
    r"(?i)elastic|opensearch|(?<![a-z])es(?![a-z])|solr|couch|qdrant|meili|typesense|weaviate|milvus|chroma"
    r"|consul|etcd|influx|kibana|arango"
)
_STORE_PATHS = re.compile(
    r"/_all\b|\*|/_data_stream|/_index_template|[?&]recurse|/_delete_by_query|/_truncate"
)


@rules.rule("http-index-delete", "approve", "deletes search indices or data-store contents over HTTP")
def _http_delete(inv: Invocation) -> str | None:
    words = inv.arg_texts()
    urls = [w for w in words if re.search(r"https?://|localhost|:\d{2,5}\b|^\$\{?\w+", w)]
    if any("_delete_by_query" in u for u in urls):
        return f"HTTP delete-by-query on {urls[0]}"
    method = None
    if inv.name == "curl":
        method = options(inv).value("-X", "--request")
    elif inv.name == "wget":
        method = options(inv).value("--method")
    elif inv.name in ("http", "https", "xh"):
        method = next((w for w in words if w.upper() == "DELETE"), None)
    if not method or method.upper() != "DELETE":
        return None
    for url in urls:
        host = url.split("://", 1)[1] if "://" in url else url
        host = host.split("/", 1)[0]
        if _STORE_PORTS.search(url) or _STORE_NAMES.search(host) or _STORE_PATHS.search(url):
            return f"HTTP DELETE of {url}"
    return None


rules.declare(
    "kv-store-wipe",
    "approve",
    "deletes a tree of keys or secrets: etcdctl del --prefix, consul kv delete -recurse, vault secrets disable",
)


# An explicit test environment: the test database is rebuilt for every run.
_TEST_ENV = re.compile(
    r"(?i)(RAILS_ENV|RACK_ENV|MIX_ENV|APP_ENV|FLASK_ENV|NODE_ENV|DJANGO_ENV|ENV)=(test|testing)"
)
_TEST_OPTION = re.compile(r"(?i)--env(=|\s+)(test|testing)\b|--settings[= ]\S*test|-e\s+test\b")


def _test_environment(inv: Invocation, command: str) -> bool:
    if re.search(r"DISABLE_DATABASE_ENVIRONMENT_CHECK=1", command):
        return False
    assigned = " ".join(f"{key}={value.text}" for key, value in inv.env)
    return bool(_TEST_ENV.search(assigned) or _TEST_ENV.search(command) or _TEST_OPTION.search(command))


@rules.rule("framework-db-reset", "approve", "a framework command that flushes, drops or resets the database")
def _framework(inv: Invocation) -> str | None:
    # The commands are verbs (verbs.toml, resets-database), also carried by another program.
    why = carried_verb_match("resets-database", inv)
    if why is None or _test_environment(inv, " ".join([inv.name, *inv.arg_texts()])):
        return None
    return why
