"""tooldeck's loggers. As a library, tooldeck prints nothing unless the application asks.

Every logger is under "tooldeck", which carries a `NullHandler`: without logging configured,
Python would otherwise print warnings and errors (a failing tool's traceback) to stderr through
its last-resort handler. An application that configures logging sees the records as usual; the
command line sends them to its log file (or to stderr with --verbose).
"""

from __future__ import annotations

import logging

_ROOT = logging.getLogger("tooldeck")
if not any(isinstance(h, logging.NullHandler) for h in _ROOT.handlers):
    _ROOT.addHandler(logging.NullHandler())


def get_logger(name: str) -> logging.Logger:
    """The logger `name` (under "tooldeck")."""
    return logging.getLogger(name)


def quiet_library(name: str) -> None:
    """Keep library `name`'s log records off stderr unless the application configured logging:
    a `NullHandler` stops Python's last-resort printing, and the records still propagate."""
    logger = logging.getLogger(name)
    if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
        logger.addHandler(logging.NullHandler())
