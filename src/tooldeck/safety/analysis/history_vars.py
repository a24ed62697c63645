"""Shell variables that decide whether history is kept: turning them off hides what runs next."""

from __future__ import annotations

# HISTFILE empty or /dev/null, or unset: nothing is written; a size of 0 keeps nothing.
_SIZES = frozenset({"HISTSIZE", "HISTFILESIZE", "SAVEHIST"})


def history_off(name: str, value: str | None) -> str | None:
    """Why setting `name` to `value` (None: unsetting it) stops the shell keeping its history."""
    if name == "HISTFILE":
        if value is None:
            return "unset HISTFILE: the shell stops saving its history"
        if value.strip() in ("", "/dev/null"):
            return f"HISTFILE={value or '(empty)'}: the shell stops saving its history"
        return None
    if name in _SIZES and value is not None and value.strip() == "0":
        return f"{name}=0: the shell keeps no history"
    return None
