"""Credentials held in environment variables, and the services they belong to.

`$AWS_SECRET_ACCESS_KEY`, `$GITHUB_TOKEN`, `${OPENAI_API_KEY}`: a variable whose name says it holds
a secret. Most such names start with the service that issued the secret; a token sent to its own
service (`$GITHUB_TOKEN` to api.github.com) is how it is meant to be used, one sent anywhere else
is a leak. Names that name no service (`$TOKEN`, `$DB_PASSWORD`) cannot be judged by host, only by
where they go: a loopback address is harmless, a raw public address or a capture service is not.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from tooldeck.safety.analysis.model import SECRET, Field, Taint

_REFERENCE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
_SECRET_WORD = re.compile(
    r"(?i)(?:^|_)(?:SECRET|TOKEN|PASSWORD|PASSWD|PASS|PWD|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIALS?"
    r"|AUTH|PAT|SESSION_?KEY|SIGNING_?KEY|CLIENT_?SECRET|WEBHOOK_?URL|DSN|CONNECTION_?STRING)(?:_|$)"
)
# Names that look secret but are not (`$PWD` is the working directory; `$PASSWORD_FILE` a path).
_NOT_SECRET = re.compile(r"(?i)^(?:PWD|OLDPWD|.*_(?:FILE|PATH|DIR|URL_FILE|LENGTH|LEN|MIN|MAX|ID))$")
# Leading words that name no service.
_GENERIC = frozenset(
    {
        "API",
        "AUTH",
        "ACCESS",
        "SECRET",
        "PRIVATE",
        "CLIENT",
        "APP",
        "DB",
        "DATABASE",
        "BEARER",
        "JWT",
        "SESSION",
        "MASTER",
        "ADMIN",
        "USER",
        "SERVICE",
        "TOKEN",
        "PASSWORD",
        "PASS",
        "PASSWD",
        "KEY",
        "MY",
        "PROD",
        "PRODUCTION",
        "STAGING",
        "DEV",
        "TEST",
        "LOCAL",
        "REFRESH",
        "WEBHOOK",
        "SIGNING",
        "ENCRYPTION",
        "ROOT",
        "DEPLOY",
        "CI",
        "BOT",
        "PERSONAL",
        "REMOTE",
        "SERVER",
        "BACKEND",
        "INTERNAL",
        "SHARED",
        "SMTP",
        "MAIL",
        "REDIS",
        "POSTGRES",
        "PG",
        "MYSQL",
        "MONGO",
        "REGISTRY",
        "VAULT",
    }
)
# Services whose names do not appear in their hosts, or appear shortened.
_HOSTS_OF: dict[str, tuple[str, ...]] = {
    "GH": ("github", "ghcr.io"),
    "GITHUB": ("github", "ghcr.io"),
    "HF": ("huggingface", "hf.co"),
    "HUGGINGFACE": ("huggingface", "hf.co"),
    "CF": ("cloudflare",),
    "CLOUDFLARE": ("cloudflare", "workers.dev"),
    "DO": ("digitalocean",),
    "DIGITALOCEAN": ("digitalocean",),
    "GCP": ("googleapis", "google"),
    "GOOGLE": ("googleapis", "google"),
    "GCLOUD": ("googleapis", "google"),
    "FIREBASE": ("googleapis", "firebase"),
    "AZURE": ("azure", "windows.net", "microsoft", "visualstudio"),
    "AWS": ("amazonaws", "aws"),
    "NPM": ("npmjs",),
    "PYPI": ("pypi", "pythonhosted"),
    "TWINE": ("pypi", "pythonhosted"),
    "DOCKER": ("docker",),
    "DOCKERHUB": ("docker",),
    "CI_JOB": ("gitlab",),
    "GITLAB": ("gitlab",),
    "GL": ("gitlab",),
    "DD": ("datadoghq",),
    "DATADOG": ("datadoghq",),
    "SLACK": ("slack",),
    "OPENAI": ("openai",),
    "ANTHROPIC": ("anthropic", "claude"),
    "CODECOV": ("codecov",),
    "CARGO": ("crates.io",),
    "CRATES": ("crates.io",),
    "RUBYGEMS": ("rubygems",),
    "GEM": ("rubygems",),
    "NUGET": ("nuget",),
    "TF": ("terraform", "hashicorp"),
    "TFE": ("terraform", "hashicorp"),
    "HCP": ("hashicorp",),
    "SNYK": ("snyk",),
    "SONAR": ("sonarcloud", "sonarqube", "sonar"),
    "JFROG": ("jfrog",),
    "ARTIFACTORY": ("jfrog", "artifactory"),
}
# Hosts that exist to collect what is sent to them.
_CAPTURE_HOSTS = re.compile(
    r"(?i)(?:^|\.)(?:webhook\.site|requestbin\.\w+|pipedream\.net|ngrok(?:-free)?\.(?:io|app|dev)"
    r"|burpcollaborator\.net|oast\.\w+|interact\.sh|interactsh\.com|transfer\.sh|beeceptor\.com"
    r"|hookbin\.com|requestcatcher\.com|pastebin\.com|termbin\.com|0x0\.st|canarytokens\.com"
    r"|trycloudflare\.com|serveo\.net|localtunnel\.me|loca\.lt)$"
)


def credential_names(text: str) -> list[str]:
    """The credential variables `text` refers to (`$GITHUB_TOKEN`, `${AWS_SECRET_ACCESS_KEY}`)."""
    out: list[str] = []
    for match in _REFERENCE.finditer(text):
        name = match.group(1)
        if _SECRET_WORD.search(name) and not _NOT_SECRET.fullmatch(name):
            out.append(name)
    return out


def credential_taint(field: Field) -> frozenset[Taint]:
    """`{SECRET}` for a word computed from a credential variable, else nothing."""
    return frozenset({SECRET}) if not field.exact and credential_names(field.text) else frozenset()


def service_of(name: str) -> tuple[str, ...] | None:
    """Host fragments of the service a credential variable belongs to; None when it names none."""
    words = name.upper().split("_")
    for length in (2, 1):
        head = "_".join(words[:length])
        if len(words) > length and head in _HOSTS_OF:
            return _HOSTS_OF[head]
    first = words[0]
    if first in _GENERIC or len(first) < 3 or not first.isalpha():
        return None
    return (first.lower(),)


def host_of(word: str) -> str | None:
    """The host a word addresses: a URL's host, `user@host:path`, or a bare host name."""
    text = word.strip("'\"")
    if "://" in text:
        try:
            host = urlsplit(text).hostname
        except ValueError:
            return None
        return host.lower() if host else None
    match = re.fullmatch(r"(?:[\w.+-]+@)?(\[[0-9a-fA-F:]+\]|[\w.-]+)(?::.*)?", text)
    if match is None:
        return None
    host = match.group(1).strip("[]").lower()
    return host if "." in host or ":" in host or host == "localhost" else None


_LAN = tuple(ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"))


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def is_loopback(host: str) -> bool:
    """This machine (or a container's view of it): nothing sent there leaves the host."""
    if host in ("localhost", "host.docker.internal") or host.endswith(".localhost"):
        return True
    address = _address(host)
    return address is not None and (address.is_loopback or address.is_unspecified)


def _is_lan(host: str) -> bool:
    address = _address(host)
    if address is None:
        return host.endswith((".local", ".internal", ".lan", ".home.arpa"))
    return address.is_link_local or any(address in net for net in _LAN)


def is_capture_host(host: str) -> bool:
    """A raw address outside the local network, or a service that exists to collect what it is sent.
    (The documentation ranges, 192.0.2.0/24 and the like, count as outside: they stand for any host.)"""
    if _CAPTURE_HOSTS.search(host):
        return True
    return _address(host) is not None and not is_loopback(host) and not _is_lan(host)


def leaked_to(name: str, hosts: list[str]) -> str | None:
    """The first host a credential variable is sent to that is not its own service's, or None."""
    service = service_of(name)
    for host in hosts:
        if is_loopback(host) or (service is None and _is_lan(host)):
            continue
        if service is None:
            if is_capture_host(host):
                return host
            continue
        if not any(fragment in host for fragment in service):
            return host
    return None
