"""Forms that hide what runs: a command name that cannot be resolved, decoded text handed to a shell."""

from __future__ import annotations

from tooldeck.safety.analysis.model import DECODED, Invocation
from tooldeck.safety.knowledge.rules.base import RuleSet
from tooldeck.safety.knowledge.rules.remote import code_taint, source_of

rules = RuleSet("obfuscated")


@rules.rule("dynamic-command", "approve", "the program to run comes from a value that cannot be resolved")
def _dynamic(inv: Invocation) -> str | None:
    if inv.argv and not inv.argv[0].exact:
        return f"the command name {inv.argv[0].shown()!r} is computed at run time and cannot be checked"
    return None


@rules.rule(
    "decoded-to-shell", "approve", "decoded or transformed text (base64, xxd, rev, openssl) is run as code"
)
def _decoded(inv: Invocation) -> str | None:
    source = source_of(inv)
    if source is None or DECODED not in code_taint(inv, source):
        return None
    known = (
        inv.data.text is not None
        if source.origin == "stdin"
        else (source.code is not None and source.code.exact)
        if source.origin == "arg"
        else False
    )
    if known:
        return None
    return f"{inv.name} runs text that is decoded at run time and cannot be checked"


rules.signal(
    "interpreter-dynamic-code",
    "approve",
    "interpreter code whose effect cannot be settled by reading it (getattr, __import__, eval of "
    "decoded text, aliased or computed function names)",
)
