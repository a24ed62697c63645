"""Downloaded content fed to a program that reads a program from its standard input, beyond the
languages `programs.py` reads: PowerShell, Tcl and expect, R, jshell, groovy, osascript, Julia,
Lisp and ML toplevels, make and cmake scripts, `at`/`batch`, `crontab -`, and a shell on another
machine or container (`ssh host bash`, `docker exec -i c sh`). Also such a program run on a file
an earlier command downloaded (`curl -o a.ps1 ... && pwsh -File a.ps1`)."""

from __future__ import annotations

from tooldeck.safety.analysis.model import NETWORK, Field, Invocation
from tooldeck.safety.analysis.programs import SHELLS
from tooldeck.safety.knowledge.rules.base import RuleSet
from tooldeck.safety.knowledge.table import programs

# Programs whose `exec` runs a command in a container or pod.
_EXEC_CLIS = programs().in_class("container-engine") | programs().in_class("kubernetes-cli") - {"helm"}

rules = RuleSet("remote_code_exec")

_STDIN = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})

# Program -> (options that take the code itself, options that take some other value).
_READERS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "pwsh": (
        frozenset({"-c", "-command", "-e", "-ec", "-encodedcommand", "-commandwithargs", "-cwa"}),
        frozenset(
            {"-ex", "-ep", "-executionpolicy", "-wd", "-workingdirectory", "-of", "-outputformat", "-if"}
            | {"-inputformat", "-config", "-configurationname", "-w", "-windowstyle", "-settingsfile"}
        ),
    ),
    "tclsh": (frozenset(), frozenset({"-encoding"})),
    "wish": (frozenset(), frozenset({"-display", "-name", "-geometry"})),
    "jimsh": (frozenset({"-e"}), frozenset()),
    "expect": (frozenset({"-c"}), frozenset({"-D"})),
    "R": (frozenset({"-e"}), frozenset({"--encoding", "--args"})),
    "Rscript": (frozenset({"-e"}), frozenset({"--default-packages"})),
    "jshell": (frozenset(), frozenset({"--class-path", "--module-path", "--add-modules", "-R", "-J"})),
    "groovy": (frozenset({"-e"}), frozenset({"-cp", "-classpath", "--classpath", "-D"})),
    "osascript": (frozenset({"-e"}), frozenset({"-l", "-s"})),
    "julia": (
        frozenset({"-e", "--eval", "-E", "--print"}),
        frozenset({"-t", "--threads", "-p", "--project"}),
    ),
    "guile": (frozenset({"-c"}), frozenset({"-L", "-l", "-x"})),
    "racket": (frozenset({"-e", "--eval"}), frozenset({"-l", "--lib"})),
    "sbcl": (frozenset({"--eval"}), frozenset({"--load", "--core", "--dynamic-space-size"})),
    "clisp": (frozenset({"-x"}), frozenset({"-i", "-M"})),
    "ocaml": (frozenset(), frozenset({"-I", "-open"})),
    "ghci": (frozenset({"-e"}), frozenset()),
    "scala": (frozenset({"-e"}), frozenset({"-cp", "-classpath"})),
    "elixir": (frozenset({"-e", "--eval"}), frozenset({"-r", "--require", "-pa", "-pz"})),
    "swift": (frozenset(), frozenset({"-I", "-L", "-module-name"})),
}
_ALIASES = {"powershell": "pwsh", "powershell.exe": "pwsh", "pwsh.exe": "pwsh", "r": "R", "irb": "ghci"}
# Those that read only an explicit `-` (they run a file or a REPL that stdin does not drive).
_DASH_ONLY = frozenset({"Rscript", "racket"})


def _reads_program(name: str, args: tuple[Field, ...]) -> bool:
    code_options, value_options = _READERS[name]
    words = [a.text for a in args]
    operands: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        low = word.lower() if name == "pwsh" else word
        if low in code_options:
            return words[i + 1 : i + 2] == ["-"] or (
                name == "pwsh" and low in ("-c", "-command") and i + 1 == len(words)
            )
        if name == "pwsh" and low in ("-f", "-file"):
            return words[i + 1 : i + 2] in (["-"], [])
        if low in value_options:
            i += 2
            continue
        if name == "sbcl" and word == "--script":
            return words[i + 1 : i + 2] in ([], ["-"], ["/dev/stdin"])
        if name == "ocaml" and word == "-stdin":
            return True
        if not word.startswith("-") or word in _STDIN:
            operands.append(word)
        i += 1
    if operands:
        return operands[0] in _STDIN
    return name not in _DASH_ONLY


def _remote_shell(inv: Invocation) -> str | None:
    """A shell on another machine or in a container that reads this command's standard input."""
    words = inv.arg_texts()
    if inv.name == "ssh":
        operands = [w for w in words if not w.startswith("-")]
        command = operands[1:] if len(operands) > 1 else []
        if not command or command[0].rsplit("/", 1)[-1] in SHELLS:
            return f"ssh {operands[0] if operands else ''}".strip()
        return None
    if inv.name in _EXEC_CLIS and "exec" in words[:2]:
        interactive = any(w in ("-i", "-it", "-ti", "--interactive", "--stdin") for w in words)
        shell = any(w.rsplit("/", 1)[-1] in SHELLS for w in words[2:])
        if interactive and shell:
            return f"{inv.name} exec"
    return None


@rules.rule(
    "pipe-to-program-reader",
    "approve",
    "pipes downloaded content into a program that runs what it reads (pwsh -, tclsh, Rscript -, at, ssh host sh)",
)
def _pipe(inv: Invocation) -> str | None:
    if NETWORK not in inv.data.taint:
        return None
    name = _ALIASES.get(inv.name.lower(), inv.name)
    if name in _READERS and _reads_program(name, inv.args):
        return f"downloaded content is piped into {inv.name}, which runs it as a program"
    words = inv.arg_texts()
    if (
        name in ("at", "batch")
        and not any(w in ("-l", "-d", "-r", "-c") for w in words)
        and "-f" not in words
    ):
        return f"downloaded content is queued as commands by {inv.name}"
    if name == "crontab" and (words[-1:] and words[-1] in _STDIN):
        return "downloaded content is installed as the crontab"
    if name in ("make", "gmake") and any(
        words[i : i + 2] in (["-f", "-"], ["-f", "/dev/stdin"]) for i in range(len(words))
    ):
        return "a downloaded makefile is run by make"
    if name == "cmake" and any(
        words[i : i + 2] in (["-P", "-"], ["-P", "/dev/stdin"]) for i in range(len(words))
    ):
        return "a downloaded script is run by cmake -P"
    remote = _remote_shell(inv)
    if remote is not None:
        return f"downloaded content is run by a shell through {remote}"
    return None


@rules.rule(
    "run-downloaded-program",
    "approve",
    "runs a downloaded script with PowerShell, Tcl, R, osascript and the like (curl -o a.ps1 && pwsh a.ps1)",
)
def _downloaded(inv: Invocation) -> str | None:
    name = _ALIASES.get(inv.name.lower(), inv.name)
    if name not in _READERS:
        return None
    for arg in inv.args:
        if NETWORK in arg.taint and arg.exact:
            return f"{inv.name} runs {arg.shown()}, which was downloaded"
    return None
