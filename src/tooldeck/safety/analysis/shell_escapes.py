"""Shell escapes in the command languages of editors, debuggers and database shells.

vim/ex (`:!cmd`, `:r !cmd`, `%!filter`, `:call system('cmd')`, `:py3 ...`, `:sh`), ed
(`!cmd`), gdb (`shell cmd`, `!cmd`), psql and mysql (`\\! cmd`, `system cmd`) and sqlite3
(`.shell cmd`, `.system cmd`, `.once |cmd`) each run a command or code; these read one of their
command strings and say what it runs. `None` as the code means an interactive shell, or text
the program supplies at run time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tooldeck.safety.analysis.programs import Language


@dataclass(frozen=True, slots=True)
class Escape:
    code: str | None
    language: Language = "shell"


_EX_LANGUAGES: dict[str, Language] = {
    "py": "python",
    "python": "python",
    "py3": "python",
    "python3": "python",
    "pyx": "python",
    "pythonx": "python",
    "pydo": "python",
    "py3do": "python",
    "lua": "lua",
    "luado": "lua",
    "perl": "perl",
    "perldo": "perl",
    "ruby": "ruby",
    "rubydo": "ruby",
}
_EX_RANGE = re.compile(r"[%.$\d,;'<>+\-\s]*")
_EX_PREFIX = re.compile(r"(?:sil(?:ent)?!?|uns(?:ilent)?|keep\w*|noa(?:utocmd)?|exe(?:cute)?)\s+")
_RUNS_STRING = re.compile(
    r"\b(?:system|systemlist|job_start|jobstart|termopen|term_start)\s*\(\s*(['\"])(.*?)\1"
)


def ex_escapes(command: str, depth: int = 0) -> list[Escape]:
    """What one vim/ex command line (`-c CMD`, `+CMD`, a line of an ex script) runs."""
    text = command.strip().lstrip(":").strip()
    while True:
        prefix = _EX_PREFIX.match(text)
        if prefix is None:
            break
        if prefix.group(0).startswith("exe") and depth < 3:
            inner = re.findall(r"(['\"])(.*?)\1", text[prefix.end() :])
            return [e for _q, body in inner for e in ex_escapes(body, depth + 1)]
        text = text[prefix.end() :]
    out = [Escape(m.group(2)) for m in _RUNS_STRING.finditer(text)]
    if re.search(r"\b(?:system|systemlist|job_start|jobstart|termopen|term_start)\s*\(", text) and not out:
        out.append(Escape(None))
    span = _EX_RANGE.match(text)
    body = text[span.end() :] if span is not None else text
    if body.startswith("!"):
        return [*out, Escape(body[1:].strip() or None)]
    # `:r!cmd` and `:w !cmd` pipe through a command; `:w!` alone is a forced write.
    shell = re.match(r"(?:r(?:ead)?\s*|w(?:rite)?\s+)!\s*(.*)", body, re.S)
    if shell:
        return [*out, Escape(shell.group(1).strip() or None)]
    if re.fullmatch(r"(?:sh(?:ell)?|ter(?:minal)?)\b.*", body, re.S):
        return [*out, Escape(None)]
    word = re.match(r"([a-z0-9]+)\s*(.*)", body, re.S)
    if word and word.group(1) in _EX_LANGUAGES:
        return [*out, Escape(word.group(2), _EX_LANGUAGES[word.group(1)])]
    if "|" in body and depth < 3:
        # `set nu | !cmd`: commands after a bar, except where the bar belongs to the command.
        for part in body.split("|")[1:]:
            out += ex_escapes(part, depth + 1)
    return out


def ed_escapes(script: str) -> list[Escape]:
    """ed reads commands from its standard input; `!cmd`, `r !cmd`, `w !cmd` run a shell."""
    out: list[Escape] = []
    for line in script.split("\n"):
        match = re.match(r"\s*[\d,.$;'a-z+\-]*\s*(?:[rwe]\s*)?!(.*)", line)
        if match:
            out.append(Escape(match.group(1).strip() or None))
    return out


def gdb_escapes(command: str) -> list[Escape]:
    text = command.strip()
    match = re.match(r"(?:shell|!|pipe\s+[^|]*\|)\s*(.*)", text, re.S)
    if match:
        return [Escape(match.group(1).strip() or None)]
    language = re.match(r"(?:python|python-interactive|pi|py)\s+(.*)", text, re.S)
    if language:
        return [Escape(language.group(1), "python")]
    return []


def sql_shell_escapes(client: str, text: str) -> list[Escape]:
    """psql's `\\!`, mysql's `\\!` and `system`, sqlite3's `.shell`, `.system` and `| pipes`."""
    out: list[Escape] = []
    for line in text.split("\n"):
        stripped = line.strip()
        if client in ("sqlite3", "sqlite"):
            match = re.match(r"\.(?:shell|system)\s+(.*)", stripped)
            pipe = re.match(r"\.(?:once|output)\s+(?:-\w+\s+)*['\"]?\|(.*?)['\"]?$", stripped)
            match = match or pipe
        else:
            match = re.search(r"\\!\s*(.*)", stripped)
            if match is None and client in ("mysql", "mariadb"):
                match = re.match(r"system\s+(.*)", stripped, re.I)
        if match:
            out.append(Escape(match.group(1).strip() or None))
    return out
