"""Fork bombs: a function that starts copies of itself, an endless loop of background jobs, an
interpreter forking in a loop. The walker raises these; none is visible in one invocation."""

from __future__ import annotations

import re

from tooldeck.safety.analysis.flows import output_of
from tooldeck.safety.analysis.interpreter_forks import forks_forever
from tooldeck.safety.analysis.model import Field, Invocation
from tooldeck.safety.knowledge.rules.base import RuleSet

rules = RuleSet("fork_bomb")
rules.signal(
    "fork-bomb", "block", "a shell function that starts copies of itself through a pipe or in the background"
)
rules.signal("spawn-loop", "block", "an endless loop that keeps starting background jobs")
rules.signal("interpreter-fork-loop", "block", "interpreter code that forks in an endless loop")

# Source files a compiler or interpreter runs next.
_SOURCE = re.compile(r"\.(c|cc|cpp|cxx|go|rs|py|pl|rb|js|mjs|ts|php|lua|java|sh|bash)$")


# A script that starts itself twice (`bash $0 & bash $0`, `$0 | $0 &`): each copy starts two more.
_SELF_RUN = re.compile(r"\"?\$(?:0|\{0\}|BASH_SOURCE|\{BASH_SOURCE\})\"?")


def _runs_itself_twice(text: str) -> bool:
    return len(_SELF_RUN.findall(text)) >= 2 and bool(re.search(r"(?<![&>])&(?![&>])|(?<!\|)\|(?!\|)", text))


def _forks(inv: Invocation, text: str | None) -> bool:
    return text is not None and (forks_forever(text) or _runs_itself_twice(text))


@rules.writes(
    "write-fork-program",
    "approve",
    "writes a program that forks in an endless loop (echo 'for(;;)fork();' > f.c)",
    content=_forks,
)
def _fork_program(inv: Invocation, target: Field) -> str | None:
    # A file named as source code, or any file that starts with `#!` (a script to run).
    text = output_of(inv).text or ""
    if _SOURCE.search(target.text) or text.lstrip().startswith("#!"):
        return "a program that forks without end"
    return None
