"""What moves, links and copies leave behind, so a later command that uses the new name is judged
by what it really reaches.

`mv ./src /tmp/t && rm -rf /tmp/t` deletes `./src`; `ln -s ~ h && rm -rf h/*` empties the home
directory; `cp ~/.ssh/id_rsa /tmp/k && curl -F f=@/tmp/k ...` sends the key. Moves and symbolic
links are remembered as renames (a path that now stands for another); copies, archives and
redirected output of credentials as paths that hold secret content.
"""

from __future__ import annotations

import re
from dataclasses import replace

from tooldeck.safety.analysis.argv import options
from tooldeck.safety.analysis.model import HOME_MARK, SECRET, Field, Flow, Invocation
from tooldeck.safety.analysis.paths import classify, is_secret, resolve

# A rename: the path that now stands for another, and whether the path itself is the other one
# (a move) or only what lies below it (a symbolic link: `rm -rf link` removes just the link).
Renames = dict[str, tuple[str, bool]]

_COPIERS = frozenset({"cp", "install", "rsync", "ditto", "scp"})
_ARCHIVERS = frozenset({"tar", "zip", "7z", "7za", "bsdtar", "rar"})


def _key(text: str, cwd: str | None) -> str:
    return resolve(text, cwd).shown()


def _marked(shown: str) -> str:
    """A resolved path written back with the home mark, as the walker writes fields."""
    return HOME_MARK + shown[1:] if shown.startswith("~") else shown


def _sources_and_dest(inv: Invocation) -> tuple[list[Field], Field | None]:
    values = frozenset({"-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "-g", "-e"})
    opts = options(inv, values)
    target = opts.value("-t", "--target-directory")
    operands = [o for o in opts.operands if o.exact]
    if target is not None:
        return operands, Field(target)
    if len(operands) < 2:
        return [], None
    return operands[:-1], operands[-1]


def _destinations(source: Field, dest: Field, inv: Invocation, many: bool) -> list[str]:
    """Where a source lands: DEST itself, or DEST/NAME when DEST is (or may be) a folder."""
    base = _key(dest.text, inv.cwd)
    name = resolve(source.text, inv.cwd).parts[-1:] or ("",)
    into = f"{base.rstrip('/')}/{name[0]}" if name[0] else base
    return [into] if many or dest.text.endswith("/") else [base, into]


def remember(inv: Invocation, out: Flow, renames: Renames, secrets: set[str]) -> None:
    """Record what `inv` moves, links or copies (and where it writes credentials' content)."""
    name = inv.name
    if name in ("mv", "ln") or name in _COPIERS:
        link = name == "ln" and any(a.text.startswith("-") and "s" in a.text[1:] for a in inv.args[:3])
        if name == "ln" and not link:
            return
        sources, dest = _sources_and_dest(inv)
        if dest is None or (name == "rsync" and ":" in dest.text):
            return
        for source in sources:
            original = _marked(_key(source.text, inv.cwd))
            earlier = renames.get(_key(source.text, inv.cwd))
            if earlier is not None and earlier[1]:
                original = earlier[0]
            for landed in _destinations(source, dest, inv, many=len(sources) > 1):
                if name == "mv":
                    renames[landed] = (original, True)
                elif link:
                    renames[landed] = (original, False)
                if (
                    is_secret(source.text, inv.cwd)
                    or SECRET in source.taint
                    or _holds_secret(source, inv, secrets)
                ):
                    secrets.add(landed)
    elif name in _ARCHIVERS:
        archive, members = _archive(inv)
        if archive is not None and any(
            is_secret(m.text, inv.cwd) or _holds_secret(m, inv, secrets) for m in members
        ):
            secrets.add(_key(archive, inv.cwd))
    if SECRET in out.taint:
        for redirect in inv.redirects:
            if redirect.writes and redirect.fd in (None, 1):
                secrets.add(_key(redirect.target.text, inv.cwd))


def _archive(inv: Invocation) -> tuple[str | None, list[Field]]:
    words = inv.arg_texts()
    if inv.name in ("tar", "bsdtar"):
        first = words[0] if words else ""
        if not re.search(r"c", first.lstrip("-")) and "--create" not in words and "-c" not in words:
            return None, []
        archive = None
        for i, word in enumerate(words):
            cluster = re.fullmatch(r"-?[a-zA-Z]*f", word) is not None and "c" in word
            if (word in ("-f", "--file") or cluster) and i + 1 < len(words):
                archive = words[i + 1]
        members = [
            a for a in inv.args if not a.text.startswith("-") and a.text != archive and a.text != first
        ]
        return archive, members
    operands = [a for a in inv.args if not a.text.startswith("-")]
    if inv.name in ("7z", "7za", "rar") and operands[:1] and operands[0].text == "a":
        operands = operands[1:]
    return (operands[0].text, operands[1:]) if operands else (None, [])


def _holds_secret(field: Field, inv: Invocation, secrets: set[str]) -> bool:
    return field.exact and _key(field.text, inv.cwd) in secrets


def mark_secret(field: Field, cwd: str | None, secrets: set[str]) -> Field:
    """A word naming a file that holds copied credentials carries the `secret` taint."""
    if not secrets or not field.exact:
        return field
    parts = re.split(r"[=@,]", field.text)
    if any(part and _key(part, cwd) in secrets for part in parts):
        return replace(field, taint=field.taint | {SECRET})
    return field


def through_renames(inv: Invocation, renames: Renames) -> Invocation | None:
    """`inv` with every path that a move or link made stand for another written as that other,
    or None when no word changes."""
    if not renames or inv.name in ("mv", "ln"):
        return None
    changed = False
    fields: list[Field] = [inv.argv[0]]
    for arg in inv.args:
        new = _renamed(arg, inv.cwd, renames)
        changed = changed or new is not arg
        fields.append(new)
    return replace(inv, argv=tuple(fields), via=_via(inv.via)) if changed else None


def _via(via: str) -> str:
    return f"{via} > moved or linked path" if via else "moved or linked path"


def _renamed(arg: Field, cwd: str | None, renames: Renames) -> Field:
    if not arg.exact or arg.text.startswith("-") or classify(arg.text, cwd) == "unknown":
        return arg
    path = _key(arg.text, cwd)
    slash = arg.text.endswith("/")
    for landed, (original, whole) in renames.items():
        if path == landed and (whole or slash):
            return Field(original + ("/" if slash else ""), glob=arg.glob)
        if path.startswith(landed.rstrip("/") + "/"):
            return Field(original.rstrip("/") + path[len(landed.rstrip("/")) :], glob=arg.glob)
    return arg
