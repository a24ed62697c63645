"""Programs that run commands through a hook: an option, a script they read, or a variable.

sed's `e` command and `s///e`, tar's `--checkpoint-action=exec=`, `--to-command`,
`--use-compress-program`, make reading a makefile from standard input or `--eval`, vim/ex `-c`
shell escapes, ed and database shells' `!`, emacs `--eval`, gdb `-ex shell`, git settings
(`hook_git.py`), less `+!cmd`, man `-P`, rsync `-e`, ssh `-o ProxyCommand=`, zip `-TT`, tcpdump
`-z`, socat `EXEC:`, netcat `-e`, `at` jobs, tmux and screen sessions, and variables that name a
command (`GIT_SSH_COMMAND`, `PAGER`, `EDITOR`, `LESSOPEN`, `LD_PRELOAD`...). `hooks_of` lists
them; the walker analyses each command and the `exec-hook` rule asks about the unusual ones.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tooldeck.safety.analysis.hook_git import config_hook, git_hooks
from tooldeck.safety.analysis.hook_runners import RUNNERS
from tooldeck.safety.analysis.hook_types import (
    ASKPASS_PROGRAMS,
    COMPRESSORS,
    EDITORS,
    PAGERS,
    PROXY_PROGRAMS,
    SSH_PROGRAMS,
    Hook,
    program_of,
)
from tooldeck.safety.analysis.model import HOME_MARK, Field, Invocation
from tooldeck.safety.analysis.paths import classify
from tooldeck.safety.analysis.sed_script import sed_effects, sed_scripts
from tooldeck.safety.analysis.shell_escapes import ed_escapes, ex_escapes, gdb_escapes, sql_shell_escapes
from tooldeck.safety.knowledge.table import sql_of


def option_values(words: list[str], *flags: str) -> list[str]:
    """Values of `-X V`, `-XV`, `--long V` and `--long=V` for the flags given."""
    out: list[str] = []
    for i, word in enumerate(words):
        for flag in flags:
            if word == flag and i + 1 < len(words):
                out.append(words[i + 1])
            elif flag.startswith("--") and word.startswith(flag + "="):
                out.append(word[len(flag) + 1 :])
            elif not flag.startswith("--") and word.startswith(flag) and len(word) > len(flag):
                out.append(word[len(flag) :].lstrip("="))
    return out


def _sed(inv: Invocation) -> list[Hook]:
    out: list[Hook] = []
    for script in sed_scripts(inv):
        for code in sed_effects(script.text).runs:
            what = "a shell command" if code is not None else "the text it edits as shell commands"
            out.append(Hook("sed e", code=code, what=what))
    return out


def _tar(inv: Invocation) -> list[Hook]:
    words = inv.arg_texts()
    out: list[Hook] = []
    for action in option_values(words, "--checkpoint-action"):
        if action.startswith("exec="):
            out.append(Hook("tar --checkpoint-action", code=action[5:], what="a checkpoint command"))
    for code in option_values(words, "--to-command"):
        out.append(Hook("tar --to-command", code=code, what="a command fed every extracted file"))
    for code in option_values(words, "--use-compress-program") + _separate(words, "-I"):
        usual = program_of(code) in COMPRESSORS
        out.append(Hook("tar --use-compress-program", code=code, usual=usual, what="a compressor"))
    for code in option_values(words, "--rsh-command"):
        out.append(Hook("tar --rsh-command", code=code, usual=program_of(code) in SSH_PROGRAMS))
    for script in option_values(words, "--info-script", "--new-volume-script") + _separate(words, "-F"):
        out.append(Hook("tar --info-script", argv=(Field(script),), what="a volume script"))
    return out


def _separate(words: list[str], flag: str) -> list[str]:
    return [words[i + 1] for i, w in enumerate(words[:-1]) if w == flag]


_STDIN_FILES = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})


def _make(inv: Invocation) -> list[Hook]:
    words = inv.arg_texts()
    out: list[Hook] = []
    files = option_values(words, "-f", "--file", "--makefile")
    # tree-sitter-bash drops a lone `-` written before a heredoc (`make -f - <<EOF`).
    dropped = words[-1:] in (["-f"], ["--file"]) and inv.stdin is not None
    if dropped or any(f in _STDIN_FILES for f in files):
        text = inv.data.text
        out.append(
            Hook(
                "make -f -",
                code=makefile_commands(text) if text is not None else None,
                what="recipes read from standard input",
            )
        )
    for text in option_values(words, "--eval", "-E"):
        out.append(
            Hook("make --eval", code=makefile_commands(text), what="recipes given on the command line")
        )
    for word in words:
        if word.startswith("SHELL="):
            shell = word[6:]
            usual = program_of(shell) in ("sh", "bash", "dash", "zsh", "ksh")
            out.append(
                Hook("make SHELL=", argv=(Field(shell),), usual=usual, what="the shell recipes run in")
            )
    return out


def makefile_commands(text: str) -> str:
    """The recipe lines and `$(shell ...)` calls of a makefile, as one shell script."""
    commands: list[str] = []
    for line in text.replace("\\\n", " ").split("\n"):
        inline = re.match(r"[^#=\t:][^=:]*::?(?!=)[^;=]*;(.*)", line)
        if line.startswith("\t"):
            commands.append(line[1:].lstrip("@-+ "))
        elif inline:
            commands.append(inline.group(1))
    commands += re.findall(r"\$\(shell\s+([^)]*)\)", text)
    return "\n".join(c.replace("$$", "$") for c in commands)


_EDITOR_NAMES = frozenset(
    {
        "vim",
        "vi",
        "nvim",
        "ex",
        "view",
        "vimdiff",
        "gvim",
        "evim",
        "gview",
        "vim.tiny",
        "vim.basic",
        "vim.nox",
        "nex",
    }
)


def _vim(inv: Invocation) -> list[Hook]:
    words = inv.arg_texts()
    commands = option_values(words, "-c", "--cmd") + [
        w[1:] for w in words if w.startswith("+") and len(w) > 1
    ]
    ex_mode = inv.name in ("ex", "nex") or any(re.fullmatch(r"-[a-zA-Z]*[eE][a-zA-Z]*", w) for w in words)
    if ex_mode and inv.data.text is not None and not any(w == "-" for w in words):
        commands += inv.data.text.split("\n")
    out: list[Hook] = []
    for command in commands:
        if re.fullmatch(r"\d+|/.*|\?.*", command):
            continue  # `+10` and `+/pattern` only move the cursor
        for escape in ex_escapes(command):
            out.append(
                Hook(
                    f"{inv.name} -c",
                    code=escape.code,
                    language=escape.language,
                    what="a shell escape",
                )
            )
    return out


def _ed(inv: Invocation) -> list[Hook]:
    text = inv.data.text
    if text is None:
        return []
    return [Hook("ed !", code=e.code, what="a shell escape") for e in ed_escapes(text)]


_ELISP_SHELL = re.compile(
    r"\((?:shell-command|async-shell-command|shell-command-to-string|call-process-shell-command"
    r"|start-process-shell-command)\s+\"((?:\\.|[^\"\\])*)\""
)
_ELISP_RUN = re.compile(r"\((?:call-process|start-process|make-process|process-lines|make-comint)\b")
_ELISP_DELETE = re.compile(r"\((delete-directory|delete-file)\s+\"((?:\\.|[^\"\\])*)\"")


def _emacs(inv: Invocation) -> list[Hook]:
    out: list[Hook] = []
    for expression in option_values(inv.arg_texts(), "--eval", "-eval"):
        out += [
            Hook("emacs --eval", code=m.group(1), what="elisp that runs a shell command")
            for m in _ELISP_SHELL.finditer(expression)
        ]
        if _ELISP_RUN.search(expression):
            out.append(Hook("emacs --eval", what="elisp that starts a process"))
        for match in _ELISP_DELETE.finditer(expression):
            path = (
                match.group(2).replace("~", HOME_MARK, 1)
                if match.group(2).startswith("~")
                else match.group(2)
            )
            flags = "-rf" if match.group(1) == "delete-directory" else "-f"
            out.append(
                Hook(
                    "emacs --eval",
                    argv=(Field("rm"), Field(flags), Field(path)),
                    what="elisp that deletes files",
                )
            )
    return out


def _gdb(inv: Invocation) -> list[Hook]:
    commands = option_values(inv.arg_texts(), "-ex", "--eval-command", "-iex", "--init-eval-command")
    return [
        Hook("gdb -ex", code=e.code, language=e.language, what="a shell escape")
        for command in commands
        for e in gdb_escapes(command)
    ]


def _database_shell(inv: Invocation) -> list[Hook]:
    texts = sql_of(inv.name, inv.args)
    if inv.data.text is not None:
        texts.append(inv.data.text)
    return [
        Hook(f"{inv.name} command text", code=e.code, what="a shell escape")
        for text in texts
        for e in sql_shell_escapes(inv.name, text)
    ]


def _pager(inv: Invocation) -> list[Hook]:
    return [
        Hook(f"{inv.name} +!", code=w[2:], what="a shell escape")
        for w in inv.arg_texts()
        if w.startswith(("+!", "+|"))
    ]


def _man(inv: Invocation) -> list[Hook]:
    words = inv.arg_texts()
    out = [
        Hook("man -P", code=c, usual=program_of(c) in PAGERS, what="a pager")
        for c in option_values(words, "-P", "--pager")
    ]
    out += [Hook("man --html", code=c, what="a browser") for c in option_values(words, "--html", "-H") if c]
    return out


def _rsync(inv: Invocation) -> list[Hook]:
    words = inv.arg_texts()
    out = [
        Hook("rsync -e", code=c, usual=program_of(c) in SSH_PROGRAMS, what="a remote shell")
        for c in option_values(words, "-e", "--rsh")
    ]
    out += [
        Hook("rsync --rsync-path", code=c, usual="rsync" in c, what="the remote rsync command")
        for c in option_values(words, "--rsync-path")
    ]
    return out


def _ssh(inv: Invocation) -> list[Hook]:
    out: list[Hook] = []
    if inv.name in ("scp", "sftp"):
        for program in _separate(inv.arg_texts(), "-S"):
            usual = program_of(program) in SSH_PROGRAMS
            out.append(
                Hook(
                    f"{inv.name} -S", argv=(Field(program),), usual=usual, what="the program it connects with"
                )
            )
    for option in option_values(inv.arg_texts(), "-o"):
        match = re.match(r"\s*(\w+)\s*(?:=\s*|\s+)(.*)", option, re.S)
        if match is None:
            continue
        key, value = match.group(1).lower(), match.group(2).strip()
        if key == "proxycommand" and value.lower() != "none":
            code = value.replace("%h", "HOST").replace("%p", "22").replace("%r", "USER")
            usual = program_of(code) in PROXY_PROGRAMS
            out.append(Hook(f"{inv.name} ProxyCommand", code=code, usual=usual, what="a proxy command"))
        elif key in ("localcommand", "knownhostscommand"):
            out.append(Hook(f"{inv.name} {match.group(1)}", code=value, what="a command run on this machine"))
    return out


def _zip(inv: Invocation) -> list[Hook]:
    codes = option_values(inv.arg_texts(), "-TT", "--unzip-command")
    return [Hook("zip -TT", code=c, usual=program_of(c) == "unzip", what="a test command") for c in codes]


def _tcpdump(inv: Invocation) -> list[Hook]:
    codes = _separate(inv.arg_texts(), "-z")
    return [
        Hook("tcpdump -z", argv=(Field(c),), usual=c in COMPRESSORS, what="a post-rotate command")
        for c in codes
    ]


def _socat(inv: Invocation) -> list[Hook]:
    out: list[Hook] = []
    for word in inv.arg_texts():
        match = re.match(r"(?i)(exec|system):(.*)", word, re.S)
        if match:
            code = re.split(r",(?=\w+(?:=|,|$))", match.group(2), maxsplit=1)[0].strip("'\"")
            out.append(Hook("socat EXEC", code=code, what="a program wired to a socket"))
    return out


def _netcat(inv: Invocation) -> list[Hook]:
    words = inv.arg_texts()
    programs = option_values(words, "-e", "--exec")
    codes = option_values(words, "-c", "--sh-exec", "--lua-exec")
    out = [Hook(f"{inv.name} -e", argv=(Field(p),), what="a program wired to the network") for p in programs]
    out += [Hook(f"{inv.name} -c", code=c, what="a shell wired to the network") for c in codes]
    return out


def _at(inv: Invocation) -> list[Hook]:
    words = inv.arg_texts()
    if any(w in ("-l", "-d", "-r", "-c", "-V", "--help") for w in words):
        return []
    files = option_values(words, "-f")
    text = inv.data.text
    if not files and inv.stdin is None:
        return []
    return [
        Hook(
            f"{inv.name} job",
            code=None if files else text,
            what="a job run later, outside this session",
            later=True,
        )
    ]


_HANDLERS: dict[str, Callable[[Invocation], list[Hook]]] = {
    "sed": _sed,
    "gsed": _sed,
    "tar": _tar,
    "gtar": _tar,
    "bsdtar": _tar,
    "make": _make,
    "gmake": _make,
    **dict.fromkeys(_EDITOR_NAMES, _vim),
    "ed": _ed,
    "emacs": _emacs,
    "gdb": _gdb,
    "psql": _database_shell,
    "mysql": _database_shell,
    "mariadb": _database_shell,
    "sqlite3": _database_shell,
    "sqlite": _database_shell,
    "less": _pager,
    "more": _pager,
    "most": _pager,
    "man": _man,
    "rsync": _rsync,
    "ssh": _ssh,
    "scp": _ssh,
    "sftp": _ssh,
    "autossh": _ssh,
    "zip": _zip,
    "tcpdump": _tcpdump,
    "socat": _socat,
    "nc": _netcat,
    "ncat": _netcat,
    "netcat": _netcat,
    "at": _at,
    "batch": _at,
    "git": git_hooks,
    **RUNNERS,
}

# Variables whose value is a command some program runs, with the programs usual there.
_COMMAND_VARIABLES: dict[str, frozenset[str]] = {
    "GIT_SSH_COMMAND": SSH_PROGRAMS,
    "GIT_SSH": SSH_PROGRAMS,
    "RSYNC_RSH": SSH_PROGRAMS,
    "GIT_PAGER": PAGERS,
    "PAGER": PAGERS,
    "MANPAGER": PAGERS,
    "SYSTEMD_PAGER": PAGERS,
    "BAT_PAGER": PAGERS,
    "GIT_EDITOR": EDITORS,
    "GIT_SEQUENCE_EDITOR": EDITORS | {"sed"},
    "EDITOR": EDITORS,
    "VISUAL": EDITORS,
    "SUDO_EDITOR": EDITORS,
    "GIT_EXTERNAL_DIFF": frozenset(),
    "GIT_PROXY_COMMAND": frozenset(),
    "GIT_ASKPASS": ASKPASS_PROGRAMS,
    "SSH_ASKPASS": ASKPASS_PROGRAMS,
    "SUDO_ASKPASS": ASKPASS_PROGRAMS,
    "PROMPT_COMMAND": frozenset(),
}
# Variables that make a program load a file or module before its own code.
_LOADING_VARIABLES = frozenset({"LD_PRELOAD", "LD_AUDIT", "BASH_ENV", "PERL5OPT", "RUBYOPT", "NODE_OPTIONS"})


def _env_hooks(inv: Invocation) -> list[Hook]:
    out: list[Hook] = []
    for name, value in inv.env:
        text = value.text
        if not text:
            continue
        if name in _COMMAND_VARIABLES:
            usual_set = _COMMAND_VARIABLES[name]
            usual = program_of(text) in usual_set or "askpass" in program_of(text)
            out.append(Hook("set for it", code=text, usual=usual, what=f"the command in ${name}"))
        elif name in ("LESSOPEN", "LESSCLOSE"):
            code = text.lstrip("|-").replace("%s", "FILE")
            out.append(Hook("set for it", code=code, what=f"a preprocessor in ${name}"))
        elif name in _LOADING_VARIABLES and _loads_foreign_code(name, text, inv.cwd):
            out.append(Hook("set for it", what=f"code from {value.shown()} loaded by ${name}"))
        elif name == "GIT_CONFIG_PARAMETERS":
            for key, setting in re.findall(r"'([^']+)'='([^']*)'", text):
                hook = config_hook(key, setting, f"GIT_CONFIG_PARAMETERS {key}")
                out += [hook] if hook is not None else []
    return out


def _loads_foreign_code(name: str, value: str, cwd: str | None) -> bool:
    if name in ("PERL5OPT", "RUBYOPT", "NODE_OPTIONS"):
        return bool(re.search(r"(?:^|\s)(?:-[rM]|--require|--import|--loader|-e)", value))
    if name == "BASH_ENV":
        return value != "/dev/null"
    # A library from the system's directories (jemalloc...) or the project is an ordinary choice;
    # one from a scratch folder, the home directory or outside the project is not.
    parts = [p for p in re.split(r"[:\s]+", value) if p]
    return any(
        not p.startswith(("/usr/", "/lib", "/opt/")) and classify(p, cwd) != "local" for p in parts
    ) or any(p.startswith(("..", "~", HOME_MARK)) for p in parts)


def hooks_of(inv: Invocation) -> list[Hook]:
    """Every command `inv` runs through a hook."""
    handler = _HANDLERS.get(inv.name)
    out = _env_hooks(inv) if inv.env else []
    if handler is not None:
        out += handler(inv)
    return out
