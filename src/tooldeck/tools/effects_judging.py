"""How each tool that can change the workspace has its changes judged, as `explain` says it.

`terminal` commands run in a copy-on-write view when one can be mounted here (probed once: the
kernel's and the workspace file system's answer), else by the slower way, a look before and
after whose held effects are reverted; `execute_code` always takes the slower way (its nested
tool calls act on the workspace itself); an ACP agent's writes through tooldeck are
checkpointed, what it writes from its own process is not seen.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from tooldeck.core import CoreConfig, Tool

SLOWER = "a look before and after; held effects are reverted"


def judging(config: CoreConfig, tools: Iterable[Tool], home: Path) -> dict[str, str]:
    """For each of `tools` whose changes tooldeck judges or checkpoints in its own way: how."""
    said: dict[str, str] = {}
    for t in tools:
        if t.source == "acp":
            said[t.name] = (
                "its writes through tooldeck (fs/write_text_file) are checkpointed; what the agent writes "
                "from its own process is not seen"
            )
        elif t.source == "builtin" and t.name in ("terminal", "execute_code"):
            said[t.name] = _command(config, t.name, home)
    return said


def _command(config: CoreConfig, name: str, home: Path) -> str:
    if not config.effects.enabled:
        return "not judged (effects.enabled: false): commands write the workspace directly"
    unkept = (
        ""
        if config.checkpoints.enabled
        else ", unjudged: checkpoints.enabled is false (nowhere to keep the bytes)"
    )
    if name == "execute_code":
        return f"{SLOWER} (its tool calls act on the workspace itself){unkept}"
    from tooldeck.safety.sandbox.probe import probe_bwrap_cached, probe_view

    probe = probe_bwrap_cached(home / "cache")
    if not probe.works:
        where = "on the host" if config.sandbox.allow_host_shell else "not at all"
        return f"no sandbox ({probe.reason}), so commands run {where}: {SLOWER}{unkept}"
    workspace = Path(os.path.realpath(config.resolve_path(config.sandbox.workspace)))
    from tooldeck.tools.effects import scratch_for

    why = probe_view(workspace, scratch_for(home, workspace), config.sandbox.uid, probe.path)
    if why is None:
        return "in a copy-on-write view of the workspace (overlayfs); held effects never reach it"
    return f"no copy-on-write view here ({why}): {SLOWER}{unkept}"
