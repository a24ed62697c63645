"""Example tools for examples/tooldeck.yaml: plain functions that do something real.

Each one is set up so that one gate of the assembly pipeline has something to decide.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import urllib.request
import zoneinfo
from pathlib import Path

from tooldeck import Availability, DescriptionContext, tool


@tool(toolset="text", group="text")
def word_count(text: str) -> str:
    """Count the words, lines and characters of a text.

    Args:
        text: The text to measure.
    """
    return json.dumps({"words": len(text.split()), "lines": text.count("\n") + 1, "chars": len(text)})


@tool(toolset="clock", group="clock", read_only=True)
def current_time(timezone: str = "UTC") -> str:
    """The current date and time in an IANA time zone.

    Args:
        timezone: IANA zone name such as Europe/Paris.
    """
    return dt.datetime.now(zoneinfo.ZoneInfo(timezone)).isoformat(timespec="seconds")


@tool(toolset="notes", group="notes", read_only=True)
def search_notes(query: str) -> str:
    """Find lines containing `query` in the Markdown notes of the notes folder.

    Args:
        query: Case-insensitive text to look for.
    """
    root = Path(os.environ.get("DEMO_NOTES_DIR", "notes"))
    hits = [
        f"{p.name}:{i}: {line.strip()}"
        for p in sorted(root.glob("*.md"))
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if query.lower() in line.lower()
    ]
    return "\n".join(hits) or "no match"


@tool(toolset="notes", group="notes", destructive=True, requires_approval=True)
def delete_note(name: str) -> str:
    """Delete one note from the notes folder.

    Args:
        name: File name of the note, e.g. ideas.md.
    """
    path = Path(os.environ.get("DEMO_NOTES_DIR", "notes")) / Path(name).name
    path.unlink()
    return f"deleted {path.name}"


@tool(
    toolset="web",
    group="web",
    open_world=True,
    references=("search_notes",),
    description=(
        "Fetch a web page and return its first 4000 characters of text."
        "{{if search_notes}} For things already written down, prefer search_notes.{{end}}"
    ),
)
def fetch_url(url: str) -> str:
    """Fetch a URL."""
    with urllib.request.urlopen(url, timeout=10) as resp:
        return resp.read(4000).decode("utf-8", "replace")


@tool(toolset="web", group="web", requires_env=("OPENWEATHER_API_KEY",), open_world=True)
def weather(city: str) -> str:
    """Current weather for a city (needs an OpenWeather API key).

    Args:
        city: City name, e.g. Lisbon.
    """
    key = os.environ["OPENWEATHER_API_KEY"]
    url = f"https://api.openweathermap.org/data/2.5/weather?q={city}&appid={key}"
    with urllib.request.urlopen(url, timeout=10) as resp:
        return resp.read().decode()


@tool(toolset="shell", group="bash", shell=True, timeout=30)
def run_command(command: str) -> str:
    """Run a shell command and return its output.

    Args:
        command: The command line to run with /bin/sh.
    """
    done = subprocess.run(["/bin/sh", "-c", command], capture_output=True, text=True, timeout=30)
    return done.stdout + done.stderr


@tool(toolset="vision", group="vision", needs_vision=True)
def describe_image(path: str) -> str:
    """Return an image's size and format so the model can look at it.

    Args:
        path: Path of a PNG or JPEG file.
    """
    head = Path(path).read_bytes()[:32]
    kind = "png" if head.startswith(b"\x89PNG") else "jpeg" if head.startswith(b"\xff\xd8") else "unknown"
    return json.dumps({"path": path, "format": kind, "bytes": Path(path).stat().st_size})


def _git_present() -> Availability:
    import shutil

    return Availability.yes() if shutil.which("git") else Availability.no("git is not installed")


@tool(toolset="dev", group="dev", check=_git_present, read_only=True)
def git_log(limit: int = 5) -> str:
    """The last commits of the git repository in the current directory.

    Args:
        limit: How many commits to show.
    """
    done = subprocess.run(["git", "log", f"-{limit}", "--oneline"], capture_output=True, text=True)
    return done.stdout or done.stderr


def _todo_description(ctx: DescriptionContext) -> str:
    others = sorted(ctx.exposed - {"summarize_loadout"})
    return f"List the tools the model can call right now: {', '.join(others)}."


@tool(toolset="dev", group="dev", description=_todo_description)
def summarize_loadout() -> str:
    """Live description (S2): it always lists exactly the exposed tools."""
    return "see description"


@tool(toolset="experimental", group="dev")
def reverse_text(text: str) -> str:
    """Reverse a text (an experimental toolset, disabled in the example config).

    Args:
        text: The text to reverse.
    """
    return text[::-1]


@tool(toolset="admin", group="admin", destructive=True)
def purge_cache(directory: str) -> str:
    """Remove every file in a cache directory (toolset not selected for the cli platform).

    Args:
        directory: The cache directory.
    """
    removed = 0
    for p in Path(directory).glob("*"):
        if p.is_file():
            p.unlink()
            removed += 1
    return f"removed {removed} files"


@tool(toolset="dev", group="dev")
def roll_dice(sides: int = 6, count: int = 1) -> str:
    """Roll dice and return the faces.

    Args:
        sides: Faces per die.
        count: Number of dice.
    """
    import random

    return json.dumps([random.randint(1, sides) for _ in range(count)])
