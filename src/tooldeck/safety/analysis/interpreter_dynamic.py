"""When interpreter code's effect cannot be settled by reading it: names built at run time.

`getattr(os, 'sys'+'tem')`, `__import__(name)`, `exec(base64.b64decode(...))`, a dangerous
function under another name (`f = shutil.rmtree`), a command passed in a variable
(`os.system(cmd)`), Ruby's `send`, Perl's `&$f`, PHP's `$f(...)`, Node's `require(m)` or
`cp['ex'+'ec']`: the analyser cannot know what runs, so such code needs approval, never `safe`.
Plain code (`print(1)`, `getattr(sys, 'frozen', False)`, `eval('2+3')`) stays `safe`.

The code is first reduced to a skeleton whose string literals are numbered placeholders, so a
word inside a string (`print("eval(x)")`) is data, and "is this argument one literal?" is a
question about the skeleton.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tooldeck.safety.analysis.interpreter_reflection import perl_reflection, ruby_reflection
from tooldeck.safety.analysis.interpreter_skeleton import LIT, Skeleton, call_args, skeleton
from tooldeck.safety.analysis.programs import Language


def _first_arg(sk: Skeleton, match: re.Match[str]) -> str | None:
    """The first argument of the call the match ends at (its `(`), or None without parentheses."""
    paren = match.end() - 1
    if sk.text[paren : paren + 1] != "(":
        return None
    args = call_args(sk.text, paren)
    return args[0] if args else ""


def _literal_list(sk: Skeleton, arg: str) -> bool:
    """A literal, or a list/tuple of literals (`['ls', '-la']`, with `sys.executable` allowed)."""
    arg = arg.strip()
    if sk.literal(arg) is not None:
        return True
    if arg[:1] in "[(" and arg[-1:] in "])":
        items = [i.strip() for i in arg[1:-1].split(",") if i.strip()]
        return all(sk.literal(i) is not None or i == "sys.executable" for i in items)
    return False


def _literal_operand(sk: Skeleton, pos: int) -> bool:
    """Is the operand at `pos` (`(...)`, or a bare operand up to `;`) exactly one literal?"""
    rest = sk.text[pos:]
    stripped = rest.lstrip()
    if stripped.startswith("("):
        args = call_args(sk.text, pos + len(rest) - len(stripped))
        return len(args) == 1 and sk.literal(args[0]) is not None
    operand = re.split(r"[;\n}]|\bif\b|\bunless\b", stripped, maxsplit=1)[0]
    return sk.literal(operand) is not None


_DANGEROUS_ATTRS = frozenset(
    [
        "system",
        "popen",
        "spawn",
        "spawnl",
        "spawnlp",
        "spawnv",
        "spawnvp",
        "execv",
        "execve",
        "execvp",
        "execl",
        "execlp",
        "fork",
        "forkpty",
        "kill",
        "killpg",
        "remove",
        "unlink",
        "rmdir",
        "removedirs",
        "rmtree",
        "rename",
        "replace",
        "chmod",
        "chown",
        "truncate",
        "run",
        "call",
        "check_call",
        "check_output",
        "Popen",
        "getoutput",
        "getstatusoutput",
        "exec",
        "eval",
        "compile",
        "__import__",
        "import_module",
    ]
)
_PY_SHELL_CALL = re.compile(
    r"(?<![\w.])(?:os\.(?:system|popen|exec\w*|spawn\w*)|subprocess\.(?:run|call|check_call|check_output|Popen"
    r"|getoutput|getstatusoutput)|pty\.spawn|commands\.getoutput)\s*\("
)
_PY_INTERNALS = re.compile(
    r"__builtins__|(?<![\w.])builtins\.|(?<![\w.])(?:globals|locals|vars)\s*\(\s*\)\s*\[|__dict__\s*\["
    r"|__getattribute__|__subclasses__|__globals__|__code__|\bsys\.modules\s*\[|operator\.(?:attrgetter|methodcaller)"
    r"|types\.(?:FunctionType|CodeType)|(?:pickle|cPickle|marshal|dill|cloudpickle|jsonpickle)\.loads?\s*\("
    r"|yaml\.unsafe_load|\bctypes\b.*\b(?:CDLL|cdll|LoadLibrary|libc)\b|importlib\.(?:util\.)?(?:spec_from_file_location"
    r"|module_from_spec|spec_from_loader)|\.exec_module\s*\(|importlib\.reload|functools\.partial\s*\(\s*(?:os|shutil"
    r"|subprocess)\.|(?<![\w.])partial\s*\(\s*(?:os|shutil|subprocess)\."
)
_PY_ALIAS = re.compile(
    r"(?<![\w.])[A-Za-z_]\w*\s*=\s*(?:os\.(?:system|popen|remove|unlink|rmdir|removedirs|kill|killpg|exec\w*"
    r"|spawn\w*|fork|chmod|chown|rename|replace|truncate)|shutil\.(?:rmtree|move|chown)|subprocess\.\w+"
    r"|pty\.spawn)\b(?![ \t]*[(.\w])"
)


def _project_file(sk: Skeleton, arg: str) -> bool:
    """`open('setup_env.py').read()`: the code of a file of the project, as `python FILE` runs it."""
    match = re.fullmatch(
        r"\s*(?:open|(?:pathlib\.)?Path)\(\s*\x01(\d+)\x01\s*\)\.read(?:_text)?\(\s*\)\s*", arg
    )
    if match is None:
        return False
    path = sk.literals[int(match.group(1))]
    return bool(path) and not path.startswith(("/", "~", "..", "$")) and "/../" not in path


# execute_code's own module: its functions are tools, each call goes through every gate.
_OWN_TOOLS_IMPORT = re.compile(
    r"(?m)^[ \t]*import[ \t]+tooldeck_tools(?:[ \t]+as[ \t]+(\w+))?[ \t]*(?:#.*)?$"
)


def own_tool_modules(text: str) -> frozenset[str]:
    """Names bound to execute_code's `tooldeck_tools` module (`import tooldeck_tools [as t]`) and
    to nothing else: `getattr(tooldeck_tools, name)(**args)` calls a tool, as `call(name)` does."""
    names = {m.group(1) or "tooldeck_tools" for m in _OWN_TOOLS_IMPORT.finditer(text)}
    rest = _OWN_TOOLS_IMPORT.sub("", text)
    return frozenset(name for name in names if not _rebinds(name).search(rest))


def _rebinds(name: str) -> re.Pattern[str]:
    """Anything else that binds `name`: an assignment, `as NAME`, an import, a def, a loop variable."""
    return re.compile(
        rf"(?<![\w.]){name}\s*(?::[^=\n]*)?=(?!=)|\bas\s+{name}\b|\bimport\s+(?:[^\n]*,\s*)?{name}\b"
        rf"|\b(?:def|class|global|nonlocal|del)\s+{name}\b|\bfor\s+[^\n]*\b{name}\b[^\n]*\bin\b"
    )


def _python(sk: Skeleton) -> str | None:
    text = sk.text
    own = own_tool_modules(text)
    for match in re.finditer(r"(?<![\w.])getattr\s*\(", text):
        args = call_args(text, match.end() - 1)
        if args and args[0].strip() in own:
            continue
        name = sk.literal(args[1]) if len(args) > 1 else None
        if len(args) > 1 and name is None:
            return "getattr reaches a function whose name is computed at run time"
        if name in _DANGEROUS_ATTRS:
            return f"getattr reaches {name} indirectly"
    for match in re.finditer(r"(?<![\w.])__import__\s*\(|(?<![\w.])(?:importlib\.)?import_module\s*\(", text):
        arg = _first_arg(sk, match)
        if arg is not None and sk.literal(arg) is None:
            return "imports a module whose name is computed at run time"
    for match in re.finditer(r"(?<![\w.])(?:exec|eval|compile)\s*\(", text):
        arg = _first_arg(sk, match)
        if arg is not None and sk.literal(arg) is None and not _project_file(sk, arg):
            return "runs code built or decoded at run time (exec/eval)"
    if _PY_INTERNALS.search(text):
        return "reaches functions through the interpreter's internals or deserialises code"
    if _PY_ALIAS.search(text) or re.search(
        r"from\s+(?:os|shutil|subprocess|pty)\s+import\s+[^\n;]*\b\w+\s+as\s+\w+", text
    ):
        return "calls a dangerous function under another name"
    for match in _PY_SHELL_CALL.finditer(text):
        arg = _first_arg(sk, match)
        if arg is not None and not _literal_list(sk, arg):
            return "runs a command that is computed at run time"
    return None


_NODE_RUNNERS = r"(?:execSync|spawnSync|execFileSync|execFile|exec|spawn|fork)"


def _node(sk: Skeleton) -> str | None:
    text = sk.text
    for match in re.finditer(r"(?<![\w.$])(?:require|import|eval)\s*\(", text):
        arg = _first_arg(sk, match)
        if arg is not None and sk.literal(arg) is None:
            return "loads a module or runs code named at run time (require, import, eval)"
    if re.search(
        r"(?<![\w.$])(?:new\s+)?Function\s*\(|\.runIn\w*Context\s*\(|\bvm\.(?:Script|compileFunction)|process\.(?:binding"
        r"|_linkedBinding|dlopen)|module\.constructor|Module\._load|\bReflect\.(?:apply|get|construct)"
        r"|(?<![\w.$])(?:global|globalThis)\s*\[|setTimeout\s*\(\s*\x01|setInterval\s*\(\s*\x01",
        text,
    ):
        return "reaches code through Function, vm, process internals or the global object"
    child_process = any("child_process" in lit for lit in sk.literals)
    if child_process and (
        re.search(r"\{[^}]*\b" + _NODE_RUNNERS + r"\s*:\s*\w+", text)
        or re.search(r"=\s*(?:\w+\.)?" + _NODE_RUNNERS + r"\b(?![ \t]*[(.\w])", text)
        or re.search(r"\[(?!\s*" + LIT + r"\s*\])[^\]]*\]\s*\(", text)
    ):
        return "calls child_process under another or a computed name"
    if child_process:
        for match in re.finditer(r"(?<![\w$])" + _NODE_RUNNERS + r"\s*\(", text):
            arg = _first_arg(sk, match)
            if arg is not None and sk.literal(arg) is None:
                return "runs a command that is computed at run time"
    return None


def _perl(sk: Skeleton) -> str | None:
    text = sk.text
    for match in re.finditer(r"(?<![\w$@%&])eval\b(?!\s*\{)", text):
        if not _literal_operand(sk, match.end()):
            return "runs code built or decoded at run time (eval)"
    reflection = perl_reflection(sk)
    if reflection is not None:
        return reflection
    for match in re.finditer(r"(?<![\w$@%&>])(?:system|exec)\b\s*\(?\s*", text):
        if text[match.end() : match.end() + 1] in ("$", "@"):
            return "runs a command that is computed at run time"
    return None


def _ruby(sk: Skeleton) -> str | None:
    text = sk.text
    reflection = ruby_reflection(sk)
    if reflection is not None:
        return reflection
    for match in re.finditer(r"(?<![\w.])eval\b\s*", text):
        if not _literal_operand(sk, match.end()):
            return "runs code built or decoded at run time (eval)"
    if re.search(r"`[^`]*#\{|%x[({\[][^)}\]]*#\{", text):
        return "runs a command built at run time"
    for match in re.finditer(r"(?<![\w.])(?:system|exec|spawn)\b\s*\(?\s*", text):
        nxt = text[match.end() : match.end() + 1]
        if nxt and (nxt.isalpha() or nxt in "\x02@$*["):
            return "runs a command that is computed at run time"
    return None


_PHP_TAKES_CALLBACK = re.compile(
    r"(?<![\w>$])(?:array_map|array_walk(?:_recursive)?|array_filter|array_reduce|u[ak]?sort|iterator_apply"
    r"|register_(?:shutdown|tick)_function|ob_start|preg_replace_callback|set_(?:error|exception)_handler"
    r"|spl_autoload_register|forward_static_call(?:_array)?)\s*\("
)
_PHP_SYSTEM_FUNCTIONS = frozenset(
    {
        "system",
        "exec",
        "shell_exec",
        "passthru",
        "popen",
        "proc_open",
        "pcntl_exec",
        "unlink",
        "rmdir",
        "assert",
    }
)


def _php(sk: Skeleton) -> str | None:
    text = sk.text
    if re.search(
        r"\$\w+\s*\(|call_user_func(?:_array)?\s*\(|create_function|Reflection(?:Function|Method)|\$\$\w"
        r"|\bunserialize\s*\(|\b(?:include|require)(?:_once)?\s*\(?\s*\$",
        text,
    ):
        return "calls a function whose name is computed at run time"
    for match in re.finditer(r"(?<![\w>$])(?:eval|assert)\s*\(", text):
        arg = _first_arg(sk, match)
        if arg is not None and sk.literal(arg) is None:
            return "runs code built or decoded at run time (eval)"
    for match in _PHP_TAKES_CALLBACK.finditer(text):
        names = {sk.literal(a) for a in call_args(text, match.end() - 1)}
        if names & _PHP_SYSTEM_FUNCTIONS:
            return "hands a function that reaches the system to another function by its name"
    for match in re.finditer(r"(?<![\w>$])(?:system|exec|shell_exec|passthru|popen|proc_open)\s*\(", text):
        arg = _first_arg(sk, match)
        if arg is not None and sk.literal(arg) is None:
            return "runs a command that is computed at run time"
    return None


def _lua(sk: Skeleton) -> str | None:
    text = sk.text
    if re.search(
        r"(?<![\w.])(?:load|loadstring|dofile|loadfile)\s*\(|\b_G\s*\[|\b_ENV\s*\[|\b[gs]etfenv\b", text
    ):
        return "loads code or reaches functions by a name computed at run time"
    for match in re.finditer(r"(?<![\w.])(?:os\.execute|io\.popen|require)\s*\(", text):
        arg = _first_arg(sk, match)
        if arg is not None and sk.literal(arg) is None:
            return "runs a command or loads a module computed at run time"
    return None


_SHELL_NAMES = r"(?:/bin/|/usr/bin/)?(?:sh|bash|dash|zsh|ksh)\b"


def _awk(sk: Skeleton) -> str | None:
    # Regular expressions (`/error|warn/`) hold `|` that is not a pipe.
    sk = Skeleton(re.sub(r"(^|[(,~!{;&|]\s*|\s)/(?:\\.|[^/\\\n])+/", r"\1R", sk.text), sk.literals)
    text = sk.text
    for match in re.finditer(r"\bsystem\s*\(", text):
        arg = _first_arg(sk, match)
        if arg is not None and sk.literal(arg) is None:
            return "awk runs a command built at run time with system()"
    for match in re.finditer(r"(?<!\|)\|(?!\|)\s*", text):
        rest = text[match.end() :]
        if rest.startswith("getline"):
            left = text[: match.start()].rstrip()
            if not re.search(LIT + r"$", left):
                return "awk reads the output of a command built at run time"
            continue
        target = re.match(r"\x01(\d+)\x01", rest)
        if target is None:
            return "awk pipes into a command built at run time"
        if re.match(_SHELL_NAMES, sk.literals[int(target.group(1))].strip()):
            return "awk pipes the text it prints into a shell, which runs it"
    return None


_CHECKS: dict[Language, Callable[[Skeleton], str | None]] = {
    "python": _python,
    "node": _node,
    "perl": _perl,
    "ruby": _ruby,
    "php": _php,
    "lua": _lua,
    "awk": _awk,
}
# A member or key whose name is glued together from pieces, in any of these languages.
_GLUED_KEY = re.compile(r"[\[{]\s*" + LIT + r"\s*(?:\+|\.\.?)\s*" + LIT)


def dynamic_reason(language: Language, code: str) -> str | None:
    """Why the effect of `code` cannot be settled statically, or None when it can."""
    check = _CHECKS.get(language)
    if check is None:
        return None
    sk = skeleton(language, code)
    if _GLUED_KEY.search(sk.text):
        return "reaches a function by a name glued together from pieces"
    return check(sk)


def literal_code(language: Language, code: str) -> list[str]:
    """Code strings that `exec`/`eval` run as they are written (`eval('1+1')`), to read in turn."""
    sk = skeleton(language, code)
    out: list[str] = []
    for match in re.finditer(r"(?<![\w.$])(?:exec|eval)\s*\(", sk.text):
        arg = _first_arg(sk, match)
        value = sk.literal(arg) if arg is not None else None
        if value is not None:
            out.append(value)
    return out


_PY_MODULES = r"(?:os|subprocess|shutil|pty|importlib|pickle|marshal|ctypes|builtins|sys|posix)"


def canonical_python(code: str) -> str:
    """Python code with module and function aliases written out in full.

    `import subprocess as sp; sp.run(...)`, `from os import system as s; s(...)` and
    `f = shutil.rmtree; f(...)` become `subprocess.run(...)`, `os.system(...)` and
    `shutil.rmtree(...)`, so the calls are read like any other.
    """
    for match in re.finditer(r"\bimport\s+([^\n;]+)", code):
        for part in match.group(1).split(","):
            alias = re.fullmatch(r"\s*(" + _PY_MODULES + r")\s+as\s+([A-Za-z_]\w*)\s*", part)
            if alias:
                code = re.sub(r"(?<![\w.])" + alias.group(2) + r"\.", alias.group(1) + ".", code)
    for match in re.finditer(r"\bfrom\s+(" + _PY_MODULES + r")\s+import\s+\(?([^\n;)]+)", code):
        for part in match.group(2).split(","):
            names = re.fullmatch(r"\s*([A-Za-z_]\w*)(?:\s+as\s+([A-Za-z_]\w*))?\s*", part)
            if names and names.group(1) != "*":
                local = names.group(2) or names.group(1)
                code = re.sub(
                    r"(?<![\w.])" + local + r"(?=\s*\()", f"{match.group(1)}.{names.group(1)}", code
                )
    for match in re.finditer(
        r"(?<![\w.])([A-Za-z_]\w*)\s*=\s*(" + _PY_MODULES + r"\.\w+)\b(?![ \t]*[(.\w])", code
    ):
        code = re.sub(r"(?<![\w.])" + match.group(1) + r"(?=\s*\()", match.group(2), code)
    return code
