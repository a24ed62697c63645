"""A newcomer's walk through docs/getting-started.md: its files saved and its commands run, in
the page's order, in an empty folder, as the page tells them; what the page says they show is
what they show."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from support.doc_blocks import Block, blocks
from tooldeck.testing.scripted_server import ScriptedServer, Turn

PAGE = Path(__file__).resolve().parents[2] / "docs" / "getting-started.md"
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


def walk(folder: Path, env: dict[str, str]) -> dict[int, str]:
    """Run the page's steps in `folder`; each step's output (stdout and stderr), by its line."""
    steps = [(b.line, s) for b in blocks(PAGE) if (s := script_step(b)) is not None]
    script = "set -euo pipefail\n" + "".join(f"echo '::step {line}::'\n{text}" for line, text in steps)
    proc = subprocess.Popen(
        ["bash", "-c", script],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # the page's background server goes with the group if a step fails
    )
    try:
        out, _ = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None or proc.returncode != 0:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, out
    outputs: dict[int, str] = {}
    for chunk in out.split("::step ")[1:]:
        line, text = chunk.split("::\n", 1) if "::\n" in chunk else (chunk.rstrip(":\n"), "")
        outputs[int(line)] = text
    return outputs


def step_output(outputs: dict[int, str], needle: str) -> str:
    """The output of the step whose text holds `needle`."""
    [line] = [b.line for b in blocks(PAGE) if needle in b.body and not b.title]
    return outputs[line]


def shown_output_is_printed(outputs: dict[int, str]) -> None:
    """Each line a console block shows a command printing is among the lines it printed (runs
    of spaces aside: the table's column widths follow the terminal)."""
    for block in blocks(PAGE):
        if block.lang != "console":
            continue
        printed = {" ".join(line.split()) for line in outputs[block.line].splitlines()}
        for line in block.body.splitlines():
            if not line.startswith("$ ") and line.strip():
                assert " ".join(line.split()) in printed, f"getting-started.md:{block.line}: {line}"


def test_a_newcomer_reaches_explain_and_a_scripted_agent_turn_from_the_page_alone(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    # The "real endpoint" of the page's last step, played by a scripted server: its key is fake.
    scripted_server.add(
        Turn(calls=[("word_count", {"text": "a real model picks the tool"})]), Turn("6 words.")
    )
    folder = tmp_path / "newcomer"
    folder.mkdir()
    venv_bin = str(Path(sys.executable).parent)
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "ANTHROPIC_", "TOOLDECK_"))}
    env = {
        **keep,
        "PATH": venv_bin + os.pathsep + keep.get("PATH", ""),
        "TOOLDECK_HOME": str(tmp_path / "home"),
        "TOOLDECK_CACHE_DIR": str(tmp_path / "cache"),
        "OPENAI_BASE_URL": scripted_server.openai_url,
        "COLUMNS": "200",
    }
    outputs = walk(folder, env)

    assert {"calls.json", "my_tools.py", "tooldeck.yaml"} <= {p.name for p in folder.iterdir()}
    tools = json.loads(step_output(outputs, "tooldeck tools --json"))
    assert [t["function"]["name"] for t in tools] == ["word_count"]
    explained = step_output(outputs, "tooldeck explain word_count translate read_file")
    rows = {line.split("│")[1].strip(): line for line in explained.splitlines() if line.count("│") > 4}
    assert "exposed" in rows["word_count"]
    assert "availability" in rows["translate"] and "DEEPL_API_KEY" in rows["translate"]
    assert "toolset" in rows["read_file"] and "not selected" in rows["read_file"]
    shown_output_is_printed(outputs)
    assert step_output(outputs, "tooldeck call word_count").strip() == "10"

    turn = step_output(outputs, "--model scripted")
    assert "That is 10 words." in turn
    assert "→ word_count(" in turn and "← word_count: 10" in turn  # -v: the call and its result

    assert "6 words." in step_output(outputs, "--model gpt-4o-mini")
    [first, second] = scripted_server.requests
    assert first.body["model"] == "gpt-4o-mini" and first.tool_names() == ["word_count"]
    assert second.tool_results()[0][1] == "6"
