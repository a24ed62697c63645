"""Git history destruction: force pushes to protected branches, deleting them, mirror pushes,
history rewrites, hard resets and forced cleans, destroying the reflog or the .git directory."""

from __future__ import annotations

import re

from tooldeck.safety.model import Invocation
from tooldeck.safety.paths import classify
from tooldeck.safety.rules.base import RuleSet
from tooldeck.safety.rules.deletion import deletion_targets

rules = RuleSet("git_destruction")

PROTECTED = re.compile(
    r"(refs/heads/)?(main|master|trunk|develop|development|production|prod|release(/.*)?|stable)"
)
_GLOBAL_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"})


def git_words(inv: Invocation) -> list[str]:
    """The subcommand and its arguments, with git's global options removed."""
    if inv.name != "git":
        return []
    words = inv.arg_texts()
    i = 0
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in _GLOBAL_VALUE else 1
    rest = words[i:]
    return [] if "--help" in rest or "-h" in rest[1:2] else rest


def _refspecs(args: list[str]) -> list[str]:
    operands = [a for a in args if not a.startswith("-")]
    return operands[1:]  # the first operand is the remote


def _destination(refspec: str) -> str:
    return refspec.lstrip("+").rsplit(":", 1)[-1]


@rules.rule(
    "git-force-push-protected",
    "approve",
    "force-pushes to a protected branch (main, master, ...) or to an unnamed branch",
)
def _force_push(inv: Invocation) -> str | None:
    words = git_words(inv)
    if words[:1] != ["push"]:
        return None
    args = words[1:]
    if "--mirror" in args:
        return "git push --mirror overwrites every ref of the remote"
    force = any(a in ("--force", "-f") or re.fullmatch(r"-[a-zA-Z]*f[a-zA-Z]*", a) for a in args)
    lease = any(a.startswith("--force-with-lease") for a in args)
    refspecs = _refspecs(args)
    plus = [r for r in refspecs if r.startswith("+")]
    protected = [r for r in refspecs if PROTECTED.fullmatch(_destination(r))]
    if (force or plus) and (protected or (force and not refspecs)):
        target = protected[0] if protected else "the current branch"
        return f"git push forces history onto {_destination(target) if protected else target}"
    if plus and any(PROTECTED.fullmatch(_destination(r)) for r in plus):
        return "git push +refspec forces history onto a protected branch"
    if lease and protected:
        return f"git push --force-with-lease rewrites {_destination(protected[0])}"
    return None


@rules.rule("git-delete-protected-branch", "approve", "deletes a protected branch, locally or on the remote")
def _delete_branch(inv: Invocation) -> str | None:
    words = git_words(inv)
    if words[:1] == ["push"]:
        args = words[1:]
        deleting = "--delete" in args or "-d" in args
        for ref in _refspecs(args):
            name = ref[1:] if ref.startswith(":") else ref if deleting else None
            if name is not None and PROTECTED.fullmatch(name):
                return f"git push deletes the remote branch {name}"
    if words[:2] == ["update-ref", "-d"] and len(words) > 2 and PROTECTED.fullmatch(words[2]):
        return f"git update-ref -d deletes {words[2]}"
    if words[:1] == ["branch"] and ("-D" in words or ("--delete" in words and "--force" in words)):
        names = [w for w in words[1:] if not w.startswith("-")]
        if any(PROTECTED.fullmatch(n) for n in names):
            return f"git branch -D deletes {names[0]}"
    return None


@rules.rule(
    "git-discard-work",
    "approve",
    "discards uncommitted work: reset --hard, forced clean, checkout/restore of everything",
)
def _discard(inv: Invocation) -> str | None:
    words = git_words(inv)
    if words[:1] == ["reset"] and "--hard" in words:
        return f"git {' '.join(words)} discards uncommitted changes"
    if words[:1] == ["clean"]:
        flags = "".join(w[1:] for w in words[1:] if re.fullmatch(r"-[a-zA-Z]+", w))
        dry = "n" in flags or "--dry-run" in words or "i" in flags
        forced = "f" in flags or "--force" in words
        paths = [w for w in words[1:] if not w.startswith("-")]
        if forced and not dry and (not paths or any(classify(p, inv.cwd) == "workspace_all" for p in paths)):
            return f"git {' '.join(words)} deletes every untracked file"
    if words[:1] in (["checkout"], ["restore"]) and words[-1:] in (["."], ["*"], [":/"]):
        return f"git {' '.join(words)} throws away every local change"
    if words[:2] == ["stash", "clear"]:
        return "git stash clear deletes every stash"
    return None


@rules.rule("git-rewrite-history", "approve", "rewrites history (filter-branch, filter-repo, BFG)")
def _rewrite(inv: Invocation) -> str | None:
    words = git_words(inv)
    if words[:1] in (["filter-branch"], ["filter-repo"]):
        return f"git {words[0]} rewrites every commit"
    if inv.name == "bfg" or (inv.name == "java" and any("bfg" in w for w in inv.arg_texts())):
        return "BFG rewrites repository history"
    return None


@rules.rule(
    "git-destroy-reflog", "approve", "expires the reflog or prunes unreachable objects (the undo history)"
)
def _reflog(inv: Invocation) -> str | None:
    words = git_words(inv)
    if words[:2] in (["reflog", "expire"], ["reflog", "delete"]):
        return f"git {' '.join(words)} destroys the reflog"
    if words[:1] == ["gc"] and any(w in ("--prune=now", "--prune=all") for w in words):
        return "git gc --prune=now deletes unreachable commits for good"
    if words[:1] == ["prune"] and any(w.startswith("--expire") for w in words):
        return "git prune --expire deletes unreachable commits"
    return None


@rules.rule("delete-git-dir", "approve", "deletes a .git directory (the whole history)")
def _git_dir(inv: Invocation) -> str | None:
    for target, _recursive in deletion_targets(inv):
        if classify(target.text, inv.cwd) == "git_dir":
            return f"{inv.name} deletes {target.shown()}, the repository's history"
    return None
