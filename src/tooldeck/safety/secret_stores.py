"""Commands that print secrets out of a secret store: what they write is as secret as a key file."""

from __future__ import annotations

from tooldeck.safety.model import Invocation

# The words that start a read of secret values (after the program's global options).
_READS: tuple[tuple[str, ...], ...] = (
    ("kubectl", "get", "secret"),
    ("kubectl", "get", "secrets"),
    ("kubectl", "get", "secret/"),
    ("oc", "get", "secret"),
    ("oc", "get", "secrets"),
    ("aws", "secretsmanager", "get-secret-value"),
    ("aws", "ssm", "get-parameter"),
    ("aws", "ssm", "get-parameters"),
    ("aws", "ssm", "get-parameters-by-path"),
    ("aws", "sts", "get-session-token"),
    ("aws", "configure", "export-credentials"),
    ("gcloud", "secrets", "versions", "access"),
    ("gcloud", "auth", "print-access-token"),
    ("az", "keyvault", "secret", "show"),
    ("az", "account", "get-access-token"),
    ("vault", "kv", "get"),
    ("vault", "read"),
    ("gh", "auth", "token"),
    ("op", "read"),
    ("op", "item", "get"),
    ("pass", "show"),
    ("doppler", "secrets"),
    ("heroku", "config"),
    ("security", "find-generic-password"),
    ("security", "find-internet-password"),
)
_PROGRAMS = frozenset(words[0] for words in _READS)
# Global options that take a value before the subcommand (`kubectl -n prod get secret`).
_VALUED = frozenset(
    {"-n", "--namespace", "--context", "--profile", "--region", "--project", "-o", "--output"}
)


def prints_secrets(inv: Invocation) -> bool:
    """Whether `inv` writes secret values to its standard output."""
    if inv.name not in _PROGRAMS:
        return False
    words: list[str] = []
    texts = inv.arg_texts()
    i = 0
    while i < len(texts):
        if texts[i] in _VALUED:
            i += 2
            continue
        if not texts[i].startswith("-"):
            words.append(texts[i])
        i += 1
    command = (inv.name, *words)
    for prefix in _READS:
        head = command[: len(prefix)]
        if head == prefix or (
            prefix[-1].endswith("/") and head[:-1] == prefix[:-1] and head[-1].startswith(prefix[-1])
        ):
            return True
    return False
