"""Where a command's output goes: its result to stdout, everything else elsewhere.

While a command runs, `sys.stdout` is pointed at stderr, and so is file descriptor 1 (what a
C extension, `os.write(1, ...)` or a child process that inherits stdout writes to), so a tool or
a module that prints cannot corrupt `--json` output; the command writes its result with `emit` /
`print_json`, which use the real stdout, kept on a private duplicate of the descriptor. Log records (a tool's traceback, a failing event sink) go to
`<tooldeck home>/logs/tooldeck.log` (the configured home once the config is read), or to stderr with `--verbose`, never as a surprise traceback.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

_REAL_STDOUT: list[TextIO] = []


def real_stdout() -> TextIO:
    return _REAL_STDOUT[-1] if _REAL_STDOUT else sys.stdout


def emit(text: str = "") -> None:
    """Write one line of the command's result to stdout."""
    real_stdout().write(text + "\n")


def print_json(value: Any) -> None:
    """Write `value` as JSON to stdout (lone surrogates as ASCII escapes: see `json_text`)."""
    from tooldeck._utils.text import json_text

    real_stdout().write(json_text(value) + "\n")


@contextlib.contextmanager
def command_streams(*, verbose: bool) -> Iterator[None]:
    diverted = _divert_descriptor()
    _REAL_STDOUT.append(diverted[0] if diverted else sys.stdout)
    handler = _log_handler(verbose)
    if isinstance(handler, _HomeLog):
        _HOME_LOGS.append(handler)
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
        if isinstance(handler, _HomeLog):
            _HOME_LOGS.remove(handler)
        handler.close()
        if diverted:
            _restore_descriptor(*diverted)


def _divert_descriptor() -> tuple[TextIO, int] | None:
    """Point descriptor 1 at stderr; the real stdout as a text stream on a private duplicate.

    None (nothing diverted) when sys.stdout is not descriptor 1, e.g. inside a test capture.
    """
    try:
        if sys.stdout.fileno() != 1:
            return None
        sys.stdout.flush()
        private = os.dup(1)
    except (AttributeError, OSError, ValueError):
        return None
    try:
        os.dup2(2, 1)
    except OSError:
        os.close(private)
        return None
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    errors = getattr(sys.stdout, "errors", None) or "strict"
    stream = open(private, "w", buffering=1, encoding=encoding, errors=errors, closefd=False)  # noqa: SIM115
    return stream, private


def _restore_descriptor(stream: TextIO, private: int) -> None:
    with contextlib.suppress(OSError, ValueError):
        stream.flush()
    with contextlib.suppress(OSError):
        os.dup2(private, 1)
    with contextlib.suppress(OSError):
        os.close(private)


class _HomeLog(logging.FileHandler):
    """`<home>/logs/tooldeck.log`, made on the first record. Logging starts before the config
    that names the home is read, so the file moves to that home (`log_to_home`) until then."""

    def __init__(self, home: Path) -> None:
        super().__init__(home / "logs" / "tooldeck.log", encoding="utf-8", delay=True)

    def move_to(self, home: Path) -> None:
        self.acquire()
        try:
            if self.stream is not None:
                self.stream.close()
                self.stream = None
            self.baseFilename = os.path.abspath(home / "logs" / "tooldeck.log")
        finally:
            self.release()

    def emit(self, record: logging.LogRecord) -> None:
        if self.stream is None:
            try:
                os.makedirs(os.path.dirname(self.baseFilename), mode=0o700, exist_ok=True)
                self.stream = self._open()
            except OSError:
                return  # no writable home: records are dropped, never printed
        super().emit(record)


_HOME_LOGS: list[_HomeLog] = []


def log_to_home(home: Path) -> None:
    """Keep the running command's log in `home` (the configured one) from now on."""
    for handler in _HOME_LOGS:
        handler.move_to(home)


def _log_handler(verbose: bool) -> logging.Handler:
    if verbose:
        handler: logging.Handler = logging.StreamHandler(sys.stderr)
    else:
        from tooldeck._utils.home import tooldeck_home

        handler = _HomeLog(tooldeck_home())
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    return handler
