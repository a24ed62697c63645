"""As a library, tooldeck prints nothing the application did not ask for; configured logging
still receives the records."""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import logging, sys
    from tooldeck import Config, Deck, tool

    @tool
    def bad() -> str:
        \"\"\"Fails.\"\"\"
        raise ValueError("boom")

    if sys.argv[1] == "configured":
        logging.basicConfig(stream=sys.stdout, level=logging.WARNING, format="LOG %(name)s %(message)s")
    deck = Deck(Config(), tools=[bad], builtins=False)
    print("error:", deck.call_sync("bad").error.message)
    """
)


def run(mode: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, timeout=60, check=True
    )


def test_a_failing_tool_prints_no_traceback_when_logging_is_not_configured() -> None:
    quiet = run("plain")
    assert "error: tool 'bad' failed: ValueError: boom" in quiet.stdout
    assert quiet.stderr == ""  # Python's last-resort handler would print the traceback here


def test_an_application_that_configures_logging_gets_the_record() -> None:
    loud = run("configured")
    assert "LOG tooldeck.execution" in loud.stdout and "ValueError: boom" in loud.stdout
