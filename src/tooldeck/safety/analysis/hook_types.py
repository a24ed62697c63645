"""A hook: a command a program runs on the side, and the programs such hooks usually name.

A hook's command is analysed like any other command. The hook itself needs approval unless it
names the program the setting usually holds (`ssh` for a ProxyCommand or `core.sshCommand`,
`gzip` for tar's compressor, `less` for a pager, `vim` for an editor): a hook is a place where
a command hides from a reader of the command line.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from tooldeck.safety.analysis.model import Field
from tooldeck.safety.analysis.programs import Language
from tooldeck.safety.knowledge.table import programs

SSH_PROGRAMS = frozenset({"ssh", "autossh", "sshpass", "tsh", "ssh.exe", "mosh", "rsh", "plink"})
PROXY_PROGRAMS = SSH_PROGRAMS | frozenset(
    {
        "nc",
        "ncat",
        "netcat",
        "socat",
        "connect",
        "connect-proxy",
        "corkscrew",
        "proxytunnel",
        "cloudflared",
        "aws",
        "gcloud",
        "openssl",
        "websocat",
        "sslh",
        "ssh-proxy",
    }
)
PAGERS = frozenset(
    {
        "less",
        "more",
        "most",
        "cat",
        "bat",
        "batcat",
        "delta",
        "diff-so-fancy",
        "diff-highlight",
        "moar",
        "ov",
        "vim",
        "nvim",
        "view",
        "head",
        "tail",
        "pg",
        "lv",
        "w3m",
        "col",
        "tig",
        "riff",
        "difft",
    }
)
EDITORS = frozenset(
    {
        "vim",
        "vi",
        "nvim",
        "nano",
        "emacs",
        "emacsclient",
        "code",
        "code-insiders",
        "codium",
        "subl",
        "micro",
        "kak",
        "hx",
        "helix",
        "gedit",
        "kate",
        "mate",
        "ed",
        "ex",
        "true",
        ":",
        "cat",
        "zed",
        "cursor",
        "idea",
        "joe",
        "mcedit",
        "pico",
        "jed",
        "gvim",
        "mvim",
        "notepad",
        "notepad++",
        "vis",
        "ne",
        "atom",
    }
)
COMPRESSORS = frozenset(
    {
        "gzip",
        "pigz",
        "gunzip",
        "unpigz",
        "bzip2",
        "pbzip2",
        "lbzip2",
        "bunzip2",
        "xz",
        "pixz",
        "unxz",
        "zstd",
        "pzstd",
        "unzstd",
        "zstdmt",
        "lz4",
        "lzip",
        "plzip",
        "lzma",
        "unlzma",
        "lzop",
        "brotli",
        "compress",
        "uncompress",
        "zip",
        "unzip",
    }
)
DIFFERS = frozenset(
    {
        "diff",
        "colordiff",
        "difft",
        "delta",
        "meld",
        "vimdiff",
        "nvim",
        "kdiff3",
        "opendiff",
        "code",
        "icdiff",
        "hexdump",
        "xxd",
        "strings",
        "pdftotext",
        "exiftool",
        "git",
        "cat",
        "odt2txt",
        "docx2txt",
        "textutil",
    }
)

# `true` and `echo` answer a password prompt with nothing: the usual way to keep git from asking.
ASKPASS_PROGRAMS = frozenset({"true", "false", "echo", "ssh-askpass", "ksshaskpass", "x11-ssh-askpass"})

_ASSIGNMENT = re.compile(r"[A-Za-z_]\w*=")


@dataclass(frozen=True, slots=True)
class Hook:
    """A command `via` some option, setting or script of a program."""

    via: str
    # The command as shell text, or as words; neither when only the program knows it
    # (sed's `s///e` runs the pattern space).
    code: str | None = None
    argv: tuple[Field, ...] | None = None
    language: Language = "shell"
    usual: bool = False
    # What the hook is, for the reason shown ("a pager", "a shell escape").
    what: str = "a command"
    # The command runs later, outside this command line (a stored setting, an `at` job).
    later: bool = False


def program_of(code: str, *, path: bool = False) -> str:
    """The program a shell command starts with, past variable assignments and wrappers: its base
    name, or (`path`) the word as written (`./evil.sh`)."""
    try:
        words = shlex.split(code)
    except ValueError:
        words = code.split()
    wrappers = programs().wrappers
    while words and (_ASSIGNMENT.match(words[0]) or words[0].rsplit("/", 1)[-1] in wrappers):
        words = words[1:]
        while words and words[0].startswith("-"):
            words = words[1:]
    if not words:
        return ""
    return words[0] if path else words[0].rsplit("/", 1)[-1]
