"""Lasting settings that change where tools fetch from, or stop them checking what they fetch:
git's `url.*.insteadOf` and proxies, TLS and host-key verification turned off (git, npm, conda,
Go's checksum database, ssh's StrictHostKeyChecking, curlrc/wgetrc), and the same lines written
into those tools' configuration files. Every later clone, install or connection is then open to
whoever runs the other end; nothing on the screen says so."""

from __future__ import annotations

import re

from tooldeck.safety.analysis.effects import written_files
from tooldeck.safety.analysis.model import Invocation
from tooldeck.safety.analysis.paths import resolve
from tooldeck.safety.knowledge.config_targets import config_file_tool, written_text
from tooldeck.safety.knowledge.rules.base import RuleSet

rules = RuleSet("config_tampering")

_FALSE = frozenset({"false", "0", "no", "off"})
# `git config` options that take a value of their own, before the key.
_GIT_CONFIG_VALUE_OPTIONS = frozenset({"-f", "--file", "--blob", "--type", "--default", "--comment"})


def git_config_setting(inv: Invocation) -> tuple[str, str] | None:
    """(key, value) that `git config [--global] KEY VALUE` or `git config set KEY VALUE` sets."""
    if inv.name != "git":
        return None
    words = inv.arg_texts()
    if "config" not in words[:5]:
        return None
    rest = words[words.index("config") + 1 :]
    operands: list[str] = []
    i = 0
    while i < len(rest):
        word = rest[i]
        if word in (
            "--unset",
            "--unset-all",
            "--get",
            "--get-all",
            "--list",
            "-l",
            "--remove-section",
            "unset",
        ):
            return None
        if word in _GIT_CONFIG_VALUE_OPTIONS:
            i += 2
            continue
        if not word.startswith("-") or operands:
            operands.append(word)
        i += 1
    if operands[:1] == ["set"]:
        operands = operands[1:]
    if len(operands) < 2:
        return None
    return operands[0].lower(), operands[1]


def _package_config_setting(inv: Invocation) -> tuple[str, str] | None:
    """(key, value) of `npm/pnpm/yarn config set KEY VALUE`, `go env -w KEY=VALUE`,
    `conda config --set KEY VALUE` / `--add channels URL`."""
    words = [
        w for w in inv.arg_texts() if w not in ("--global", "-g", "--location=global", "--location=user")
    ]
    if inv.name in ("npm", "pnpm", "yarn", "bun") and words[:2] == ["config", "set"]:
        rest = words[2:]
        if len(rest) == 1 and "=" in rest[0]:
            rest = rest[0].split("=", 1)
        return (rest[0].lower(), rest[1]) if len(rest) >= 2 else None
    if inv.name == "go" and words[:2] == ["env", "-w"] and len(words) > 2 and "=" in words[2]:
        key, value = words[2].split("=", 1)
        return key, value
    if inv.name in ("conda", "mamba", "micromamba") and words[:1] == ["config"]:
        for i, word in enumerate(words[:-2]):
            if word == "--set":
                return words[i + 1].lower(), words[i + 2]
            if word in ("--add", "--append", "--prepend") and words[i + 1] in (
                "channels",
                "default_channels",
            ):
                return "channels", words[i + 2]
    return None


_OFFICIAL_GOPROXY = re.compile(
    r"(?:https://proxy\.golang\.org|direct|off)(?:[,|](?:https://proxy\.golang\.org|direct|off))*"
)


@rules.rule(
    "redirect-fetch-source",
    "approve",
    "makes a tool fetch from somewhere else from now on (git url.*.insteadOf, http.proxy, GOPROXY, conda channels)",
)
def _redirect(inv: Invocation) -> str | None:
    git = git_config_setting(inv)
    if git is not None:
        key, value = git
        rewrite = re.fullmatch(r"url\.(.+)\.(?:push)?insteadof", key)
        if rewrite is not None and _host(rewrite.group(1)) != _host(value):
            return f"git config {key} {value[:60]}: every later clone, fetch or push of those URLs goes elsewhere"
        if re.fullmatch(r"(?:https?(?:\..+)?\.proxy|core\.gitproxy)", key) and value:
            return f"git config {key} {value[:60]}: every later fetch and push passes through that proxy"
        return None
    setting = _package_config_setting(inv)
    if setting is None:
        return None
    key, value = setting
    if inv.name in ("npm", "pnpm", "yarn", "bun") and key in (
        "proxy",
        "https-proxy",
        "httpproxy",
        "httpsproxy",
    ):
        return f"{inv.name} config sets {key} to {value[:60]}: every later install passes through it"
    if inv.name == "go" and key == "GOPROXY" and not _OFFICIAL_GOPROXY.fullmatch(value.strip("'\"")):
        return f"go env -w GOPROXY={value[:60]}: every later module download comes from there"
    if key in ("channels", "channel_alias") and re.match(r"(?:https?|ftp)://", value):
        return f"{inv.name} config adds {value[:60]}: later installs may come from there"
    return None


def _host(url: str) -> str:
    """The host a git URL names: `git@github.com:`, `https://tok@github.com/`, `ssh://github.com/x`."""
    text = url.strip("'\"").lower()
    text = re.sub(r"^[a-z][a-z0-9+.-]*://", "", text)
    text = text.rsplit("@", 1)[-1] if "@" in text.split("/", 1)[0] else text
    return re.split(r"[:/]", text, maxsplit=1)[0]


# Client settings that stop checking a server's certificate or host key.
_SSH_TRUST_OFF = re.compile(
    r"(?im)^\s*(?:stricthostkeychecking\s*[= ]\s*(?:no|off)|userknownhostsfile\s*[= ]\s*/dev/null)\b"
)
_SSH_OPTION_OFF = re.compile(
    r"(?i)stricthostkeychecking\s*[= ]\s*(?:no|off)|userknownhostsfile\s*[= ]\s*/dev/null"
)
_INSECURE_LINES = {
    "curlrc": re.compile(r"(?im)^\s*(?:-k|--insecure|insecure)\s*$"),
    "wgetrc": re.compile(r"(?im)^\s*check[_-]certificate\s*=\s*(?:off|0|no|false)\b"),
    "npmrc": re.compile(r"(?im)^\s*strict-ssl\s*=\s*(?:false|0)\b"),
    "yarnrc": re.compile(r"(?im)^\s*(?:strict-ssl|enableStrictSsl)\s*[:= ]\s*[\"']?(?:false|0)\b"),
    "condarc": re.compile(r"(?im)^\s*ssl_verify\s*:\s*(?:false|no)\b"),
    "pip": re.compile(r"(?im)^\s*trusted-host\s*="),
}


@rules.rule(
    "disable-verification",
    "approve",
    "turns off TLS or host-key checking for a tool from now on (git http.sslVerify false, "
    "npm strict-ssl false, GOSUMDB=off, StrictHostKeyChecking no in ~/.ssh/config)",
)
def _verification(inv: Invocation) -> str | None:
    git = git_config_setting(inv)
    if git is not None:
        key, value = git
        if re.fullmatch(r"http(?:\..+)?\.sslverify", key) and value.lower() in _FALSE:
            return f"git config {key} {value}: later fetches accept any server certificate"
        if key == "core.sshcommand" and _SSH_OPTION_OFF.search(value):
            return "git config core.sshCommand turns ssh host-key checking off for every git remote"
        if key == "safe.directory" and value.strip("'\"") == "*":
            return "git config safe.directory '*' trusts the config and hooks of every repository on disk"
        return None
    setting = _package_config_setting(inv)
    if setting is not None:
        key, value = setting
        if key in ("strict-ssl", "strictssl", "enablestrictssl", "ssl_verify") and value.lower() in _FALSE:
            return f"{inv.name} config sets {key} to {value}: later downloads accept any certificate"
        if inv.name == "go" and (
            (key == "GOSUMDB" and value == "off")
            or key in ("GONOSUMDB", "GONOSUMCHECK", "GOINSECURE")
            or (key in ("GOPRIVATE", "GONOPROXY") and value.strip("'\"") in ("*", "*/*"))
            or (key == "GOFLAGS" and "-insecure" in value)
        ):
            return f"go env -w {key}={value[:40]}: later module downloads are no longer verified"
        return None
    text = written_text(inv)
    for target, kind in written_files(inv):
        shown = resolve(target.text, inv.cwd).shown()
        tool = config_file_tool(shown)
        ssh_off = _SSH_OPTION_OFF if inv.name in ("sed", "gsed") else _SSH_TRUST_OFF
        if tool == "ssh" and ssh_off.search(text):
            return (
                f"{inv.name} {kind}s {shown}: ssh stops checking host keys (a man in the middle goes unseen)"
            )
        pattern = _INSECURE_LINES.get(tool or "")
        if pattern is not None and pattern.search(text):
            return (
                f"{inv.name} {kind}s {shown}: the tool stops checking certificates or hosts it fetches from"
            )
    return None
