"""Credential exfiltration: keys, cloud credentials, .env files or the environment sent off the host."""

from __future__ import annotations

import re

from tooldeck.safety.flows import output_of
from tooldeck.safety.model import SECRET, Field, Invocation
from tooldeck.safety.paths import is_secret
from tooldeck.safety.rules.base import RuleSet

rules = RuleSet("secret_exfiltration")

SINKS = frozenset(
    [
        "curl",
        "wget",
        "nc",
        "ncat",
        "netcat",
        "socat",
        "telnet",
        "scp",
        "sftp",
        "rsync",
        "ftp",
        "tftp",
        "ssh",
        "sendmail",
        "mail",
        "mailx",
        "mutt",
        "http",
        "https",
        "xh",
        "smbclient",
        "lftp",
        "aws",
        "gsutil",
        "gcloud",
        "az",
        "rclone",
        "s3cmd",
        "mc",
        "openssl",
    ]
)
_REMOTE = re.compile(r"^([\w.+-]+@)?[\w.-]+:(?!//)|^(s3|gs|az|ftp|sftp|scp|rsync|https?)://")


def _secret_arg(arg: Field, cwd: str | None) -> bool:
    if SECRET in arg.taint:
        return True
    return any(part and is_secret(part, cwd) for part in re.split(r"[=@,;]", arg.text))


@rules.rule("send-secrets", "approve", "sends keys, credentials or the environment over the network")
def _send(inv: Invocation) -> str | None:
    if inv.name not in SINKS:
        return None
    if SECRET in inv.data.taint:
        return f"{inv.name} sends data read from credentials or the environment"
    secret_args = [a for a in inv.args if _secret_arg(a, inv.cwd)]
    if not secret_args:
        return None
    copier = inv.name in ("scp", "rsync", "sftp", "aws", "gsutil", "gcloud", "az", "rclone", "s3cmd", "mc")
    if copier and not any(_REMOTE.search(a.text) for a in inv.args):
        return None
    return f"{inv.name} uploads {secret_args[0].shown()[:80]}"


@rules.rule(
    "send-secrets-socket", "approve", "writes credentials or the environment into a network socket (/dev/tcp)"
)
def _socket(inv: Invocation) -> str | None:
    for redirect in inv.redirects:
        socket = redirect.writes and redirect.target.text.startswith(("/dev/tcp/", "/dev/udp/"))
        if socket and (SECRET in output_of(inv).taint or SECRET in inv.data.taint):
            return f"{inv.name} writes secrets to {redirect.target.text}"
    return None


rules.signal(
    "interpreter-exfiltration",
    "approve",
    "interpreter code that sends the environment or key files over the network",
)
