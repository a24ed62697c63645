"""Walking a syntax tree in execution order to list every program that would run.

The walker keeps what a static reading can know while it goes: variables, functions, aliases,
the working directory and the files downloaded so far. Pipes carry a `Flow` from one stage to
the next, so `curl ... | sh` reaches `sh` as network data. Control flow is read conservatively:
both branches of an `if`, every `case` arm, a loop body once (or once per known `for` value).
Commands themselves are resolved in `commands.py`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from tooldeck.safety.analysis.commands import CommandSemantics, Frame, State
from tooldeck.safety.analysis.expand import Expander
from tooldeck.safety.analysis.flows import ENDLESS_COUNT
from tooldeck.safety.analysis.model import (
    EMPTY_FLOW,
    FILE,
    NETWORK,
    SECRET,
    Field,
    Flow,
    Invocation,
    Redirect,
    Signal,
    Taint,
)
from tooldeck.safety.analysis.moves import mark_secret
from tooldeck.safety.analysis.parser import ParseFailure, node_text, parse, spawns_in_background
from tooldeck.safety.analysis.paths import is_secret
from tooldeck.safety.knowledge.credential_names import credential_taint

if TYPE_CHECKING:
    from tree_sitter import Node

SEQUENCES = frozenset(
    {
        "program",
        "compound_statement",
        "do_group",
        "else_clause",
        "elif_clause",
        "list",
        "if_statement",
        "case_item",
        "negated_command",
        "subshell",
    }
)
INFINITE_CONDITIONS = frozenset(
    {":", "true", "/bin/true", "[ 1 ]", "[[ 1 ]]", "((1))", "! false", "sleep 1", "sleep 0"}
)
NEVER_TRUE = frozenset({"false", "/bin/false", "! true", "! :", "((0))", "[ ]"})


class TooComplex(Exception):
    """The input exceeds a budget of the analysis (nesting, size, work); the message says which."""


@dataclass(slots=True)
class Budget:
    max_nodes: int = 20_000
    max_level: int = 120
    max_nested: int = 10
    max_invocations: int = 2_000
    nodes: int = 0

    def tick(self, level: int) -> None:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise TooComplex(f"more than {self.max_nodes} syntax nodes to analyse")
        if level > self.max_level:
            raise TooComplex(f"nested more than {self.max_level} levels deep")


@dataclass(slots=True)
class Walker(CommandSemantics):
    """Collects the invocations and signals of one command and everything it runs."""

    budget: Budget = field(default_factory=Budget)
    invocations: list[Invocation] = field(default_factory=list)
    signals: list[Signal] = field(default_factory=list)

    def record(self, inv: Invocation) -> None:
        if len(self.invocations) >= self.budget.max_invocations:
            raise TooComplex(f"more than {self.budget.max_invocations} commands to analyse")
        self.invocations.append(inv)

    def signal(self, rule: str, reason: str, subcommand: str) -> None:
        self.signals.append(Signal(rule, reason, subcommand))

    def run_script(self, text: str, state: State, frame: Frame, stdin: Flow | None = None) -> Flow:
        """Parse `text` and walk it; a nested script that does not parse raises a signal."""
        if frame.nesting > self.budget.max_nested:
            raise TooComplex(f"code nested more than {self.budget.max_nested} times (sh -c, eval, ...)")
        try:
            root = parse(text)
        except ParseFailure as exc:
            if frame.nesting == 0:
                raise
            self.signal("nested-unparseable", f"code run {frame.via} does not parse ({exc})", text[:200])
            return EMPTY_FLOW
        return self.walk(root, state, frame, stdin)

    def walk(self, node: Node, state: State, frame: Frame, stdin: Flow | None = None) -> Flow:
        """Walk one statement (or a sequence of them); returns what it writes to standard output."""
        self.budget.tick(frame.level)
        frame = replace(frame, level=frame.level + 1)
        kind = node.type
        if kind in SEQUENCES:
            inner = state.copy() if kind == "subshell" else state
            return self._sequence(node, inner, frame, stdin)
        if kind == "pipeline":
            return self._pipeline(node, state, frame, stdin)
        if kind == "redirected_statement":
            return self._redirected(node, state, frame, stdin)
        if kind == "command":
            return self.command(node, state, frame, stdin, ())
        if kind == "function_definition":
            name = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            if name is not None and body is not None:
                state.functions[node_text(name)] = body
            return EMPTY_FLOW
        if kind == "variable_assignment":
            self.assign(node, state, frame)
            return EMPTY_FLOW
        if kind in ("declaration_command", "unset_command"):
            self.declare(node, state, frame)
            return EMPTY_FLOW
        if kind in ("while_statement", "for_statement", "c_style_for_statement"):
            return self._loop(node, state, frame, stdin)
        if kind in ("comment", "heredoc_body", "heredoc_end"):
            return EMPTY_FLOW
        return self._generic(node, state, frame, stdin)

    def _sequence(self, node: Node, state: State, frame: Frame, stdin: Flow | None) -> Flow:
        out = EMPTY_FLOW
        children = node.children
        for i, child in enumerate(children):
            if not child.is_named or child.type == "comment":
                continue
            background = i + 1 < len(children) and children[i + 1].type == "&"
            child_frame = replace(frame, spawning=True) if background else frame
            out = out.merge(self.walk(child, state, replace(child_frame, background=background), stdin))
        return out

    def _pipeline(self, node: Node, state: State, frame: Frame, stdin: Flow | None) -> Flow:
        stages = [c for c in node.children if c.is_named and c.type != "comment"]
        flow: Flow | None = stdin
        for stage in stages:
            flow = self.walk(stage, state.copy(), replace(frame, spawning=True), flow)
        return flow if flow is not None else EMPTY_FLOW

    def _redirected(self, node: Node, state: State, frame: Frame, stdin: Flow | None) -> Flow:
        body = node.child_by_field_name("body")
        redirect_nodes = [c for c in node.children if c.type.endswith("_redirect")]
        redirects, stdin = self.redirects(redirect_nodes, state, frame, stdin)
        if body is not None and body.type == "command":
            out = self.command(body, state, frame, stdin, redirects)
        else:
            out = self.walk(body, state, frame, stdin) if body is not None else EMPTY_FLOW
            if redirects:
                inv = Invocation((Field(":"),), redirects, stdin, via=frame.via, cwd=state.cwd)
                self.record(inv)
                # `a | b > f`: f holds what the pipeline wrote (a script to run later, a download).
                self._remember_writes(inv, out, state)
        # The grammar nests what follows a heredoc's start line (`cat <<EOF | sh`) in the heredoc.
        for redirect in redirect_nodes:
            for rest in redirect.named_children:
                if rest.type == "pipeline" and rest.children[:1] and rest.children[0].type in ("|", "|&"):
                    out = self._pipeline(rest, state, frame, out)
                elif rest.type in ("list", "command", "pipeline", "redirected_statement", "subshell"):
                    out = self.walk(rest, state, frame, None)
        return out

    def redirects(
        self, nodes: list[Node], state: State, frame: Frame, stdin: Flow | None
    ) -> tuple[tuple[Redirect, ...], Flow | None]:
        """Redirections of a command, and the standard input they give it."""
        expander = Expander(state.scope, self.substitutions(state, frame))
        out: list[Redirect] = []
        pending = list(nodes)
        while pending:
            node = pending.pop(0)
            pending += [c for c in node.children if c.type.endswith("_redirect")]
            if node.type == "heredoc_redirect":
                body = next((c for c in node.children if c.type == "heredoc_body"), None)
                if body is not None:
                    self._generic(body, state, frame, None)
                    stdin = Flow(node_text(body))
                continue
            if node.type == "herestring_redirect":
                word = next((c for c in node.children if c.is_named), None)
                value = expander.value(word)
                stdin = Flow(
                    value.text + "\n" if value.exact else None, value.taint | credential_taint(value)
                )
                continue
            op, fd, target = _redirect_parts(node)
            if target is None:
                continue
            field_ = expander.value(target)
            out.append(Redirect(op, field_, fd))
            if op == "<":
                stdin = _file_flow(mark_secret(field_, state.cwd, state.secrets), state.cwd)
        return tuple(out), stdin

    def _loop(self, node: Node, state: State, frame: Frame, stdin: Flow | None) -> Flow:
        body = node.child_by_field_name("body")
        if node.type == "for_statement":
            return self._for(node, state, frame, stdin)
        conditions = [c for c in node.children_by_field_name("condition") if c.is_named]
        for condition in conditions:
            self.walk(condition, state, frame, stdin)
        endless = node.type == "c_style_for_statement" and not any(
            c.is_named for c in node.children_by_field_name("condition")
        )
        if node.type == "while_statement":
            text = " ".join(node_text(c) for c in conditions)
            until = node.children[:1] and node.children[0].type == "until"
            endless = text in (NEVER_TRUE if until else INFINITE_CONDITIONS)
        elif not endless:
            endless = _counts_past_end(" ".join(node_text(c) for c in conditions))
        if body is None:
            return EMPTY_FLOW
        if endless and spawns_in_background(body):
            self.signal(
                "spawn-loop", "an endless loop starts background jobs without bound", node_text(node)[:200]
            )
        out = self.walk(body, state, frame, stdin)
        return replace(out, endless=True) if endless else out

    def _for(self, node: Node, state: State, frame: Frame, stdin: Flow | None) -> Flow:
        variable = node.child_by_field_name("variable")
        body = node.child_by_field_name("body")
        if variable is None or body is None:
            return EMPTY_FLOW
        expander = Expander(state.scope, self.substitutions(state, frame))
        values: list[Field] = []
        for value_node in node.children_by_field_name("value"):
            values += expander.fields(value_node)
        name = node_text(variable)
        listed = " ".join(node_text(v) for v in node.children_by_field_name("value"))
        if _counts_past_end(listed) and spawns_in_background(body):
            self.signal(
                "spawn-loop",
                "a loop of a huge count starts background jobs without bound",
                node_text(node)[:200],
            )
        out = EMPTY_FLOW
        if values and len(values) * frame.unrolled <= 16:
            inner = replace(frame, unrolled=frame.unrolled * len(values))
            for value in values:
                state.scope.variables[name] = value
                out = self.walk(body, state, inner, stdin)
            return out
        state.scope.variables[name] = Field("$" + name, exact=False)
        return self.walk(body, state, frame, stdin)

    def _generic(self, node: Node, state: State, frame: Frame, stdin: Flow | None) -> Flow:
        """Any other node: walk statements inside it and evaluate the substitutions it contains."""
        out = EMPTY_FLOW
        subs = self.substitutions(state, frame)
        for child in node.named_children:
            if child.type == "command_substitution":
                out = out.merge(subs.command_output(child))
            elif child.type == "process_substitution":
                subs.process_output(child)
            else:
                out = out.merge(self.walk(child, state, frame, stdin))
        return out


def _redirect_parts(node: Node) -> tuple[str, int | None, Node | None]:
    op, fd = "", None
    target: Node | None = node.child_by_field_name("destination")
    for child in node.children:
        if child.type == "file_descriptor":
            fd = int(node_text(child)) if node_text(child).isdigit() else None
        elif not child.is_named and not op:
            op = node_text(child)
    return op, fd, target


def _file_flow(target: Field, cwd: str | None) -> Flow:
    taint: set[Taint] = {FILE}
    if is_secret(target.text, cwd):
        taint.add(SECRET)
    if target.text.startswith(("/dev/tcp/", "/dev/udp/")):
        taint.add(NETWORK)
    return Flow(target.content.text if target.content else None, frozenset(taint) | target.taint)


def _counts_past_end(text: str) -> bool:
    """A count too large to finish: `{1..100000}`, `$(seq 1 1e6)`, `seq inf`, `i < 100000`."""
    if re.search(r"\bseq\b[^)`]*\binf\b", text):
        return True
    counts = re.findall(r"\{-?(\d+)\.\.-?(\d+)", text)
    spans = [abs(int(b) - int(a)) for a, b in counts]
    bounds = re.findall(r"\bseq\b[^)`]*?(\d+(?:e\d+)?)\s*[)`]|<=?\s*(\d+(?:e\d+)?)", text)
    spans += [int(float(n)) for pair in bounds for n in pair if n]
    return any(span >= ENDLESS_COUNT for span in spans)
