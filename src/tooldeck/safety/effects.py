"""Files an invocation writes or empties: redirections, tee, cp/mv/install/ln targets, sed -i,
dd of=, truncate, shred, and deletions. Rules about configuration and logs read these."""

from __future__ import annotations

import re
from typing import Literal

from tooldeck.safety.argv import options
from tooldeck.safety.model import Field, Invocation
from tooldeck.safety.sed_script import sed_effects, sed_scripts

WriteKind = Literal["append", "overwrite", "edit", "replace", "empty"]
_NULL_SOURCES = frozenset({"/dev/null", "/dev/zero"})


def written_files(inv: Invocation) -> list[tuple[Field, WriteKind]]:
    """Every file `inv` writes, and how."""
    out: list[tuple[Field, WriteKind]] = [
        (r.target, "append" if r.op in (">>", "&>>") else "overwrite") for r in inv.redirects if r.writes
    ]
    name = inv.name
    if name == "tee":
        opts = options(inv)
        kind: WriteKind = "append" if opts.has("-a", "--append") else "overwrite"
        out += [(f, kind) for f in opts.operands]
    elif name in ("cp", "mv", "install", "ln", "rsync", "scp"):
        opts = options(
            inv, frozenset({"-t", "--target-directory", "-m", "--mode", "-o", "-g", "-S", "--suffix"})
        )
        directory = opts.value("-t", "--target-directory")
        operands = list(opts.operands)
        if directory is not None:
            out.append((Field(directory), "replace"))
        elif len(operands) >= 2:
            source = operands[0].text
            out.append((operands[-1], "empty" if source in _NULL_SOURCES else "replace"))
    elif name in ("sed", "perl") and any(
        re.fullmatch(r"-[a-zA-Z]*i.*|--in-place(=.*)?", a.text) for a in inv.args
    ):
        edited = options(inv, frozenset({"-e", "-f", "--expression", "--file"})).operands
        explicit_script = any(a.text in ("-e", "--expression", "-f") for a in inv.args) or name == "perl"
        out += [(f, "edit") for f in (edited if explicit_script else edited[1:])]
    if name in ("sed", "gsed"):
        out += [
            (Field(path), "overwrite")
            for script in sed_scripts(inv)
            for path in sed_effects(script.text).writes
        ]
    if name == "dd":
        out += [(Field(a.text[3:], a.exact), "overwrite") for a in inv.args if a.text.startswith("of=")]
    elif name == "truncate":
        out += [(f, "empty") for f in options(inv, frozenset({"-s", "--size", "-r", "--reference"})).operands]
    return out


def emptied_files(inv: Invocation) -> list[Field]:
    """Files whose content `inv` destroys: deleted, shredded, truncated, overwritten, linked to /dev/null."""
    name = inv.name
    out = [f for f, kind in written_files(inv) if kind in ("overwrite", "empty", "edit")]
    if name in ("rm", "unlink", "shred", "srm", "wipe"):
        out += options(inv, frozenset({"-n", "--iterations", "-s", "--size"})).operands
    elif name == "ln" and any(a.text == "/dev/null" for a in inv.args):
        out += list(options(inv).operands[1:])
    elif name == "mv":
        out += list(options(inv).operands[:-1])
    return out
