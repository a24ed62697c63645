"""Files an invocation writes or empties: redirections, tee, cp/mv/install/ln targets, sed -i,
dd of=, truncate, shred, and deletions. Rules about configuration and logs read these."""

from __future__ import annotations

import re

from tooldeck.safety.analysis.argv import options
from tooldeck.safety.analysis.model import Field, Invocation
from tooldeck.safety.analysis.sed_script import sed_effects, sed_scripts
from tooldeck.safety.knowledge.entries import WriteKind
from tooldeck.safety.knowledge.table import written_by_table

_NULL_SOURCES = frozenset({"/dev/null", "/dev/zero"})


# The last invocation asked about and its answer: the rules ask in turn about the same one.
_last: tuple[Invocation | None, list[tuple[Field, WriteKind]]] = (None, [])


def written_files(inv: Invocation) -> list[tuple[Field, WriteKind]]:
    """Every file `inv` writes, and how: its redirections, the files the table says it writes
    (tee, cp, dd of=, truncate, curl -o...), in-place edits and sed's `w` commands."""
    global _last
    last_inv, answer = _last
    if last_inv is not inv:
        answer = _written_files(inv)
        _last = (inv, answer)
    return list(answer)


def _written_files(inv: Invocation) -> list[tuple[Field, WriteKind]]:
    out: list[tuple[Field, WriteKind]] = [
        (r.target, "append" if r.op in (">>", "&>>") else "overwrite") for r in inv.redirects if r.writes
    ]
    name = inv.name
    table = [(f, kind) for f, kind in written_by_table(name, inv.args) if f.text != "-"]
    if name == "tee" and options(inv).has("-a", "--append"):
        table = [(f, "append") for f, _ in table]
    elif table and table[0][1] == "replace" and any(a.text in _NULL_SOURCES for a in inv.args[:-1]):
        table = [(f, "empty") for f, _ in table]  # `cp /dev/null FILE` empties FILE
    out += table + [(f, "overwrite") for f in _remote_names(inv, table)]
    if name in ("sed", "perl") and any(
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
    return out


def _remote_names(inv: Invocation, named: list[tuple[Field, WriteKind]]) -> list[Field]:
    """Files a download names after its URL: `curl -O URL`, `wget URL` (without -O FILE)."""
    words = inv.args
    remote_name = inv.name == "curl" and any(
        w.text in ("-O", "--remote-name") or re.fullmatch(r"-[a-zA-Z]*O[a-zA-Z]*", w.text) for w in words
    )
    if not (remote_name or (inv.name == "wget" and not named)):
        return []
    urls = [w.text for w in words if re.match(r"(https?|ftp)://", w.text)]
    return [Field(u.rstrip("/").rsplit("/", 1)[-1] or "index.html") for u in urls]


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
