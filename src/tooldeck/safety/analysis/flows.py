"""What a program writes to its standard output, as far as it can be computed without running it.

`echo`, `printf`, `base64 -d`, `xxd -r -p`, `rev` and `tr` of known text are evaluated, so
`echo cm0gLXJmIH4= | base64 -d | sh` hands `rm -rf ~` to the shell analysis. Downloads are
tainted `network`, decoders of unknown text `decoded`, readers of credentials `secret`; other
filters pass their input's taint through.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable

from tooldeck.safety.analysis.expand import decode_ansi_c
from tooldeck.safety.analysis.model import (
    DECODED,
    EMPTY_FLOW,
    FILE,
    NETWORK,
    SECRET,
    Field,
    Flow,
    Invocation,
    Taint,
)
from tooldeck.safety.analysis.paths import is_secret
from tooldeck.safety.analysis.runs import find_item
from tooldeck.safety.knowledge.credential_names import credential_taint
from tooldeck.safety.knowledge.secret_stores import prints_secrets
from tooldeck.safety.knowledge.table import programs

# Programs that download: the table's class `fetcher`.
FETCHERS = programs().in_class("fetcher")
SOCKET_TOOLS = frozenset({"nc", "ncat", "netcat", "socat", "telnet", "openssl"})
DECOMPRESSORS = frozenset(
    {"gunzip", "zcat", "bunzip2", "bzcat", "unxz", "xzcat", "unzstd", "zstdcat", "uncompress"}
)
ENV_DUMPERS = frozenset({"env", "printenv", "set", "export", "declare", "typeset", "compgen"})
SUMMARISERS = frozenset({"wc", "sha256sum", "sha1sum", "md5sum", "sha512sum", "cksum", "b2sum", "true", ":"})
# Builtins and programs that print nothing (`set -- r m`, `cd /`, `mkdir -p x`): a substitution
# around them prints only what the other commands print.
SILENT = frozenset(
    {"cd", "set", "shift", "unset", "export", "local", "readonly", "sleep", "touch", "mkdir", "ln"}
)


def output_of(inv: Invocation) -> Flow:
    """The flow `inv` writes to its standard output."""
    name = inv.name
    args = list(inv.args)
    taint = _arg_taint(inv)
    if name == "echo":
        return _with(_echo(args), taint)
    if name == "printf":
        return _with(_printf(args), taint)
    if name in ("pwd",):
        return Flow(".\n")
    if name in ("base64", "base32", "basenc"):
        return _decoder(inv, _b64 if name != "base32" else _b32, "-d", "--decode", "-D")
    if name == "xxd":
        return _decoder(inv, _hex, "-r")
    if name == "rev":
        return _text_map(inv, lambda t: "\n".join(line[::-1] for line in t.split("\n")))
    if name == "tr":
        return _tr(inv)
    if name in ("yes", "seq", "jot"):
        return _generator(inv, taint)
    if _passes_stdin_through(inv):
        text = inv.data.text if name in ("cat", "tee") else None
        endless = inv.data.endless and name != "head"
        return Flow(text, inv.data.taint | taint, inv.data.paths, endless)
    if name in DECOMPRESSORS or (
        name in ("gzip", "xz", "bzip2", "zstd") and _has(args, "-d", "--decompress")
    ):
        return Flow(None, inv.data.taint | taint | {DECODED})
    if name == "openssl":
        return _openssl(inv, taint)
    if name in FETCHERS:
        return Flow(None, frozenset({NETWORK}) | taint) if writes_to_stdout(inv) else EMPTY_FLOW
    if name in SOCKET_TOOLS:
        return Flow(None, frozenset({NETWORK}) | taint)
    if name in ENV_DUMPERS and _dumps_environment(inv):
        return Flow(None, frozenset({SECRET}))
    if name == "gpg" and any(a.text.startswith("--export-secret") for a in args):
        return Flow(None, frozenset({SECRET}))
    if prints_secrets(inv):
        return Flow(None, frozenset({SECRET}))
    if name in ("find", "ls", "locate", "fd", "fdfind"):
        return Flow(None, inv.data.taint | taint, _listed_paths(inv))
    if name in SUMMARISERS or (name in SILENT and not any(a.text in ("-v", "--verbose") for a in args)):
        return EMPTY_FLOW
    return Flow(None, inv.data.taint | taint, endless=inv.data.endless)


# More lines than this is as good as endless for what reads them (a shell, `xargs -P 0`).
ENDLESS_COUNT = 10_000


def _generator(inv: Invocation, taint: frozenset[Taint]) -> Flow:
    """`yes TEXT` repeats a line forever; `seq`/`jot` count, maybe past any end (`seq inf`)."""
    words = [a.text for a in inv.args]
    if inv.name == "yes":
        return Flow(" ".join(words) + "\n" if words else "y\n", taint, endless=True)
    numbers = [w for w in words if not w.startswith("-") or re.fullmatch(r"-\d+(?:\.\d+)?", w)]
    if any(w.lower() in ("inf", "infinity", "+inf") for w in numbers):
        return Flow(None, taint, endless=True)
    values = [float(w) for w in numbers if re.fullmatch(r"-?\d+(?:\.\d+)?(?:e\d+)?", w)]
    span = abs(values[-1] - (values[0] if len(values) > 1 else 1)) if values else 0
    return Flow(None, taint, endless=span >= ENDLESS_COUNT)


def _with(flow: Flow, taint: frozenset[Taint]) -> Flow:
    return Flow(flow.text, flow.taint | taint, flow.paths)


def _arg_taint(inv: Invocation) -> frozenset[Taint]:
    """Taint a program's output inherits from the files it reads and the words it was given."""
    out: set[Taint] = set()
    for arg in inv.args:
        out |= arg.taint
        if inv.name in ("echo", "printf"):
            out |= credential_taint(arg)
        if arg.content is not None:
            out |= arg.content.taint
        if is_secret(arg.text.split("=", 1)[-1].lstrip("@"), inv.cwd):
            out.add(SECRET)
    for redirect in inv.redirects:
        if redirect.op == "<":
            out |= redirect.target.taint | {FILE}
            if is_secret(redirect.target.text, inv.cwd):
                out.add(SECRET)
            if redirect.target.text.startswith(("/dev/tcp/", "/dev/udp/")):
                out.add(NETWORK)
    return frozenset(out)


def _has(args: list[Field], *flags: str) -> bool:
    for arg in args:
        text = arg.text
        if text in flags:
            return True
        short = [f[1] for f in flags if len(f) == 2 and f[0] == "-"]
        if text.startswith("-") and not text.startswith("--") and any(c in text[1:] for c in short):
            return True
    return False


def _passes_stdin_through(inv: Invocation) -> bool:
    """`cat`, `tee`, `head`... with no input file copy their standard input to their output."""
    if inv.name == "tee":
        return True
    if inv.name == "dd":
        return not any(a.text.startswith("if=") for a in inv.args)
    if inv.name not in ("cat", "tac", "head", "tail"):
        return False
    operands = [a for a in inv.args if not a.text.startswith("-") or a.text == "-"]
    if inv.name in ("head", "tail"):
        operands = [a for a in operands if not a.text.isdigit()]
    return all(a.text == "-" for a in operands)


def _echo(args: list[Field]) -> Flow:
    newline, escapes = True, False
    while args and re.fullmatch(r"-[neE]+", args[0].text):
        flags = args.pop(0).text
        newline = newline and "n" not in flags
        escapes = "e" in flags or (escapes and "E" not in flags)
    text = " ".join(a.text for a in args)
    if escapes:
        text = decode_ansi_c(text)
    if not all(a.exact for a in args):
        return Flow(None)
    return Flow(text + ("\n" if newline else ""))


def _printf(args: list[Field]) -> Flow:
    if args and args[0].text == "-v":
        return EMPTY_FLOW
    if not args or not all(a.exact for a in args):
        return Flow(None)
    fmt, values = args[0].text, [a.text for a in args[1:]]
    out: list[str] = []
    while True:
        text, used = _format_once(fmt, values)
        out.append(text)
        values = values[used:]
        if not values or used == 0:
            break
    return Flow("".join(out))


def _format_once(fmt: str, values: list[str]) -> tuple[str, int]:
    used = 0

    def conv(match: re.Match[str]) -> str:
        nonlocal used
        spec = match.group(1)
        if spec == "%":
            return "%"
        value = values[used] if used < len(values) else ""
        used += 1
        if spec == "b":
            return decode_ansi_c(value)
        if spec == "c":
            return value[:1]
        return value

    text = re.sub(r"%[-+ #0-9.]*([sbdicouxXeEfgG%])", conv, fmt)
    return decode_ansi_c(text), used


def _decoder(inv: Invocation, decode: _Decode, *flags: str) -> Flow:
    args = list(inv.args)
    if not _has(args, *flags):
        return Flow(None, inv.data.taint | _arg_taint(inv))
    if inv.name == "xxd" and not _has(args, "-p", "-ps", "-plain", "-postscript"):
        return Flow(None, inv.data.taint | {DECODED})
    source = inv.data
    if source.text is not None and not _file_operands_after_flags(inv):
        decoded = decode(source.text)
        if decoded is not None:
            return Flow(decoded, source.taint)
    return Flow(None, source.taint | _arg_taint(inv) | {DECODED})


def _file_operands_after_flags(inv: Invocation) -> list[Field]:
    return [a for a in inv.args if not a.text.startswith("-")]


_Decode = Callable[[str], str | None]


def _b64(text: str) -> str | None:
    compact = re.sub(r"\s+", "", text)
    try:
        return base64.b64decode(compact + "=" * (-len(compact) % 4), validate=False).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None


def _b32(text: str) -> str | None:
    try:
        return base64.b32decode(re.sub(r"\s+", "", text)).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None


def _hex(text: str) -> str | None:
    try:
        return bytes.fromhex(re.sub(r"\s+", "", text)).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None


def _text_map(inv: Invocation, func: Callable[[str], str]) -> Flow:
    if inv.data.text is not None and not _file_operands_after_flags(inv):
        return Flow(func(inv.data.text.rstrip("\n")) + "\n", inv.data.taint)
    return Flow(None, inv.data.taint | _arg_taint(inv) | {DECODED})


def _tr(inv: Invocation) -> Flow:
    args = [a.text for a in inv.args]
    if len(args) == 2 and not args[0].startswith("-") and inv.data.text is not None:
        src, dst = _tr_set(args[0]), _tr_set(args[1])
        if src and dst:
            dst = dst + dst[-1] * max(0, len(src) - len(dst))
            table = str.maketrans(src, dst[: len(src)])
            return Flow(inv.data.text.translate(table), inv.data.taint)
    if args[:1] == ["-d"] and len(args) == 2 and inv.data.text is not None:
        return Flow(inv.data.text.translate({ord(c): None for c in _tr_set(args[1])}), inv.data.taint)
    return Flow(None, inv.data.taint | {DECODED})


def _tr_set(spec: str) -> str:
    spec = decode_ansi_c(spec)
    out: list[str] = []
    i = 0
    while i < len(spec):
        if i + 2 < len(spec) and spec[i + 1] == "-" and ord(spec[i]) <= ord(spec[i + 2]):
            out.extend(chr(c) for c in range(ord(spec[i]), ord(spec[i + 2]) + 1))
            i += 3
        else:
            out.append(spec[i])
            i += 1
    return "".join(out)[:4096]


def _openssl(inv: Invocation, taint: frozenset[Taint]) -> Flow:
    words = [a.text for a in inv.args]
    if words[:1] == ["base64"] or ("enc" in words[:1] and "-d" in words):
        if inv.data.text is not None and "-d" in words and len(words) <= 3:
            decoded = _b64(inv.data.text)
            if decoded is not None:
                return Flow(decoded, inv.data.taint)
        return Flow(None, inv.data.taint | taint | ({DECODED} if "-d" in words else set()))
    if words[:1] == ["s_client"]:
        return Flow(None, frozenset({NETWORK}) | taint)
    return Flow(None, inv.data.taint | taint)


def writes_to_stdout(inv: Invocation) -> bool:
    """Does this download go to standard output (`curl URL`, `wget -qO- URL`)?"""
    words = [a.text for a in inv.args]
    if inv.name == "wget":
        for i, w in enumerate(words):
            if w in ("-O", "--output-document") and i + 1 < len(words):
                return words[i + 1] == "-"
            if w.startswith("--output-document="):
                return w.split("=", 1)[1] == "-"
            if re.fullmatch(r"-[a-zA-Z]*O-?", w):
                return w.endswith("-") or (i + 1 < len(words) and words[i + 1] == "-")
        return False
    if inv.name == "curl":
        for i, w in enumerate(words):
            if w in ("-o", "--output") and i + 1 < len(words):
                return words[i + 1] == "-"
            if w in ("-O", "--remote-name", "--remote-name-all") or re.fullmatch(
                r"-[a-zA-Z]*[oO][a-zA-Z]*", w
            ):
                return False
        return True
    return True


def _dumps_environment(inv: Invocation) -> bool:
    words = [a.text for a in inv.args]
    if inv.name in ("env", "printenv"):
        return not [w for w in words if not w.startswith("-")]
    if inv.name == "set":
        return not words
    if inv.name in ("export", "declare", "typeset"):
        return words in (["-p"], ["-x"], ["-px"], [])
    return False


def _listed_paths(inv: Invocation) -> tuple[str, ...]:
    words = [a.text for a in inv.args]
    operands = [w for w in words if not w.startswith("-")]
    if inv.name == "find":
        roots = []
        for w in words:
            if w.startswith(("-", "(", "!")):
                break
            roots.append(w)
        expression = words[len(roots) :]
        return tuple(find_item([root], expression).text for root in roots or ["."])
    if inv.name == "ls":
        if "-d" in words or any(re.fullmatch(r"-[a-zA-Z]*d[a-zA-Z]*", w) for w in words):
            return tuple(operands or ["."])
        # A pattern (`ls /dev/sd*`) lists what it matches; a folder, what it holds.
        return tuple(o if any(c in o for c in "*?[") else o.rstrip("/") + "/*" for o in operands or ["."])
    return ()
