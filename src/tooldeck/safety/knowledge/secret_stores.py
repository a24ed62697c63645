"""Commands that print secrets out of a secret store: what they write is as secret as a key file."""

from __future__ import annotations

from tooldeck.safety.analysis.argv import word_operands
from tooldeck.safety.analysis.model import Invocation
from tooldeck.safety.knowledge.credential_names import credential_names

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
    ("security", "dump-keychain"),
    ("aws", "configure", "get"),
    ("aws", "ecr", "get-login-password"),
    ("aws", "codeartifact", "get-authorization-token"),
    ("gcloud", "auth", "print-identity-token"),
    ("gcloud", "auth", "application-default", "print-access-token"),
    ("secret-tool", "lookup"),
    ("keyring", "get"),
    ("git", "credential", "fill"),
    ("docker-credential-desktop", "get"),
    ("docker-credential-pass", "get"),
    ("docker-credential-secretservice", "get"),
    ("docker-credential-osxkeychain", "get"),
    ("ansible-vault", "view"),
    ("ansible-vault", "decrypt"),
    ("bw", "get"),
    ("lpass", "show"),
)
_PROGRAMS = frozenset(words[0] for words in _READS)
# Global options that take a value before the subcommand (`kubectl -n prod get secret`).
_VALUED = frozenset(
    {"-n", "--namespace", "--context", "--profile", "--region", "--project", "-o", "--output"}
)


def prints_secrets(inv: Invocation) -> bool:
    """Whether `inv` writes secret values to its standard output."""
    words = inv.arg_texts()
    if inv.name in ("kubectl", "oc") and "view" in words and "config" in words and "--raw" in words:
        return True
    if inv.name == "sops" and any(w in ("-d", "--decrypt") for w in words):
        return True
    if inv.name == "printenv":
        return any(credential_names("$" + a.text) for a in inv.args if not a.text.startswith("-"))
    if inv.name not in _PROGRAMS:
        return False
    command = (inv.name, *word_operands(inv.arg_texts(), _VALUED))
    for prefix in _READS:
        head = command[: len(prefix)]
        if head == prefix or (
            prefix[-1].endswith("/") and head[:-1] == prefix[:-1] and head[-1].startswith(prefix[-1])
        ):
            return True
    return False
