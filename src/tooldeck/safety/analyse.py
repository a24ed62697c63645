"""The shell analyser's entry point: one command in, one `Verdict` out, never an exception."""

from __future__ import annotations

from functools import lru_cache

from tooldeck.safety.analysis.commands import Frame, State
from tooldeck.safety.analysis.model import Invocation, Signal
from tooldeck.safety.analysis.parser import parse_lenient
from tooldeck.safety.analysis.walker import TooComplex, Walker
from tooldeck.safety.knowledge.dry_run import is_dry_run
from tooldeck.safety.knowledge.rules import MATCHING_RULES, RULES_BY_ID
from tooldeck.safety.policy import DEFAULT_POLICY, ShellPolicy
from tooldeck.safety.verdict import Finding, Verdict


def analyse_command(command: str, policy: ShellPolicy | None = None, *, cache: bool = True) -> Verdict:
    """Classify one shell command (the string a tool would pass to `bash -c`).

    The verdict is `block` (never runnable, even with approval), `approve` (needs a human's
    consent) or `safe`. Input that cannot be analysed — a syntax error, an oversized or too
    deeply nested command, characters no shell can receive — is `approve`, never `safe`.
    Verdicts are cached per (command, policy); `cache=False` analyses afresh (for timing).
    """
    chosen = policy or DEFAULT_POLICY
    return _cached(command, chosen) if cache else _analyse(command, chosen)


@lru_cache(maxsize=2048)
def _cached(command: str, policy: ShellPolicy) -> Verdict:
    return _analyse(command, policy)


def _analyse(command: str, policy: ShellPolicy) -> Verdict:
    try:
        findings = _findings(command, policy)
    except Exception as exc:
        findings = [
            _signal_finding(
                Signal("analyser-error", f"the analyser failed: {type(exc).__name__}", ""), policy
            )
        ]
    return Verdict.from_findings(command, _dedupe(findings))


def _findings(command: str, policy: ShellPolicy) -> list[Finding]:
    size = len(command.encode("utf-8", "surrogatepass"))
    if size > policy.max_bytes:
        reason = f"the command is {size} bytes, more than the {policy.max_bytes} the analyser reads"
        return [_signal_finding(Signal("input-too-large", reason, command[:80]), policy)]
    unsupported = _unsupported(command)
    if unsupported is not None:
        return [_signal_finding(Signal("unsupported-characters", unsupported, ""), policy)]
    root, error = parse_lenient(command)
    walker = Walker()
    out: list[Finding] = []
    if error is not None:
        reason = f"the command does not parse as shell ({error}), so what it runs is unknown"
        out.append(_signal_finding(Signal("parse-error", reason, command[:80]), policy))
    try:
        walker.walk(root, State(), Frame())
    except (TooComplex, RecursionError) as exc:
        reason = str(exc) if isinstance(exc, TooComplex) else "the command is nested too deeply to analyse"
        out.append(_signal_finding(Signal("too-complex", reason, command[:80]), policy))
    out += [_signal_finding(s, policy) for s in walker.signals]
    for inv in walker.invocations:
        out += _match(inv, policy)
    return out


def _unsupported(command: str) -> str | None:
    """Why the command holds characters the analyser cannot vouch for, or None.

    Python hands over bytes that are not UTF-8 (in argv, stdin, file names) as the lone
    surrogates U+DC80..U+DCFF (its "surrogateescape"), so those are named as the bytes they were.
    """
    if "\x00" in command:
        return "the command contains a NUL character, which no shell receives intact"
    for ch in command:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:
            return (
                f"the command is not valid UTF-8 (it holds the byte 0x{code - 0xDC00:02x}), so what it "
                "runs cannot be read as text"
            )
        if 0xD800 <= code <= 0xDFFF:
            return f"the command contains an unpaired surrogate (U+{code:04X}), which is not text a shell can receive"
    return None


def _match(inv: Invocation, policy: ShellPolicy) -> list[Finding]:
    out: list[Finding] = []
    dry = is_dry_run(inv)
    for rule in MATCHING_RULES:
        assert rule.match is not None
        if dry and rule.previewable:
            continue
        reason = rule.match(inv)
        if reason is not None:
            out.append(Finding(rule.id, rule.category, policy.level(rule), _shown(reason), inv.shown()))
    return out


def _signal_finding(signal: Signal, policy: ShellPolicy) -> Finding:
    rule = RULES_BY_ID[signal.rule]
    return Finding(
        rule.id, rule.category, policy.level(rule), _shown(signal.reason), _shown(signal.subcommand)
    )


def _shown(text: str) -> str:
    return text.replace("\ue000", "~").replace("\ue001", ".")


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen: set[tuple[str, str]] = set()
    out: list[Finding] = []
    for finding in findings:
        key = (finding.rule, finding.subcommand)
        if key not in seen:
            seen.add(key)
            out.append(finding)
    return out
