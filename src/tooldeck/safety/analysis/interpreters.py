"""What an interpreter one-liner does: `python -c`, `perl -e`, `ruby -e`, `node -e`, `php -r`, awk.

The code string is read for calls that reach the system: shell commands (`os.system`,
`subprocess`, `system`, backticks, `child_process.execSync`...), deletions and mode changes
(`shutil.rmtree`, `fs.rmSync`, `FileUtils.rm_rf`, `os.chmod`), file writes, fork loops, and
network access combined with `exec`/`eval` (remote code) or with the environment and key files
(exfiltration) or with a shell on the socket (a reverse shell). Only these calls' arguments are
taken as commands: a string that is merely printed (`print('rm -rf /')`) is data. Code whose
effect depends on names built at run time (`getattr(os, 'sys'+'tem')`) is reported as dynamic
(`interpreter_dynamic.py`); fork loops are found by `interpreter_forks.py`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tooldeck.safety.analysis.interpreter_argv import computed_arguments, pipe_open_commands
from tooldeck.safety.analysis.interpreter_deletes import computed_deletion, reaches_outside
from tooldeck.safety.analysis.interpreter_dynamic import canonical_python, dynamic_reason, literal_code
from tooldeck.safety.analysis.interpreter_forks import forks_forever
from tooldeck.safety.analysis.model import HOME_MARK, Field
from tooldeck.safety.analysis.programs import Language

_STRING = r"""(?:[rRbBuUfF]{0,2}(?:'''(?:.|\n)*?'''|\"\"\"(?:.|\n)*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"))"""
_SHELL_CALLS = (
    r"(?<!\w)(?:os\.system|os\.popen|subprocess\.\w+|commands\.getoutput|pty\.spawn|os\.exec\w*|os\.spawn\w*"
    r"|system|exec|shell_exec|passthru|popen|proc_open|IO\.popen|Open3\.\w+|spawn|execSync|spawnSync"
    r"|execFileSync|execFile)\b"
)
_DELETE_TREE = r"shutil\.rmtree|os\.removedirs|rmSync|rmdirSync|fs\.rm|promises\.rm|rimraf|rm_rf|rm_r|remove_dir|remove_entry(?:_secure)?|rmtree|remove_tree|deleteDirectory"
_DELETE_FILE = r"os\.remove|os\.unlink|os\.rmdir|unlinkSync|(?<![\w.])unlink|File\.delete|FileUtils\.rm"
_WRITES = r"writeFileSync|appendFileSync|file_put_contents|File\.write|IO\.write"
_HOME_EXPR = re.compile(
    r"os\.path\.expanduser\(\s*(['\"])~(?P<rest>[^'\"]*)\1\s*\)|os\.environ\[\s*['\"]HOME['\"]\s*\]"
    r"|os\.environ\.get\(\s*['\"]HOME['\"][^)]*\)|os\.getenv\(\s*['\"]HOME['\"][^)]*\)|(?:pathlib\.)?Path\.home\(\)"
    r"|(?:require\(\s*['\"]os['\"]\s*\)|os)\.homedir\(\)|process\.env\.HOME|process\.env\[\s*['\"]HOME['\"]\s*\]"
    r"|ENV\[\s*['\"]HOME['\"]\s*\]|Dir\.home|File\.expand_path\(\s*['\"]~(?P<rrest>[^'\"]*)['\"]\s*\)"
    r"|\$ENV\{\s*['\"]?HOME['\"]?\s*\}|getenv\(\s*['\"]HOME['\"]\s*\)"
)
_NETWORK = re.compile(
    r"urllib|urlopen|requests\.(?:get|post|put|request)|http\.client|httpx|\bsocket\b|fetch\s*\(|https?\.(?:get|request)\s*\("
    r"|Net::HTTP|open-uri|URI\.open|LWP|IO::Socket|HTTP::Tiny|curl_exec|file_get_contents\(\s*['\"](?:https?|ftp)://"
    r"|fsockopen|['\"](?:https?|ftp)://"
)
# A socket whose descriptors become a shell's: a reverse or bind shell.
_SOCKET = re.compile(
    r"\bsocket\b|IO::Socket|TCPSocket|\bnet\.(?:connect|Socket|createConnection)|fsockopen|\bSocket\.new"
)
_SHELL_ON_FDS = re.compile(
    r"\bdup2\s*\(|pty\.spawn|\bsh\s+-i\b|[<>]&\s*\d|\.pipe\(\s*\w+\.stdin|open\(\s*STD(?:IN|OUT)\s*,\s*['\"][<>+]*&"
)
_RUNS_DATA = re.compile(r"\b(?:exec|eval|Function|instance_eval|class_eval|compile)\s*\(|\beval\b|\bexec\b\s")
_SECRETS = re.compile(
    r"os\.environ(?!\s*(?:\[|\.get))|\bdict\(\s*os\.environ|process\.env(?!\s*[.\[])|%ENV\b|\bENV\.(?:to_h|each|map|inspect)"
    r"|\.ssh/|\.aws/|\.kube/|\.gnupg|\bid_rsa\b|\bid_ed25519\b|\.netrc|\.git-credentials|/etc/shadow"
)


@dataclass(slots=True)
class CodeFacts:
    """What one code string would do to the system."""

    shell_commands: list[Field] = field(default_factory=list)
    argvs: list[tuple[Field, ...]] = field(default_factory=list)
    fork_loop: bool = False
    remote_exec: bool = False
    exfiltration: bool = False
    # Why what the code does cannot be settled by reading it (names built at run time...).
    dynamic: str | None = None
    reverse_shell: bool = False

    def merge(self, other: CodeFacts) -> None:
        self.shell_commands += other.shell_commands
        self.argvs += other.argvs
        self.fork_loop = self.fork_loop or other.fork_loop
        self.remote_exec = self.remote_exec or other.remote_exec
        self.exfiltration = self.exfiltration or other.exfiltration
        self.dynamic = self.dynamic or other.dynamic
        self.reverse_shell = self.reverse_shell or other.reverse_shell


def inspect_code(language: Language, code: str, *, depth: int = 0) -> CodeFacts:
    """Read an interpreter's code string for the calls above."""
    facts = CodeFacts()
    if language == "python":
        code = canonical_python(code)
    facts.dynamic = dynamic_reason(language, code) or computed_arguments(language, code)
    if language == "awk":
        _awk(code, facts)
        facts.fork_loop = forks_forever(code)
        return facts
    if depth < 3:
        # Code that exec/eval run as written (`exec('import os; os.fork()')`) is read in turn.
        for inner in literal_code(language, code):
            facts.merge(inspect_code(language, inner, depth=depth + 1))
    for match in re.finditer(rf"(?:{_SHELL_CALLS})\s*[\(\{{]?\s*", code):
        _call_target(code, match.end(), facts, shell=True)
    piped, computed = pipe_open_commands(language, code)
    facts.shell_commands += [Field(c) for c in piped]
    if computed:
        facts.dynamic = facts.dynamic or "opens a pipe to a shell, or to a command built at run time"
    if language in ("perl", "ruby", "php", "shell"):
        for match in re.finditer(r"`([^`]*)`|(?:\bqx|%x)\s*([({\[/])", code):
            if match.group(1) is not None:
                facts.shell_commands.append(Field(match.group(1)))
            else:
                facts.shell_commands.append(Field(_bracketed(code, match.end(2) - 1)))
    computed = computed_deletion(code)
    for pattern, flags in ((_DELETE_TREE, "-rf"), (_DELETE_FILE, "-f")):
        for match in re.finditer(rf"(?:{pattern})\s*\(\s*", code):
            target = _path_expr(code, match.end())
            if target is not None:
                facts.argvs.append((Field("rm"), Field(flags), target))
                computed = computed or not target.exact
    if computed and reaches_outside(code):
        facts.dynamic = (
            facts.dynamic or "deletes paths it computes from the home directory or a system folder"
        )
    _chmods(code, facts)
    _writes(code, facts)
    facts.fork_loop = facts.fork_loop or forks_forever(code)
    network = bool(_NETWORK.search(code))
    facts.remote_exec = facts.remote_exec or (network and bool(_RUNS_DATA.search(code)))
    facts.exfiltration = facts.exfiltration or (network and bool(_SECRETS.search(code)))
    facts.reverse_shell = facts.reverse_shell or bool(_SOCKET.search(code) and _SHELL_ON_FDS.search(code))
    return facts


def _call_target(code: str, pos: int, facts: CodeFacts, *, shell: bool) -> None:
    rest = code[pos:]
    if rest.startswith("["):
        items = [_literal(m.group(0)) for m in re.finditer(_STRING, _bracketed(code, pos))]
        words = tuple(Field(t) for t in items if t is not None)
        if words:
            facts.argvs.append(words)
        return
    match = re.match(_STRING, rest)
    if match:
        text = _literal(match.group(0))
        if text is not None and shell:
            facts.shell_commands.append(Field(text, exact=not match.group(0).lower().startswith("f")))
        elif text is not None:
            facts.argvs.append((Field(text),))


def _literal(token: str) -> str | None:
    body = token.lstrip("rRbBuUfF")
    raw = "r" in token[: len(token) - len(body)].lower()
    for quote in ('"""', "'''", '"', "'"):
        if body.startswith(quote) and body.endswith(quote) and len(body) >= 2 * len(quote):
            inner = body[len(quote) : -len(quote)]
            if raw:
                return inner
            return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), inner)
    return None


def _bracketed(code: str, start: int) -> str:
    """The text inside the bracket at `start`, with nesting."""
    pairs = {"(": ")", "[": "]", "{": "}", "/": "/", "<": ">"}
    opener = code[start] if start < len(code) else ""
    closer = pairs.get(opener, opener)
    depth, i = 0, start
    while i < len(code):
        ch = code[i]
        if ch == closer and (depth == 1 or opener == closer) and i > start:
            return code[start + 1 : i]
        if ch == opener:
            depth += 1
        elif ch == closer:
            depth -= 1
        i += 1
    return code[start + 1 :]


def _path_expr(code: str, pos: int) -> Field | None:
    rest = code[pos:]
    home = _HOME_EXPR.match(rest)
    if home:
        tail = home.group("rest") or home.group("rrest") or ""
        after = re.match(r"\s*[+/]\s*(" + _STRING + ")", rest[home.end() :])
        if after:
            tail += "/" + (_literal(after.group(1)) or "").lstrip("/")
        return Field(HOME_MARK + tail)
    wrapped = re.match(r"(?:pathlib\.)?Path\(\s*", rest)
    if wrapped:
        return _path_expr(code, pos + wrapped.end())
    match = re.match(_STRING, rest)
    if match:
        text = _literal(match.group(0))
        return Field(text) if text is not None else None
    return Field("$" + re.split(r"[\s,)]", rest, maxsplit=1)[0], exact=False) if rest else None


def _chmods(code: str, facts: CodeFacts) -> None:
    for match in re.finditer(r"(?:os\.chmod|chmodSync|fs\.chmod|(?<![\w.])chmod)\s*\(\s*", code):
        target = _path_expr(code, match.end())
        mode = re.search(r",\s*(0o?[0-7]{3,4}|[0-7]{3,4})", code[match.end() : match.end() + 200])
        if target is not None and mode:
            facts.argvs.append(
                (Field("chmod"), Field(mode.group(1).replace("0o", "").lstrip("0") or "0"), target)
            )
    for match in re.finditer(r"File\.chmod\(\s*(0o?[0-7]{3,4})\s*,\s*", code):
        target = _path_expr(code, match.end())
        if target is not None:
            facts.argvs.append((Field("chmod"), Field(match.group(1).replace("0o", "")), target))


def _writes(code: str, facts: CodeFacts) -> None:
    for match in re.finditer(rf"(?:{_WRITES})\s*\(\s*", code):
        target = _path_expr(code, match.end())
        if target is not None:
            facts.argvs.append((Field("tee"), Field("-a"), target))
    for match in re.finditer(r"(?<![\w.])open\(\s*", code):
        target = _path_expr(code, match.end())
        mode = re.match(r"[^,)]*,\s*['\"]([rwaxb+]+)['\"]", code[match.end() :])
        if target is not None and mode and set(mode.group(1)) & set("wax+"):
            facts.argvs.append((Field("tee"), Field("-a"), target))


def _awk(code: str, facts: CodeFacts) -> None:
    for match in re.finditer(r"\bsystem\s*\(\s*\"((?:\\.|[^\"\\])*)\"", code):
        facts.shell_commands.append(Field(match.group(1).replace('\\"', '"')))
    for match in re.finditer(r"\|\s*\"((?:\\.|[^\"\\])*)\"", code):
        target = match.group(1).strip()
        if target.split(" ")[0] not in ("sh", "bash", "/bin/sh", "/bin/bash"):
            facts.shell_commands.append(Field(target))
    for match in re.finditer(r"\"((?:\\.|[^\"\\])*)\"\s*\|\s*getline", code):
        facts.shell_commands.append(Field(match.group(1)))
