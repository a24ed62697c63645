"""Files that configure a client program (ssh, curl, wget, npm, yarn, pip, twine, cargo, gem,
conda) and the text a command writes into a file: what the trust and registry rules read."""

from __future__ import annotations

from tooldeck.safety.analysis.flows import output_of
from tooldeck.safety.analysis.model import Invocation
from tooldeck.safety.analysis.sed_script import sed_scripts


def config_file_tool(shown: str) -> str | None:
    """Which program's configuration a path is (`~/.curlrc`, `./.npmrc`, `~/.cargo/config.toml`)."""
    name = shown.rsplit("/", 1)[-1]
    if shown in ("~/.ssh/config", "/etc/ssh/ssh_config") or shown.startswith("/etc/ssh/ssh_config.d/"):
        return "ssh"
    if name in (".curlrc", "curlrc"):
        return "curlrc"
    if name in (".wgetrc", "wgetrc"):
        return "wgetrc"
    if name == ".npmrc" or shown.endswith("/etc/npmrc"):
        return "npmrc"
    if name in (".yarnrc", ".yarnrc.yml"):
        return "yarnrc"
    if name == ".condarc":
        return "condarc"
    if name in ("pip.conf", "pip.ini"):
        return "pip"
    if name == ".pypirc":
        return "pypirc"
    if name in ("config", "config.toml") and "/.cargo/" in f"/{shown}":
        return "cargo"
    if name == ".gemrc":
        return "gem"
    return None


def written_text(inv: Invocation) -> str:
    """The text a command writes into its files: tee's input, sed's scripts, a redirect's output."""
    if inv.name == "tee":
        return inv.data.text or ""
    if inv.name in ("sed", "gsed"):
        return "\n".join(s.text for s in sed_scripts(inv))
    return output_of(inv).text or ""
