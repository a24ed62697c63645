"""Resolving one simple command: its words, wrappers, aliases, functions and the code it runs.

After expansion, wrappers are peeled (`sudo`, `env`, `timeout`, `busybox`...), the invocation is
recorded for the rules, and whatever it runs in turn is analysed: the code of `sh -c`, `eval`,
`source` and interpreter one-liners, a shell reading a pipe, `xargs` and `find -exec` commands,
shell functions (a function that spawns itself is a fork bomb), aliases, and commands other
programs run through a hook (`hooks.py`: sed's `e`, `git -c core.pager=`, `ssh -o ProxyCommand=`).
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from tooldeck.safety.analysis.downloads import downloaded_tree
from tooldeck.safety.analysis.effects import written_files
from tooldeck.safety.analysis.expand import Expander, Scope
from tooldeck.safety.analysis.flows import FETCHERS, output_of
from tooldeck.safety.analysis.history_vars import history_off
from tooldeck.safety.analysis.hook_types import Hook
from tooldeck.safety.analysis.hooks import hooks_of
from tooldeck.safety.analysis.interpreters import inspect_code
from tooldeck.safety.analysis.model import (
    DYNAMIC,
    EMPTY_FLOW,
    HOME_MARK,
    NETWORK,
    WORKSPACE_MARK,
    Field,
    Flow,
    Invocation,
    Redirect,
)
from tooldeck.safety.analysis.moves import Renames, mark_secret, through_renames
from tooldeck.safety.analysis.moves import remember as remember_moves
from tooldeck.safety.analysis.parser import ParseFailure, node_text, parse, spawns_in_background
from tooldeck.safety.analysis.paths import resolve
from tooldeck.safety.analysis.programs import CodeSource, basename, code_source
from tooldeck.safety.analysis.runs import find_actions, parallel_argv, unbounded_parallel, xargs_argv
from tooldeck.safety.analysis.variables import assign, builtin_assignments, declare
from tooldeck.safety.knowledge.table import chdir_of, command_fields, only_prints, programs, shell_string_of
from tooldeck.safety.knowledge.wrappers import unwrap

if TYPE_CHECKING:
    from tree_sitter import Node


@dataclass(slots=True)
class State:
    """What a static reading knows at one point of the script."""

    scope: Scope = field(default_factory=Scope)
    functions: dict[str, Node] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    # Files written by downloads, and files written with known content (`echo 'rm -rf ~' > x.sh`),
    # by resolved path; shared with subshells, since they describe the filesystem.
    downloads: set[str] = field(default_factory=set)
    files: dict[str, str] = field(default_factory=dict)
    # Paths a move or link made stand for another, and paths holding copied credentials (`moves.py`).
    renames: Renames = field(default_factory=dict)
    secrets: set[str] = field(default_factory=set)

    def copy(self) -> State:
        """A subshell's state: its own variables and directory; the same filesystem."""
        return State(
            self.scope.copy(),
            dict(self.functions),
            dict(self.aliases),
            self.cwd,
            self.downloads,
            self.files,
            self.renames,
            self.secrets,
        )


@dataclass(frozen=True, slots=True)
class Frame:
    """Where the walk is: how deep, reached how, inside which function calls."""

    level: int = 0
    nesting: int = 0
    via: str = ""
    calls: tuple[str, ...] = ()
    privileged: bool = False
    wrappers: tuple[str, ...] = ()
    background: bool = False
    # Inside a pipeline or a background job: a function calling itself here multiplies.
    spawning: bool = False
    # How many times enclosing `for` loops are being walked (one walk per known value).
    unrolled: int = 1

    def nested(self, via: str) -> Frame:
        return replace(self, nesting=self.nesting + 1, via=via if not self.via else f"{self.via} > {via}")


class _Subs:
    def __init__(self, owner: CommandSemantics, state: State, frame: Frame) -> None:
        self.owner, self.state, self.frame = owner, state, frame

    def command_output(self, node: Node) -> Flow:
        # A substitution is one subshell: `$(IFS=; echo ...)` and `$(a=rm; echo $a)` share it.
        inner = self.state.copy()
        out = EMPTY_FLOW
        for child in node.named_children:
            out = out.merge(self.owner.walk(child, inner, self.frame))
        return out

    def process_output(self, node: Node) -> Flow:
        return self.command_output(node)


class CommandSemantics:
    """The command half of the walker; `walker.Walker` supplies the statement half."""

    @abstractmethod
    def walk(self, node: Node, state: State, frame: Frame, stdin: Flow | None = None) -> Flow: ...

    @abstractmethod
    def run_script(self, text: str, state: State, frame: Frame, stdin: Flow | None = None) -> Flow: ...

    @abstractmethod
    def record(self, inv: Invocation) -> None: ...

    @abstractmethod
    def signal(self, rule: str, reason: str, subcommand: str) -> None: ...

    @abstractmethod
    def redirects(
        self, nodes: list[Node], state: State, frame: Frame, stdin: Flow | None
    ) -> tuple[tuple[Redirect, ...], Flow | None]: ...

    def substitutions(self, state: State, frame: Frame) -> _Subs:
        return _Subs(self, state, frame)

    def assign(self, node: Node, state: State, frame: Frame) -> None:
        expander = Expander(state.scope, self.substitutions(state, frame))
        assign(node, expander)
        self._history_assignment(node, expander)

    def _history_assignment(self, node: Node, expander: Expander) -> None:
        name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        if name is not None:
            self._history(node_text(name), expander.value(value).text if value is not None else "")

    def _history(self, name: str, value: str | None) -> None:
        reason = history_off(name, value)
        if reason is not None:
            self.signal(
                "disable-history", reason, f"{name}={value}" if value is not None else f"unset {name}"
            )

    def declare(self, node: Node, state: State, frame: Frame) -> None:
        expander = Expander(state.scope, self.substitutions(state, frame))
        if node.type == "declaration_command":
            declare(node, expander)
        for child in node.named_children:
            if child.type == "variable_name" and node.type == "unset_command":
                state.scope.variables.pop(node_text(child), None)
                state.scope.arrays.pop(node_text(child), None)
                self._history(node_text(child), None)
            elif child.type == "variable_assignment":
                self._history_assignment(child, expander)
            elif child.type == "command_substitution":
                self.substitutions(state, frame).command_output(child)

    def command(
        self, node: Node, state: State, frame: Frame, stdin: Flow | None, redirects: tuple[Redirect, ...]
    ) -> Flow:
        expander = Expander(state.scope, self.substitutions(state, frame))
        argv: list[Field] = []
        env: list[tuple[str, Field]] = []
        inner_redirects: list[Node] = []
        for child in node.named_children:
            if child.type == "variable_assignment":
                name = child.child_by_field_name("name")
                value = expander.value(child.child_by_field_name("value"))
                env.append((node_text(name) if name is not None else "", value))
                self._history(env[-1][0], value.text)
            elif child.type.endswith("_redirect"):
                inner_redirects.append(child)
            elif child.type == "command_name":
                argv += [f for c in child.named_children for f in expander.fields(c)]
            elif child.type != "comment":
                argv += expander.fields(child)
        if inner_redirects:
            more, stdin = self.redirects(inner_redirects, state, frame, stdin)
            redirects = redirects + more
        if not argv:
            if redirects:
                self.record(Invocation((Field(":"),), redirects, stdin, via=frame.via, cwd=state.cwd))
            return EMPTY_FLOW
        return self.run_argv(tuple(argv), state, frame, stdin, redirects, env=tuple(env))

    def run_argv(
        self,
        argv: tuple[Field, ...],
        state: State,
        frame: Frame,
        stdin: Flow | None,
        redirects: tuple[Redirect, ...] = (),
        *,
        env: tuple[tuple[str, Field], ...] = (),
    ) -> Flow:
        """Resolve and record one argv, then analyse whatever it runs."""
        first = argv[0]
        if first.exact and first.text in state.aliases and first.text not in frame.calls:
            text = " ".join([state.aliases[first.text], *(_shell_word(a) for a in argv[1:])])
            return self.run_script(
                text, state, replace(frame.nested("alias"), calls=(*frame.calls, first.text)), stdin
            )
        if first.exact and first.text in state.functions:
            return self._call_function(first.text, argv, state, frame, stdin)
        peeled = unwrap(argv, programs())
        if not peeled.argv:
            # Only wrappers (`sudo -i`, `nohup`): the wrapper itself is what runs.
            peeled = replace(peeled, argv=argv, wrappers=peeled.wrappers[:-1])
        fields = tuple(_mark_downloaded(f, state, command=i == 0) for i, f in enumerate(peeled.argv))
        fields = tuple(mark_secret(f, state.cwd, state.secrets) for f in fields)
        inv = Invocation(
            fields,
            redirects,
            stdin,
            wrappers=frame.wrappers + peeled.wrappers,
            privileged=frame.privileged or peeled.privileged,
            background=frame.background,
            via=frame.via,
            cwd=state.cwd,
            env=state.scope.environment() + env + peeled.env,
        )
        self.record(inv)
        view = _past_global_options(inv)
        if view is not None:
            self.record(view)
        renamed = through_renames(inv, state.renames)
        if renamed is not None:
            self.record(renamed)
        if peeled.root_shell:
            return EMPTY_FLOW
        self._effects(inv, state)
        inner = replace(frame, wrappers=inv.wrappers, privileged=inv.privileged)
        self._runs(inv, state, inner)
        out = output_of(inv)
        self._remember_writes(inv, out, state)
        remember_moves(inv, out, state.renames, state.secrets)
        return out

    def _remember_writes(self, inv: Invocation, out: Flow, state: State) -> None:
        """Output redirected into a file: its content (to analyse if the file is run) and taint."""
        targets = [
            r.target for r in inv.redirects if r.op in (">", ">>", ">|", "&>", "&>>") and r.fd in (None, 1)
        ]
        if inv.name == "tee":
            targets += [a for a in inv.args if not a.text.startswith("-")]
        for target in targets:
            path = resolve(target.text, state.cwd).shown()
            if NETWORK in out.taint:
                state.downloads.add(path)
            if out.text is not None:
                appended = any(r.op.endswith(">>") for r in inv.redirects) or "-a" in inv.arg_texts()
                state.files[path] = (state.files.get(path, "") if appended else "") + out.text

    def _effects(self, inv: Invocation, state: State) -> None:
        """State changes a command makes: the working directory, downloads, aliases."""
        name = inv.name
        if name in ("cd", "pushd"):
            target = next(
                (a for a in inv.args if not a.text.startswith("-") or a.text == "-"), Field(HOME_MARK)
            )
            if target.text == "-":
                target = state.scope.lookup("OLDPWD") or Field("$OLDPWD", exact=False)
            _change_directory(state, target)
        elif name in FETCHERS:
            state.downloads.update(resolve(f.text, state.cwd).shown() for f, _ in written_files(inv))
        elif name in ("tar", "unzip", "git"):
            tree = downloaded_tree(inv)
            if tree is not None:
                state.downloads.add(resolve(tree, state.cwd).shown() + "/**")
        elif name == "alias":
            for arg in inv.args:
                if "=" in arg.text:
                    key, value = arg.text.split("=", 1)
                    state.aliases[key] = value
        elif name == "set" and inv.args[:1] and inv.args[0].text == "--":
            state.scope.positional = list(inv.args[1:])
        elif name in ("read", "mapfile", "readarray", "printf"):
            printed = None
            if name == "printf" and len(inv.args) > 2:
                printed = output_of(replace(inv, argv=(inv.argv[0], *inv.args[2:]))).text
            builtin_assignments(inv, state.scope, printed)

    def _runs(self, inv: Invocation, state: State, frame: Frame) -> None:
        """Analyse the code or commands `inv` runs in turn."""
        name = inv.name
        source = code_source(name, inv.args, stdin_piped=inv.stdin is not None)
        if source is not None:
            self._code(inv, source, state, frame)
        elif name == "xargs":
            if unbounded_parallel(inv):
                self.signal(
                    "spawn-loop", "xargs starts a process per item of endless input, all at once", inv.shown()
                )
            argv = xargs_argv(inv)
            if argv:
                self.run_argv(argv, state, frame.nested("xargs"), None)
        elif name == "find":
            for via, argv in find_actions(inv):
                self.run_argv(argv, state, frame.nested(via), None)
        elif name == "parallel":
            if unbounded_parallel(inv):
                self.signal(
                    "spawn-loop", "parallel starts a job per item of endless input, all at once", inv.shown()
                )
            argv = parallel_argv(inv)
            if argv:
                self.run_argv(argv, state, frame.nested("parallel"), None)
        elif name == "alias":
            for arg in inv.args:
                if "=" in arg.text:
                    self.run_script(arg.text.split("=", 1)[1], state.copy(), frame.nested("alias"))
        elif "/" in inv.argv[0].text and resolve(inv.argv[0].text, state.cwd).shown() in state.files:
            self._script_file(inv.argv[0], state, frame, positional=list(inv.args))
        else:
            text = shell_string_of(inv.name, inv.args)
            if text is not None:
                self.run_script(text.text, state.copy(), frame.nested(f"{name} command"))
        for hook in hooks_of(inv):
            self._hook(inv, hook, state, frame)

    def _hook(self, inv: Invocation, hook: Hook, state: State, frame: Frame) -> None:
        """Analyse what a program runs through an option, a setting or a variable."""
        inner = frame.nested(hook.via)
        if hook.argv:
            self.run_argv(hook.argv, state.copy(), inner, None)
        elif hook.code is not None and hook.language == "shell":
            self.run_script(hook.code, state.copy(), inner)
        elif hook.code is not None:
            self._interpreter(inv, CodeSource(hook.language, "arg"), hook.code, state, inner)

    def _code(self, inv: Invocation, source: CodeSource, state: State, frame: Frame) -> None:
        label = f"{inv.name} -c" if source.origin == "arg" else f"{source.origin} of {inv.name}"
        if inv.name in ("eval", "source", "."):
            label = inv.name
        text: str | None = None
        if source.origin == "arg" and source.code is not None:
            if source.code.opaque and DYNAMIC in source.code.taint:
                # Code printed by a local program (`eval "$(pyenv init -)"`) is as trusted as
                # running that program; downloads and decoders are caught by their taint.
                return
            text = source.code.text
        elif source.origin == "stdin":
            text = inv.data.text
        elif source.file is not None and source.file.content is not None:
            text = source.file.content.text
        elif source.file is not None:
            known = resolve(source.file.text, state.cwd).shown() in state.files
            if known and source.language == "shell" and inv.name not in ("source", "."):
                self._script_file(source.file, state, frame, positional=list(source.positional))
                return
            text = state.files.get(resolve(source.file.text, state.cwd).shown())
        if text is None:
            return
        if source.language != "shell":
            self._interpreter(inv, source, text, state, frame.nested(label))
            return
        if source.origin == "stdin" and inv.data.endless and _backgrounds(text):
            self.signal(
                "spawn-loop", f"{inv.name} reads endless commands that start background jobs", inv.shown()
            )
        shares_state = inv.name in ("eval", "source", ".")
        inner = state if shares_state else state.copy()
        if source.positional and not shares_state:
            inner.scope.positional = list(
                source.positional[1:] if source.origin == "arg" else source.positional
            )
        self.run_script(text, inner, frame.nested(label))

    def _script_file(self, path: Field, state: State, frame: Frame, *, positional: list[Field]) -> None:
        """Run a script file whose content this command wrote. A script that starts itself again
        through a pipe or in the background (`"$0" & "$0"`) multiplies, like a function would."""
        key = f"script {resolve(path.text, state.cwd).shown()}"
        if key in frame.calls:
            if frame.spawning:
                self.signal("fork-bomb", f"the script {path.shown()} starts copies of itself", path.shown())
            return
        inner = state.copy()
        inner.scope.positional = positional
        inner.scope.zero = path
        self.run_script(
            state.files[key.removeprefix("script ")],
            inner,
            replace(frame.nested(f"script {path.shown()}"), calls=(*frame.calls, key)),
        )

    def _interpreter(
        self, inv: Invocation, source: CodeSource, code: str, state: State, frame: Frame
    ) -> None:
        facts = inspect_code(source.language, code)
        shown = f"{inv.name}: {code[:160]}"
        if facts.fork_loop:
            self.signal("interpreter-fork-loop", f"{inv.name} code forks in an endless loop", shown)
        if facts.remote_exec:
            self.signal("interpreter-remote-exec", f"{inv.name} code downloads and executes code", shown)
        if facts.reverse_shell:
            self.signal(
                "interpreter-reverse-shell", f"{inv.name} code connects a shell to a network socket", shown
            )
        if facts.dynamic:
            self.signal("interpreter-dynamic-code", f"{inv.name} code {facts.dynamic}", shown)
        if facts.exfiltration:
            self.signal(
                "interpreter-exfiltration",
                f"{inv.name} code sends the environment or keys over the network",
                shown,
            )
        for command in facts.shell_commands:
            self.run_script(command.text, state.copy(), frame)
        for argv in facts.argvs:
            self.run_argv(argv, state.copy(), frame, None)

    def _call_function(
        self, name: str, argv: tuple[Field, ...], state: State, frame: Frame, stdin: Flow | None
    ) -> Flow:
        if name in frame.calls:
            if frame.spawning:
                self.signal(
                    "fork-bomb", f"function {name} starts copies of itself in a pipe or background", name
                )
            return EMPTY_FLOW
        body = state.functions[name]
        inner = state.copy()
        inner.scope.positional = list(argv[1:])
        return self.walk(
            body, inner, replace(frame.nested(f"function {name}"), calls=(*frame.calls, name)), stdin
        )


def _past_global_options(inv: Invocation) -> Invocation | None:
    """The same invocation without the CLI's global options (the table's), so that rules read
    `docker --context prod run --privileged` as `docker run --privileged`; run in the directory a
    global option names (`git -C DIR`). None when there are no global options to drop."""
    given, rest = command_fields(inv.name, inv.args)
    if not given or only_prints(inv.name, given):
        return None
    directory = chdir_of(inv.name, given)
    cwd = inv.cwd
    if directory is not None:
        moved = State(cwd=inv.cwd)
        _change_directory(moved, directory)
        cwd = moved.cwd
    return replace(inv, argv=(inv.argv[0], *rest), cwd=cwd)


def _change_directory(state: State, target: Field) -> None:
    """`cd TARGET`: the new working directory, and `$OLDPWD` (the shell's record of the one left)."""
    previous = state.cwd
    state.cwd = resolve(target.text, state.cwd).shown().replace("~", HOME_MARK, 1) if target.exact else "$CWD"
    if state.cwd.startswith("./") or state.cwd == ".":
        state.cwd = None if state.cwd == "." else state.cwd
    if previous is None:
        state.scope.variables["OLDPWD"] = Field(WORKSPACE_MARK)
    elif previous != "$CWD":
        state.scope.variables["OLDPWD"] = Field(previous)
    else:
        state.scope.variables.pop("OLDPWD", None)


def _backgrounds(text: str) -> bool:
    try:
        return spawns_in_background(parse(text))
    except ParseFailure:
        return False


def _mark_downloaded(arg: Field, state: State, *, command: bool = False) -> Field:
    """A path that an earlier download wrote (or that lies in an archive unpacked from the
    network, or a repository just cloned) is network content wherever it is used. A command
    name without a slash is looked up on PATH, never in the folder."""
    if not state.downloads or not arg.exact:
        return arg
    path = resolve(arg.text, state.cwd).shown()
    in_tree = not (command and "/" not in arg.text) and any(
        t.endswith("/**") and path.startswith(t[:-2]) for t in state.downloads
    )
    if path in state.downloads or in_tree:
        return replace(arg, taint=arg.taint | {NETWORK})
    return arg


def _shell_word(arg: Field) -> str:
    return "'" + arg.text.replace("'", "'\\''") + "'" if arg.exact else arg.text


__all__ = ["CommandSemantics", "Frame", "State", "basename"]
