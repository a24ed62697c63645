"""A DeerFlow-style config naming LangChain tools in `use:`, through the real `tooldeck` program:
listed, explained as config tools, called through the execution path, with the entry's options."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from support.cli import tooldeck_text

BIN = Path(sys.executable).parent / "tooldeck"

# What DeerFlow's `deerflow/sandbox/tools.py` looks like: a BaseTool subclass and a @tool function.
DEERFLOW_TOOLS = '''
from pathlib import Path

from langchain_core.tools import BaseTool, tool
from pydantic import BaseModel, Field


class ReadFileInput(BaseModel):
    path: str = Field(description="Path of the file, relative to the sandbox.")
    limit: int = Field(default=100, ge=1, le=1000, description="Lines to read at most.")


class ReadFileTool(BaseTool):
    name: str = "read_file"
    description: str = "Read a text file of the sandbox."
    args_schema: type[BaseModel] = ReadFileInput

    def _run(self, path: str, limit: int = 100) -> str:
        return "".join(Path(path).read_text().splitlines(keepends=True)[:limit])


read_file_tool = ReadFileTool()


@tool
def ls_tool(path: str = ".") -> str:
    """List the files of a folder of the sandbox."""
    import os

    return "\\n".join(sorted(os.listdir(path)))
'''

PYDANTIC_AI_TOOLS = '''
from pydantic_ai import RunContext, Tool


def whoami(ctx: RunContext[str]) -> str:
    """Say who runs the agent."""
    return ctx.deps


whoami_tool = Tool(whoami)
'''

CONFIG = """
plugins: {enabled: false}
home: ./home
sandbox: {workspace: .}
tools:
  - name: read_file
    group: file:read
    use: deerflow.sandbox.tools:read_file_tool
  - name: ls
    use: deerflow.sandbox.tools:ls_tool
    toolset: sandbox
    timeout: 5
    requires_approval: true
"""


def project(tmp_path: Path, config: str = CONFIG) -> Path:
    package = tmp_path / "deerflow" / "sandbox"
    package.mkdir(parents=True)
    (tmp_path / "deerflow" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "tools.py").write_text(textwrap.dedent(DEERFLOW_TOOLS))
    (tmp_path / "pa_tools.py").write_text(textwrap.dedent(PYDANTIC_AI_TOOLS))
    (tmp_path / "note.txt").write_text("tides at six\nlow at noon\n")
    (tmp_path / "tooldeck.yaml").write_text(textwrap.dedent(config))
    return tmp_path


def tooldeck(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TOOLDECK_HOME": str(root / "home")}
    return tooldeck_text(list(args), root, env, timeout=120)


def test_a_deerflow_config_lists_and_explains_its_langchain_tools(tmp_path: Path) -> None:
    root = project(tmp_path)
    listed = tooldeck(root, "tools", "--json")
    assert listed.returncode == 0, listed.stderr
    sent = {t["function"]["name"]: t["function"] for t in json.loads(listed.stdout)}
    assert sent["read_file"]["description"] == "Read a text file of the sandbox."
    limit = sent["read_file"]["parameters"]["properties"]["limit"]
    assert limit == {
        "default": 100,
        "description": "Lines to read at most.",
        "maximum": 1000,
        "minimum": 1,
        "type": "integer",
    }
    assert sent["ls_tool"]["description"] == "List the files of a folder of the sandbox."
    explained = tooldeck(root, "explain", "read_file", "ls_tool", "--json")
    assert explained.returncode == 0, explained.stderr
    fates = json.loads(explained.stdout)
    mine = [f for f in fates if f["source"] == "config"]
    assert {(f["name"], f["status"]) for f in mine} == {("read_file", "exposed"), ("ls_tool", "exposed")}
    assert next(f for f in mine if f["name"] == "ls_tool")["toolset"] == "sandbox"  # the entry's option
    # The built-in read_file loses to the config's, and says so.
    [builtin] = [f for f in fates if f["source"] == "builtin" and f["name"] == "read_file"]
    assert builtin["status"] == "hidden" and builtin["gate"] == "dedup"
    # The config label that differs from the tool's own name is a warning, as for any entry.
    assert "config name 'ls' differs from the tool's own name 'ls_tool'" in explained.stderr


def test_a_langchain_tool_of_the_config_is_called_through_the_execution_path(tmp_path: Path) -> None:
    root = project(tmp_path)
    called = tooldeck(root, "call", "read_file", "--args", '{"path": "note.txt", "limit": "1"}', "--json")
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout)["content"] == "tides at six\n"  # "1" coerced to 1
    invalid = tooldeck(root, "call", "read_file", "--args", '{"path": "note.txt", "limit": 0}', "--json")
    assert invalid.returncode == 1 and json.loads(invalid.stdout)["error"]["type"] == "invalid_arguments"
    # `requires_approval: true` in the entry: without --yes nobody approves, and the tool does not run.
    denied = tooldeck(root, "call", "ls_tool", "--args", "{}", "--json")
    assert denied.returncode == 1 and json.loads(denied.stdout)["error"]["type"] == "denied"
    approved = tooldeck(root, "call", "ls_tool", "--args", "{}", "--yes", "--json")
    assert approved.returncode == 0 and "note.txt" in json.loads(approved.stdout)["content"]


def test_a_pydantic_ai_tool_needing_a_run_context_is_a_config_error_naming_it(tmp_path: Path) -> None:
    root = project(tmp_path, "plugins: {enabled: false}\ntools:\n  - use: pa_tools:whoami_tool\n")
    proc = tooldeck(root, "tools", "--json")
    assert proc.returncode == 2 and proc.stdout == ""
    assert "tools[0].use" in proc.stderr and "'whoami' needs a run context" in proc.stderr
    assert "Traceback" not in proc.stderr
