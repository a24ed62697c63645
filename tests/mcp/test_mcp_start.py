"""Starting servers: their processes start before the SDK is imported (a cold import takes most
of a second, which the servers spend starting up meanwhile)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from .mcpkit import ROOT, TINY

# Run in a fresh interpreter, where nothing has imported the SDK yet. The import is held back
# until every server has written its marker (or 20 s have passed), and then it says which.
SCRIPT = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path

    import tooldeck._core.sources.mcp.sdk as sdk
    from tooldeck import Deck
    from tooldeck import parse_config

    tmp, tiny = Path(sys.argv[1]), sys.argv[2]
    markers = [tmp / f"started-{i}" for i in range(3)]
    real, seen = sdk.load_sdk, {}

    def held_back():
        deadline = time.monotonic() + 20
        while not all(m.exists() for m in markers) and time.monotonic() < deadline:
            time.sleep(0.01)
        seen["sdk_loaded"] = "mcp.client.session" in sys.modules
        seen["started"] = sum(m.exists() for m in markers)
        real()

    sdk.load_sdk = held_back
    servers = {
        f"s{i}": {"command": "sh", "args": ["-c", f'touch "{m}" && exec "{sys.executable}" "{tiny}"']}
        for i, m in enumerate(markers)
    }
    config = {"mcp_servers": servers, "home": str(tmp / "home"), "plugins": {"enabled": False}}
    deck = Deck(parse_config(config, base_dir=str(tmp)), builtins=False)
    try:
        seen["tools"] = sorted(t.name for t in deck.loadout().exposed)
    finally:
        deck.close()
    print(json.dumps(seen))
    """
)


def test_servers_start_before_the_sdk_is_imported(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path), str(TINY)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**__import__("os").environ, "PYTHONPATH": str(ROOT / "src")},
        check=True,
    )
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["sdk_loaded"] is False
    assert seen["started"] == 3
    assert {"mcp__s0__echo", "mcp__s1__echo", "mcp__s2__echo"} <= set(seen["tools"])
