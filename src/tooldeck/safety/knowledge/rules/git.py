"""Git history destruction: force pushes to protected branches, deleting them, mirror pushes,
history rewrites, hard resets and forced cleans, destroying the reflog or the .git directory."""

from __future__ import annotations

import re

from tooldeck.safety.analysis.model import Invocation
from tooldeck.safety.analysis.paths import classify, resolve
from tooldeck.safety.knowledge.rules.base import RuleSet
from tooldeck.safety.knowledge.rules.deletion import deletion_targets
from tooldeck.safety.knowledge.table import command_words
from tooldeck.safety.knowledge.verbs import verb_match

rules = RuleSet("git_destruction")

PROTECTED = re.compile(
    r"(refs/heads/)?(main|master|trunk|develop|development|production|prod|release(/.*)?|stable)"
)


def git_words(inv: Invocation) -> list[str]:
    """The subcommand and its arguments, with git's global options removed."""
    if inv.name != "git":
        return []
    rest = command_words(inv)
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
    previewable=True,
)
def _force_push(inv: Invocation) -> str | None:
    words = git_words(inv)
    if words[:1] != ["push"]:
        return None
    # --mirror and --prune are verbs (verbs.toml); here, what refspecs and force options say.
    args = words[1:]
    force = verb_match("push-forces", inv) is not None
    lease = verb_match("push-forces-with-lease", inv) is not None
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


def _protected_ref(ref: str) -> bool:
    """main, refs/heads/main, refs/remotes/origin/main, HEAD."""
    ref = ref.lstrip("+:")
    if ref == "HEAD":
        return True
    remote = re.fullmatch(r"refs/remotes/[^/]+/(.+)", ref)
    return bool(PROTECTED.fullmatch(remote.group(1) if remote else ref))


# A published release: refs/tags/..., or a version name (v3.1.0, 2.4.1-rc1).
_RELEASE_TAG = re.compile(r"refs/tags/.+|v?\d+(\.\d+)+([-+.][\w.]+)?")


@rules.rule(
    "git-delete-remote-tag",
    "approve",
    "deletes a published tag on the remote (git push origin :refs/tags/v1, --delete v1.2.0)",
    previewable=True,
)
def _delete_tag(inv: Invocation) -> str | None:
    words = git_words(inv)
    if words[:1] != ["push"]:
        return None
    args = words[1:]
    deleting = verb_match("push-deletes", inv) is not None
    refspecs = _refspecs(args)
    if deleting and "tag" in refspecs:  # `git push --delete origin tag v1`
        return "git push --delete tag removes a published tag"
    for ref in refspecs:
        name = ref[1:] if ref.startswith(":") else ref if deleting else None
        if name is not None and _RELEASE_TAG.fullmatch(name):
            return f"git push deletes the published tag {name}"
    return None


@rules.rule(
    "git-delete-protected-branch",
    "approve",
    "deletes a protected branch or HEAD, locally or on the remote, or force-deletes branches listed at run time",
    previewable=True,
)
def _delete_branch(inv: Invocation) -> str | None:
    words = git_words(inv)
    computed = any(not a.exact for a in inv.args)
    if words[:1] == ["push"]:
        args = words[1:]
        deleting = verb_match("push-deletes", inv) is not None
        for ref in _refspecs(args):
            name = ref[1:] if ref.startswith(":") else ref if deleting else None
            if name is not None and _protected_ref(name):
                return f"git push deletes the remote branch {name}"
        if deleting and computed:
            return "git push --delete removes remote refs listed at run time"
    if words[:1] == ["update-ref"]:
        operands = [w for w in words[1:] if not w.startswith("-")]
        zeroed = len(operands) > 1 and re.fullmatch(r"0{40}|0{64}", operands[1])
        if operands and _protected_ref(operands[0]) and ("-d" in words or zeroed):
            return f"git update-ref deletes {operands[0]}"
    if words[:1] == ["branch"]:
        flags = "".join(w[1:] for w in words[1:] if re.fullmatch(r"-[a-zA-Z]+", w))
        force = "D" in flags or (
            ("d" in flags or "--delete" in words) and ("f" in flags or "--force" in words)
        )
        names = [w for w in words[1:] if not w.startswith("-")]
        if force and any(PROTECTED.fullmatch(n) for n in names):
            return f"git branch -D deletes {next(n for n in names if PROTECTED.fullmatch(n))}"
        if force and computed:
            return "git branch -D force-deletes branches listed at run time, unmerged work included"
    return None


@rules.rule(
    "git-discard-work",
    "approve",
    "discards uncommitted work: reset --hard, forced clean, checkout/restore of everything",
    previewable=True,
)
def _discard(inv: Invocation) -> str | None:
    words = git_words(inv)
    if words[:1] == ["clean"]:
        flags = "".join(w[1:] for w in words[1:] if re.fullmatch(r"-[a-zA-Z]+", w))
        dry = "n" in flags or "--dry-run" in words or "i" in flags
        # Without -f git refuses to clean, unless clean.requireForce is turned off.
        unforced = any(re.fullmatch(r"(?i)clean\.requireforce=(false|no|off|0)", w) for w in inv.arg_texts())
        forced = "f" in flags or "--force" in words or unforced
        paths = [w for w in words[1:] if not w.startswith("-")]
        whole = not paths or any(
            classify(p, inv.cwd) == "workspace_all" or p.startswith((":/", ":(top)")) for p in paths
        )
        if forced and not dry and whole:
            ignored = (
                " and ignored files (.env, local config, virtualenvs)" if {"x", "X"} & set(flags) else ""
            )
            return f"git {' '.join(words)} deletes every untracked file{ignored}"
    if words[:1] in (["checkout"], ["restore"]) and words[-1:] in (["."], ["*"], [":/"]):
        return f"git {' '.join(words)} throws away every local change"
    if words[:1] == ["rm"] and "--cached" not in words:
        paths = [w for w in words[1:] if not w.startswith("-")]
        if any(classify(p, inv.cwd) == "workspace_all" for p in paths):
            return f"git {' '.join(words)} deletes every tracked file"
    if words[:2] == ["submodule", "deinit"] and {"-f", "--force"} & set(words) and "--all" in words:
        return "git submodule deinit -f --all discards the submodules' working trees"
    return None


@rules.rule("git-rewrite-history", "approve", "rewrites history (filter-branch, filter-repo, BFG)")
def _rewrite(inv: Invocation) -> str | None:
    # git filter-branch/filter-repo and bfg are verbs (verbs.toml); BFG run by java is not.
    if inv.name == "java" and any("bfg" in w for w in inv.arg_texts()):
        return "BFG rewrites repository history"
    return None


rules.declare(
    "git-destroy-reflog", "approve", "expires the reflog or prunes unreachable objects (the undo history)"
)


@rules.rule("delete-git-dir", "approve", "deletes a .git directory (the whole history)", previewable=True)
def _git_dir(inv: Invocation) -> str | None:
    for target, _recursive in deletion_targets(inv):
        if classify(target.text, inv.cwd) == "git_dir" or _git_internals(target.text, inv.cwd):
            return f"{inv.name} deletes {target.shown()}, the repository's history"
    return None


_HISTORY_PARTS = frozenset({"objects", "refs", "HEAD", "index", "packed-refs", "logs"})


def _git_internals(text: str, cwd: str | None) -> bool:
    """`.git/objects`, `.git/refs`, `.git/HEAD`...: the parts without which the history is gone."""
    parts = resolve(text, cwd).parts
    return any(
        p == ".git" and parts[i + 1 : i + 2] and parts[i + 1] in _HISTORY_PARTS for i, p in enumerate(parts)
    )
