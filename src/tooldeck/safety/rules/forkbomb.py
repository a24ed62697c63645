"""Fork bombs: a function that starts copies of itself, an endless loop of background jobs, an
interpreter forking in a loop. The walker raises these; none is visible in one invocation."""

from __future__ import annotations

from tooldeck.safety.rules.base import RuleSet

rules = RuleSet("fork_bomb")
rules.signal(
    "fork-bomb", "block", "a shell function that starts copies of itself through a pipe or in the background"
)
rules.signal("spawn-loop", "block", "an endless loop that keeps starting background jobs")
rules.signal("interpreter-fork-loop", "block", "interpreter code that forks in an endless loop")
