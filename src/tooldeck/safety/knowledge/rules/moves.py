"""Trees moved away: the root filesystem, a system tree, the home directory or its contents, keys
and credentials moved out of home, anything moved onto /dev/null, and moves that delete their
sources (`rsync --remove-source-files`, a desktop's trash). A move then a delete of the new name
is caught by `moves.py`, which hands the delete to the deletion rules as a delete of the source."""

from __future__ import annotations

from tooldeck.safety.analysis.argv import options
from tooldeck.safety.analysis.model import Field, Invocation
from tooldeck.safety.analysis.paths import classify, is_secret, resolve
from tooldeck.safety.knowledge.rules.base import RuleSet

rules = RuleSet("recursive_delete")

# Top-level trees the system runs from (removable media under /mnt and /media are not).
_CORE_TOP = frozenset(
    {"bin", "boot", "etc", "lib", "lib32", "lib64", "libx32", "sbin", "usr", "var", "opt", "srv"}
)
_CORE_SECOND = frozenset({"bin", "boot", "etc", "lib", "lib64", "sbin", "usr"})


def moved(inv: Invocation) -> tuple[list[Field], Field | None]:
    """What a move takes (its sources) and where to, for mv, `gio move`, `kioclient move` and
    `rsync --remove-source-files`."""
    words = inv.arg_texts()
    if inv.name in ("gio", "kioclient", "kioclient5", "kioclient6") and words[:1] in (["move"], ["mv"]):
        operands = [a for a in inv.args[1:] if not a.text.startswith("-")]
        return operands[:-1], operands[-1] if operands else None
    if inv.name == "rsync":
        opts = options(inv, frozenset({"-e", "--rsh", "--exclude", "--include", "--filter", "-f"}))
        if "--remove-source-files" in opts.long and len(opts.operands) >= 2:
            return list(opts.operands[:-1]), opts.operands[-1]
        return [], None
    if inv.name != "mv":
        return [], None
    values = frozenset({"-t", "--target-directory", "-S", "--suffix"})
    opts = options(inv, values)
    target = opts.value("-t", "--target-directory")
    if target is not None:
        return list(opts.operands), Field(target)
    return list(opts.operands[:-1]), opts.operands[-1] if opts.operands else None


def _system_tree(text: str, cwd: str | None) -> bool:
    path = resolve(text, cwd)
    if path.anchor != "/" or not path.parts:
        return False
    top = path.parts[0]
    return (len(path.parts) == 1 and top in _CORE_TOP) or (len(path.parts) == 2 and top in _CORE_SECOND)


@rules.rule(
    "move-away", "approve", "moves the root, a system tree, home or credentials away, or onto /dev/null"
)
def _move_away(inv: Invocation) -> str | None:
    sources, dest = moved(inv)
    if dest is None:
        return None
    outside_home = resolve(dest.text, inv.cwd).anchor != "~"
    for source in sources:
        text = source.text.rstrip("/") or "/"
        kind = classify(text, inv.cwd)
        shown = source.shown()
        if dest.text == "/dev/null" and kind not in ("scratch", "unknown"):
            return f"{inv.name} moves {shown} onto /dev/null: it is gone, and /dev/null with it"
        if kind in ("root", "root_contents"):
            return f"{inv.name} moves {shown}: the whole root filesystem"
        if kind == "system" and _system_tree(text, inv.cwd):
            return f"{inv.name} moves {shown} away: the system stops working without it"
        if kind in ("home", "home_contents", "all_homes"):
            return f"{inv.name} moves {shown}: the home directory"
        if (
            kind == "credentials"
            and outside_home
            and (is_secret(text, inv.cwd) or len(resolve(text).parts) == 1)
        ):
            return f"{inv.name} moves {shown} out of the home directory: keys or credentials"
        if inv.name == "rsync" and kind == "home_item":
            return f"rsync --remove-source-files deletes {shown} from the home directory as it copies"
    return None
