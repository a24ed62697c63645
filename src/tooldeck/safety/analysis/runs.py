"""Programs that run other programs on items: `xargs`, `find -exec/-execdir/-ok/-delete`, `parallel`.

The items come from the data the walker knows: the exact text on `xargs`'s standard input when
it was computed (`echo ~ | xargs rm -rf`), else the paths a listing names (`find ~ | xargs rm`
deletes below ~). `find`'s `{}` stands for `ROOT/**` (below the root), or `ROOT/**/NAME` when a
`-name` test fixes the name, so `find . -name .git -exec rm -rf {} +` deletes `.git` directories.
"""

from __future__ import annotations

import re

from tooldeck.safety.analysis.model import Field, Invocation

_XARGS_VALUE = frozenset(
    [
        "-a",
        "-d",
        "-E",
        "-e",
        "-I",
        "-i",
        "-L",
        "-l",
        "-n",
        "-P",
        "-s",
        "--arg-file",
        "--delimiter",
        "--eof",
        "--replace",
        "--max-lines",
        "--max-args",
        "--max-procs",
        "--max-chars",
        "--process-slot-var",
    ]
)
_MAX_ITEMS = 16


def xargs_argv(inv: Invocation) -> tuple[Field, ...] | None:
    """The command xargs runs, with the items it reads appended or substituted."""
    args = list(inv.args)
    replace_token: str | None = None
    i = 0
    while i < len(args):
        text = args[i].text
        if not text.startswith("-") or text == "--":
            i += text == "--"
            break
        if text in ("-I", "--replace") and i + 1 < len(args):
            replace_token = args[i + 1].text
        elif text.startswith("-I") and len(text) > 2:
            replace_token = text[2:]
        elif text == "-i" or text.startswith("--replace="):
            replace_token = text.split("=", 1)[1] if "=" in text else "{}"
        if text in _XARGS_VALUE and "=" not in text:
            i += 2
            continue
        i += 1
    command = args[i:] or [Field("echo")]
    items = _items(inv)
    if replace_token is not None:
        return tuple(_substitute(word, replace_token, items[0]) for word in command)
    return (*command, *items)


def _items(inv: Invocation) -> list[Field]:
    flow = inv.data
    if inv.stdin is None or any(
        a.text in ("-a", "--arg-file") or a.text.startswith("--arg-file=") for a in inv.args
    ):
        # Items read from a file, or from whatever standard input the shell was given.
        return [Field("$ITEM", exact=False)]
    if flow.text is not None:
        words = flow.text.split()[:_MAX_ITEMS]
        return [Field(w) for w in words] or [Field("")]
    if flow.paths:
        return [Field(p, exact=False, taint=flow.taint) for p in flow.paths[:_MAX_ITEMS]]
    return [Field("$ITEM", exact=False, taint=flow.taint)]


def _substitute(word: Field, token: str, item: Field) -> Field:
    if token not in word.text:
        return word
    return Field(word.text.replace(token, item.text), word.exact and item.exact, word.taint | item.taint)


def find_actions(inv: Invocation) -> list[tuple[str, tuple[Field, ...]]]:
    """What `find` runs: each -exec/-execdir/-ok/-okdir command, and -delete as `rm -rf`."""
    args = list(inv.args)
    roots: list[str] = []
    i = 0
    while i < len(args) and args[i].text in ("-H", "-L", "-P"):
        i += 1
    while i < len(args) and not args[i].text.startswith(("-", "(", "!", ")")):
        roots.append(args[i].text)
        i += 1
    item = find_item(roots or ["."], [a.text for a in args[i:]])
    out: list[tuple[str, tuple[Field, ...]]] = []
    while i < len(args):
        text = args[i].text
        if text in ("-exec", "-execdir", "-ok", "-okdir"):
            end = i + 1
            while end < len(args) and args[end].text not in (";", "+"):
                end += 1
            command = tuple(_substitute(w, "{}", item) for w in args[i + 1 : end])
            if command:
                out.append((f"find {text}", command))
            i = end
        elif text == "-delete":
            out.append(("find -delete", (Field("rm"), Field("-rf"), item)))
        i += 1
    return out


def find_item(roots: list[str], expression: list[str]) -> Field:
    root = roots[0].rstrip("/") or "/"
    if "-maxdepth" in expression:
        index = expression.index("-maxdepth")
        if index + 1 < len(expression) and expression[index + 1] == "0":
            return Field(root, exact=False)
    name: str | None = None
    for test in ("-name", "-iname"):
        if test in expression:
            index = expression.index(test)
            if index + 1 < len(expression):
                name = expression[index + 1]
    below = "/**" if root != "/" else "**"
    if name and not re.fullmatch(r"[*?]+", name):
        return Field(f"{root}{below}/{name}", exact=False)
    return Field(f"{root}{below}", exact=False)


def parallel_argv(inv: Invocation) -> tuple[Field, ...] | None:
    """`parallel CMD ::: ITEMS`: the command with its first item."""
    words = list(inv.args)
    texts = [w.text for w in words]
    if ":::" in texts:
        index = texts.index(":::")
        command, items = words[:index], words[index + 1 :]
    else:
        command, items = words, _items(inv)
    while command and command[0].text.startswith("-"):
        command = command[1:]
    item = items[0] if items else Field("$ITEM", exact=False)
    if not command:
        # With no command, each item is a command line of its own.
        return (Field("sh"), Field("-c"), item)
    if any("{}" in w.text for w in command):
        return tuple(_substitute(w, "{}", item) for w in command)
    return (*command, item)


def unbounded_parallel(inv: Invocation) -> bool:
    """`xargs -P 0` or `parallel -j 0` fed without end: as many processes at once as there are items."""
    words = [a.text for a in inv.args]
    if not inv.data.endless:
        return False
    flags: tuple[str, ...]
    if inv.name == "xargs":
        flags = ("-P", "--max-procs")
    elif inv.name == "parallel":
        flags = ("-j", "--jobs", "-P", "--max-procs")
    else:
        return False
    for i, word in enumerate(words):
        value = words[i + 1] if word in flags and i + 1 < len(words) else None
        for flag in flags:
            if word.startswith(flag + "=") or (
                not flag.startswith("--") and word.startswith(flag) and word != flag
            ):
                value = word[len(flag) :].lstrip("=")
        if value is not None and re.fullmatch(r"0+|\+?\d{4,}|0*%|\d{3,}%", value):
            return True
    return False
