"""Reflection that names what it calls: Ruby's `send`/`method`/`const_get`, Perl's code references.

`[3, 1].public_send(:sort)`, `each(&method(:puts))`, `my $f = \\&sum; $f->(1)` call a method or a
subroutine written out in the code, so they are as plain as a direct call. They hide what runs
only when the name is computed (`send(("sys" + "tem").to_sym)`, `&{"main::$x"}`, `\\&$name`) or
when the name written is one that reaches the system (`method(:system)`, `FileUtils.method(:rm_rf)`,
`\\&CORE::unlink`, `->can('system')`).
"""

from __future__ import annotations

import re

from tooldeck.safety.analysis.interpreter_skeleton import Skeleton, call_args

# Methods, functions and constants that reach the system, by the name a reflective call gives.
SYSTEM_NAMES = frozenset(
    {
        "system",
        "exec",
        "spawn",
        "fork",
        "syscall",
        "popen",
        "popen2",
        "popen3",
        "capture2",
        "capture2e",
        "capture3",
        "open",
        "eval",
        "instance_eval",
        "class_eval",
        "module_eval",
        "instance_exec",
        "class_exec",
        "send",
        "public_send",
        "__send__",
        "method",
        "const_get",
        "define_method",
        "require",
        "load",
        "`",
        "rm",
        "rm_r",
        "rm_rf",
        "rmtree",
        "remove_tree",
        "remove_dir",
        "remove_entry",
        "remove_entry_secure",
        "rmdir",
        "delete",
        "unlink",
        "chmod",
        "chown",
        "kill",
        "rename",
        "truncate",
        "write",
        "binwrite",
        "qx",
        "readpipe",
        "Kernel",
        "Process",
        "IO",
        "Open3",
        "PTY",
        "FileUtils",
        "File",
        "Dir",
        "ObjectSpace",
        "Object",
        "Binding",
    }
)
_RUBY_REFLECTION = re.compile(
    r"(?:\.|(?<![\w.]))(?:send|public_send|__send__|method|public_method|instance_method|const_get"
    r"|define_method|instance_variable_get)(?=\s*[(:\s\x01])"
)
_RUBY_EVALS = re.compile(
    r"(?:\.|(?<![\w.]))(?:instance_eval|class_eval|module_eval|instance_exec|class_exec)\b"
)


def ruby_reflection(sk: Skeleton) -> str | None:
    """Why Ruby code's reflective calls hide what runs, or None when each names a plain method."""
    text = sk.text
    for match in _RUBY_REFLECTION.finditer(text):
        name = _first_name(sk, match.end())
        if name is None or name in SYSTEM_NAMES:
            return "calls a method through send, method, const_get or eval"
    for match in _RUBY_EVALS.finditer(text):
        rest = text[match.end() :].lstrip()
        # A block is code written out; a literal string is read as code elsewhere.
        if not (rest.startswith(("{", "do")) or _first_name(sk, match.end(), literal_only=True)):
            return "calls a method through send, method, const_get or eval"
    if re.search(r"\bbinding\s*\.\s*(?:eval|local_variable_set)|Marshal\.load|YAML\.unsafe_load", text):
        return "calls a method through send, method, const_get or eval"
    return None


def _first_name(sk: Skeleton, pos: int, *, literal_only: bool = False) -> str | None:
    """The method name a call's first argument spells (`:sort`, `"sort"`), or None when computed."""
    rest = sk.text[pos:]
    stripped = rest.lstrip()
    if stripped.startswith("("):
        args = call_args(sk.text, pos + len(rest) - len(stripped))
        first = args[0].strip() if args else ""
    else:
        first = re.split(r"[,;\n)}]|\s(?:if|unless|do)\b", stripped, maxsplit=1)[0].strip()
    literal = sk.literal(first)
    if literal is not None:
        return literal if re.fullmatch(r"[A-Za-z_]\w*[?!=]?|::?[A-Z]\w*", literal) else None
    if literal_only:
        return None
    symbol = re.fullmatch(r":([A-Za-z_]\w*[?!=]?|[-+*/%<>=!~^&|]+|\[\]=?)", first)
    if symbol:
        return symbol.group(1)
    if re.fullmatch(r"[A-Z]\w*(?:::[A-Z]\w*)*", first):
        return first.rsplit("::", 1)[-1]  # const_get(File::Stat)
    return None


# `&$f(...)`, `&{"name"}`, `\&$name`, `\&{...}`, `*{"main::$x"}`, `require $x`, `$obj->$name()`.
_PERL_SYMBOLIC = re.compile(
    r"(?<!&)&(?!&)\s*[${]|\\\s*&\s*[${]|\*\s*\{|\b(?:require|do)\s+\$|\bgoto\s*&\s*\$|->\s*\$\w+\s*\("
)
_PERL_REFERENCE = re.compile(r"\\\s*&\s*((?:\w+::)*\w+)")
_PERL_CAN = re.compile(r"->\s*can\s*\(")


def perl_reflection(sk: Skeleton) -> str | None:
    """Why Perl code calls a subroutine whose name cannot be read, or None."""
    text = sk.text
    if _PERL_SYMBOLIC.search(text):
        return "calls a subroutine through a reference or a name computed at run time"
    for match in _PERL_REFERENCE.finditer(text):
        name = match.group(1)
        if name.startswith("CORE::") or name.rsplit("::", 1)[-1] in SYSTEM_NAMES:
            return f"calls {name} through a reference"
    for match in _PERL_CAN.finditer(text):
        args = call_args(text, match.end() - 1)
        name = sk.literal(args[0]) if args else None
        if name is None or name.rsplit("::", 1)[-1] in SYSTEM_NAMES:
            return "calls a subroutine through a reference or a name computed at run time"
    return None
