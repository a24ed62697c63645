"""A newcomer's walk through docs/getting-started.md: its files saved and its commands run, in
the page's order, in an empty folder, as the page tells them; what the page says they show is
what they show."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.doc_walk import shown_output_is_printed, step_output, walk, walk_env
from tooldeck.testing.scripted_server import ScriptedServer, Turn

PAGE = Path(__file__).resolve().parents[2] / "docs" / "getting-started.md"


# A whole page of commands, each a process start-up (a batch's workers too), may take more than
# the suite's default two minutes on a loaded machine; the walk itself gives up after four.
@pytest.mark.timeout(300)
def test_a_newcomer_reaches_explain_and_a_scripted_agent_turn_from_the_page_alone(
    tmp_path: Path, scripted_server: ScriptedServer
) -> None:
    # The "real endpoint" of the page's last step, played by a scripted server: its key is fake.
    scripted_server.add(
        Turn(calls=[("word_count", {"text": "a real model picks the tool"})]), Turn("6 words.")
    )
    folder = tmp_path / "newcomer"
    folder.mkdir()
    outputs = walk(PAGE, folder, walk_env(tmp_path, OPENAI_BASE_URL=scripted_server.openai_url))

    def output(needle: str) -> str:
        return step_output(PAGE, outputs, needle)

    assert {"calls.json", "my_tools.py", "tooldeck.yaml"} <= {p.name for p in folder.iterdir()}
    tools = json.loads(output("tooldeck tools --json"))
    assert [t["function"]["name"] for t in tools] == ["word_count"]
    explained = output("tooldeck explain word_count translate read_file")
    rows = {line.split("│")[1].strip(): line for line in explained.splitlines() if line.count("│") > 4}
    assert "exposed" in rows["word_count"]
    assert "availability" in rows["translate"] and "DEEPL_API_KEY" in rows["translate"]
    assert "toolset" in rows["read_file"] and "not selected" in rows["read_file"]
    shown_output_is_printed(PAGE, outputs)
    assert output("tooldeck call word_count").strip() == "10"

    turn = output("--model scripted")
    assert "That is 10 words." in turn
    assert "→ word_count(" in turn and "← word_count: 10" in turn  # -v: the call and its result

    assert "6 words." in output("--model gpt-4o-mini")
    [first, second] = scripted_server.requests
    assert first.body["model"] == "gpt-4o-mini" and first.tool_names() == ["word_count"]
    assert second.tool_results()[0][1] == "6"
