"""Tools served by `tooldeck serve` in the tests (copied next to each test's config file)."""

from __future__ import annotations

import time
from pathlib import Path

from tooldeck import tool


@tool(toolset="demo", read_only=True, idempotent=True)
def shout(text: str, times: int = 1) -> str:
    """Upper-case a text.

    Args:
        text: The text to shout.
        times: How many times to repeat it.
    """
    return " ".join([text.upper()] * times)


@tool(toolset="demo", destructive=True, open_world=False, approval="allow")
def explode(why: str = "no reason") -> str:
    """Fail on purpose."""
    raise RuntimeError(f"boom: {why}")


@tool(toolset="demo", requires_approval=True)
def guarded(note: str) -> str:
    """Write a note next to this module (needs approval)."""
    Path(__file__).with_name("notes.txt").open("a").write(note + "\n")
    return f"noted: {note}"


@tool(toolset="demo", timeout=0.5)
def dawdle() -> str:
    """Take far longer than allowed."""
    time.sleep(30)
    return "late"


def _flag_present() -> bool:
    return Path(__file__).with_name("flag").exists()


@tool(toolset="demo", check=_flag_present)
def flagged() -> str:
    """Only there while a file named 'flag' sits next to this module."""
    return "flag is up"
