"""Importing user code without letting it take tooldeck down: the one place it is imported.

A module named by a `use:` entry, a `discover:` package or a plugin may fail in any way: raise,
have a syntax error, call `sys.exit`, print to stdout (which belongs to `--json` output), or
never finish. `import_module` turns each into a `SourceError` that names the module and what
happened, sends what the module prints to stderr, and gives up on an import that takes longer
than the budget (the import goes on in a daemon thread that can never keep the process alive).

Where user code is found is one rule, here and nowhere else: `importable_from` adds folders
(the config file's, a batch driver's) to `sys.path` after the installed packages, so that a
file a tool writes there (an `openai.py`) cannot shadow a package tooldeck imports later. A
batch worker calls it with its driver's path, so it imports what the driver could.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import threading
from collections.abc import Iterable
from types import ModuleType
from typing import Any

from tooldeck._utils.text import describe_exception
from tooldeck.errors import SourceError

# Seconds an import of user code may take before tooldeck gives up on it
# ($TOOLDECK_IMPORT_TIMEOUT_S changes it).
IMPORT_BUDGET_S = 20.0


def importable_from(folders: Iterable[str | None]) -> None:
    """Make modules in `folders` importable, after those already findable (see the module docstring)."""
    for folder in folders:
        if folder and folder not in sys.path:
            sys.path.append(folder)


def import_budget() -> float:
    raw = os.environ.get("TOOLDECK_IMPORT_TIMEOUT_S")
    try:
        value = float(raw) if raw else IMPORT_BUDGET_S
    except ValueError:
        return IMPORT_BUDGET_S
    return value if value > 0 else IMPORT_BUDGET_S


def import_module(name: str, *, timeout: float | None = None) -> ModuleType:
    """Import `name`; every failure (exit, hang, exception) becomes a `SourceError`."""
    timeout = import_budget() if timeout is None else timeout
    already = sys.modules.get(name)
    if already is not None:
        return already
    outcome: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            with contextlib.redirect_stdout(sys.stderr):
                outcome["module"] = importlib.import_module(name)
        except BaseException as exc:  # boundary: user code may raise anything, even SystemExit
            outcome["error"] = exc
        finally:
            done.set()

    threading.Thread(target=work, name=f"import {name}", daemon=True).start()
    if not done.wait(timeout):
        raise SourceError(f"importing module {name!r} did not finish within {timeout:g} s")
    error = outcome.get("error")
    if error is not None:
        raise SourceError(f"cannot import module {name!r}: {describe(error)}") from None
    module: ModuleType = outcome["module"]
    return module


def describe(exc: BaseException) -> str:
    """One line for an exception raised by user code."""
    if isinstance(exc, SystemExit):
        return f"it called sys.exit({exc.code!r}) while being imported"
    if isinstance(exc, SyntaxError):
        where = f" ({exc.filename}, line {exc.lineno})" if exc.filename else ""
        return f"SyntaxError: {exc.msg}{where}"
    if isinstance(exc, KeyboardInterrupt):
        return "it raised KeyboardInterrupt while being imported"
    return describe_exception(exc)
