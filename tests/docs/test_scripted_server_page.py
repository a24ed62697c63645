"""docs/testing.md's commands, run as its reader would: the scripted server started from the
command line drives a `tooldeck run` and a `tooldeck batch` through the calls of its JSON file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.doc_walk import step_output, walk, walk_env

PAGE = Path(__file__).resolve().parents[2] / "docs" / "testing.md"


# A whole page of commands, each a process start-up (a batch's workers too), may take more than
# the suite's default two minutes on a loaded machine; the walk itself gives up after four.
@pytest.mark.timeout(300)
def test_the_scripted_server_drives_a_run_and_a_batch_as_the_page_shows(tmp_path: Path) -> None:
    folder = tmp_path / "reader"
    folder.mkdir()
    outputs = walk(PAGE, folder, walk_env(tmp_path))

    # The run's answer is the default one; the script's calls wrote the note and read it back.
    assert "answer: Keep a note" in step_output(PAGE, outputs, "tooldeck run")
    assert (folder / "note.txt").read_text(encoding="utf-8") == "tides at six"
    results = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    assert sorted(r["id"] for r in results) == ["monday", "tuesday"]
    for result in results:
        assert result["status"] == "ok" and result["text"] == "answer: " + (
            "Keep a note" if result["id"] == "monday" else "Keep it again"
        )
        assert [(c["name"], c["error"]) for c in result["tool_calls"]] == [
            ("write_file", None),
            ("read_file", None),
        ]
