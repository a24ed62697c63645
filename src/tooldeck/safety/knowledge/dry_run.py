"""Dry runs: a delete verb told only to show what it would do (`aws s3 rm --dryrun`,
`kubectl delete --dry-run=client`, `rsync -n --delete`, `git push -n --force`, `apt-get -s remove`),
or asked for its help (`kubectl drain --help`).

A dry run changes nothing, so the rules that judge the program's own verb (marked `previewable`)
do not apply to it. Everything else still does: a dry run's redirections, hooks and variables run
for real (`rsync -n -e 'sh -c ...'` still starts that shell). Only options written before `--`
count, a value that turns the dry run off (`--dry-run=none`, `--dry-run=false`) does not, and
the short forms (`-n`, `-s`) count only for the programs where they mean a dry run.
"""

from __future__ import annotations

import re

from tooldeck.safety.analysis.model import Invocation
from tooldeck.safety.knowledge.table import command_words

# `--help` belongs here too: asking how a verb works carries nothing out.
_LONG = frozenset(
    {
        "--dry-run",
        "--dryrun",
        "--simulate",
        "--what-if",
        "--preview-only",
        "--no-act",
        "--just-print",
        "--recon",
        "--help",
    }
)
_OFF = frozenset({"none", "false", "0", "no", "off"})
# Programs whose short option is a dry run, and that letter.
_SHORT = {
    "rsync": "n",
    "rclone": "n",
    "s3cmd": "n",
    "borg": "n",
    "restic": "n",
    "apt-get": "s",
    "apt": "s",
    "aptitude": "s",
}
# git subcommands with `-n` for --dry-run (`git commit -n` is --no-verify; `git branch -n` is nothing).
_GIT_SHORT = frozenset({"push", "rm", "clean", "add", "mv", "prune", "worktree"})


# Programs with no dry run, which refuse an option they do not know (`rm --dry-run` fails).
_WITHOUT = frozenset(
    {"rm", "rmdir", "unlink", "shred", "srm", "find", "dd", "mv", "cp", "chmod", "chown", "truncate"}
)


def is_dry_run(inv: Invocation) -> bool:
    """Does `inv` only report what it would do?"""
    if inv.name in _WITHOUT:
        return False
    words = _before_separator(inv.arg_texts())
    for word in words:
        name, sep, value = word.partition("=")
        if name in _LONG and (not sep or value.lower() not in _OFF):
            return True
    if inv.name == "rpm" and "--test" in words:
        return True
    if inv.name in ("ansible", "ansible-playbook") and ("--check" in words or "-C" in words):
        return True
    letter = _SHORT.get(inv.name)
    if inv.name == "git":
        letter = "n" if command_words(inv)[:1] in [[verb] for verb in _GIT_SHORT] else None
    return letter is not None and any(re.fullmatch(rf"-[A-Za-z]*{letter}[A-Za-z]*", w) for w in words)


def _before_separator(words: list[str]) -> list[str]:
    return words[: words.index("--")] if "--" in words else words
