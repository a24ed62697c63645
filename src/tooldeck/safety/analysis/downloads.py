"""Folders whose files came from the network: an archive unpacked from a download
(`curl ... | tar xz`, `unzip fetched.zip`) or a repository cloned from a remote (`git clone URL`).
A program run from there is downloaded code, as a script fetched with `curl -o` would be."""

from __future__ import annotations

import re

from tooldeck.safety.analysis.argv import options
from tooldeck.safety.analysis.model import NETWORK, Invocation


def downloaded_tree(inv: Invocation) -> str | None:
    """The folder `inv` fills with files from the network, or None."""
    if inv.name == "tar":
        return _tar_tree(inv)
    if inv.name == "unzip":
        opts = options(inv, frozenset({"-d", "-x", "-P"}))
        archive = opts.operands[0] if opts.operands else None
        if archive is not None and NETWORK in archive.taint:
            return opts.value("-d") or "."
        return None
    if inv.name == "git":
        return _clone_tree(inv)
    return None


def _tar_tree(inv: Invocation) -> str | None:
    words = inv.arg_texts()
    first = words[0] if words else ""
    extracts = any(w in ("-x", "--extract", "--get") for w in words) or bool(
        re.fullmatch(r"-?[a-zA-Z]*x[a-zA-Z]*", first)
    )
    if not extracts:
        return None
    archive = [a for i, a in enumerate(inv.args) if i > 0 and words[i - 1] in ("-f", "--file")]
    from_network = (
        NETWORK in inv.data.taint if not archive or archive[0].text == "-" else NETWORK in archive[0].taint
    )
    if not from_network:
        return None
    directory = [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-C", "--directory")]
    directory += [w.split("=", 1)[1] for w in words if w.startswith("--directory=")]
    return directory[0] if directory else "."


def _clone_tree(inv: Invocation) -> str | None:
    words = inv.arg_texts()
    if "clone" not in words[:4]:
        return None
    rest = words[words.index("clone") + 1 :]
    takes_value = {
        "-b",
        "--branch",
        "-o",
        "--origin",
        "--depth",
        "-c",
        "--config",
        "--reference",
        "-j",
        "--jobs",
    }
    operands: list[str] = []
    skip = False
    for word in rest:
        if skip:
            skip = False
        elif word in takes_value:
            skip = True
        elif not word.startswith("-"):
            operands.append(word)
    if not operands or not re.match(r"(?:https?|git|ssh)://|[\w.-]+@[\w.-]+:", operands[0]):
        return None
    if len(operands) > 1:
        return operands[1]
    return operands[0].rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1].removesuffix(".git") or None
