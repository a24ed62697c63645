"""Walking a docs page as its reader would: its files saved and its commands run, in the page's
order, in an empty folder, with the venv under test as the installation."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

from support.doc_blocks import Block, blocks

END = "__TOOLDECK_DOCS_EOF__"


def script_step(block: Block) -> str | None:
    """The shell text that does what the reader does with this block, or None (nothing to do)."""
    if block.title:
        return f"cat > '{block.title}' <<'{END}'\n{block.body}{END}\n"
    if block.lang == "python":
        return f"python - <<'{END}'\n{block.body}{END}\n"
    if block.lang == "bash":
        # The installation is the venv this test runs in: the walk uses its `python` and `tooldeck`.
        return "".join(line + "\n" for line in block.body.splitlines() if not line.startswith("pip install"))
    if block.lang == "console":  # the `$ ` lines are commands, the others what they print
        return "".join(line[2:] + "\n" for line in block.body.splitlines() if line.startswith("$ "))
    return None  # a config fragment shown for reading (validated by test_docs_blocks)


def walk_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The reader's environment: this venv first on PATH, a fresh tooldeck home, no endpoint."""
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "TOOLDECK_"))}
    return {
        **keep,
        "PATH": str(Path(sys.executable).parent) + os.pathsep + keep.get("PATH", ""),
        "TOOLDECK_HOME": str(tmp_path / "home"),
        "TOOLDECK_CACHE_DIR": str(tmp_path / "cache"),
        "COLUMNS": "200",
        **extra,
    }


def walk(page: Path, folder: Path, env: dict[str, str]) -> dict[int, str]:
    """Run the page's steps in `folder`; each step's output (stdout and stderr), by its line."""
    steps = [(b.line, s) for b in blocks(page) if (s := script_step(b)) is not None]
    script = "set -euo pipefail\n" + "".join(f"echo '::step {line}::'\n{text}" for line, text in steps)
    proc = subprocess.Popen(
        ["bash", "-c", script],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=240)
    finally:
        # A background server the page started goes with the group, whatever happened.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == 0, out
    outputs: dict[int, str] = {}
    for chunk in out.split("::step ")[1:]:
        line, text = chunk.split("::\n", 1) if "::\n" in chunk else (chunk.rstrip(":\n"), "")
        outputs[int(line)] = text
    return outputs


def step_output(page: Path, outputs: dict[int, str], needle: str) -> str:
    """The output of the step whose text holds `needle`."""
    [line] = [b.line for b in blocks(page) if needle in b.body and not b.title]
    return outputs[line]


def shown_output_is_printed(page: Path, outputs: dict[int, str]) -> None:
    """Each line a console block shows a command printing is among the lines it printed (runs
    of spaces aside: a table's column widths follow the terminal)."""
    for block in blocks(page):
        if block.lang != "console":
            continue
        printed = {" ".join(line.split()) for line in outputs[block.line].splitlines()}
        for line in block.body.splitlines():
            if not line.startswith("$ ") and line.strip():
                assert " ".join(line.split()) in printed, f"{page.name}:{block.line}: {line}"
