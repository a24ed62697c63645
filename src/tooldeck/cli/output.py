"""Where a command's output goes: its result to stdout, everything else elsewhere.

While a command runs, `sys.stdout` is pointed at stderr, so a tool or a module that prints
cannot corrupt `--json` output; the command writes its result with `emit` / `print_json`, which
use the real stdout. Log records (a tool's traceback, a failing event sink) go to
`<tooldeck home>/logs/tooldeck.log`, or to stderr with `--verbose`, never as a surprise traceback.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator
from typing import Any, TextIO

_REAL_STDOUT: list[TextIO] = []


def real_stdout() -> TextIO:
    return _REAL_STDOUT[-1] if _REAL_STDOUT else sys.stdout


def emit(text: str = "") -> None:
    """Write one line of the command's result to stdout."""
    real_stdout().write(text + "\n")


def print_json(value: Any) -> None:
    """Write `value` as JSON to stdout (lone surrogates as ASCII escapes: see `json_text`)."""
    from tooldeck.text import json_text

    real_stdout().write(json_text(value) + "\n")


@contextlib.contextmanager
def command_streams(*, verbose: bool) -> Iterator[None]:
    _REAL_STDOUT.append(sys.stdout)
    handler = _log_handler(verbose)
    logger = logging.getLogger("tooldeck")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG if verbose else logging.INFO)
    logger.propagate = False
    previous = sys.stdout
    sys.stdout = sys.stderr
    try:
        yield
    finally:
        sys.stdout = previous
        _REAL_STDOUT.pop()
        logger.removeHandler(handler)
        handler.close()


def _log_handler(verbose: bool) -> logging.Handler:
    if verbose:
        handler: logging.Handler = logging.StreamHandler(sys.stderr)
    else:
        from tooldeck.home import tooldeck_home

        folder = tooldeck_home() / "logs"
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            handler = logging.FileHandler(folder / "tooldeck.log", encoding="utf-8", delay=True)
        except OSError:
            handler = logging.NullHandler()  # no writable home: records are dropped, never printed
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    return handler
