"""The command line under hostile and careless input: clear errors, clean stdout, no tracebacks.

Each test reproduces an attack or a mistake (a module that raises, exits, hangs or prints on
import; a tool that prints, raises a BaseException, or returns terminal escape sequences and
lone surrogates; a platform typo; a class where a tool was expected) through the real
`tooldeck` console script.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tooldeck.testing.scripted_server import ScriptedServer, Turn

from .clirun import tooldeck

TOOLS = '''
import sys
from tooldeck import tool


@tool(toolset="t")
def chatty(text: str) -> str:
    """Prints while it works: through sys.stdout, to descriptor 1, and from a child process."""
    import os
    import subprocess

    print("noise on stdout from a tool")
    os.write(1, b"raw bytes on descriptor 1\\n")
    subprocess.run([sys.executable, "-c", "print('a child inherits stdout')"], check=True)
    return text


@tool(toolset="t")
def escapes() -> str:
    """Returns terminal escape sequences and a lone surrogate."""
    return "title\\x1b]0;pwned\\x07 red\\x1b[31mtext\\x1b[0m half\\ud800"


@tool(toolset="t")
def interrupts() -> str:
    """Raises KeyboardInterrupt itself."""
    raise KeyboardInterrupt("from the tool")


class Odd(BaseException):
    pass


@tool(toolset="t")
def odd() -> str:
    """Raises a BaseException subclass."""
    raise Odd("strange")


@tool(toolset="t")
async def async_interrupts() -> str:
    """An async tool raising KeyboardInterrupt."""
    raise KeyboardInterrupt("async")


@tool(toolset="t")
def boom() -> str:
    """Raises."""
    raise RuntimeError("kaboom")


class NotATool:
    pass
'''


def project(tmp_path: Path, config: str, **modules: str) -> Path:
    (tmp_path / "hostile_tools.py").write_text(textwrap.dedent(TOOLS), encoding="utf-8")
    for name, text in modules.items():
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(text), encoding="utf-8")
    (tmp_path / "tooldeck.yaml").write_text(textwrap.dedent(config), encoding="utf-8")
    return tmp_path


LOUD = "print('hello from import')\nfrom tooldeck import tool\n\n@tool\ndef quiet() -> str:\n    'q'\n    return 'q'\n"

BASE = """
plugins: {enabled: false}
tools:
  - {use: "hostile_tools:chatty"}
  - {use: "hostile_tools:escapes"}
  - {use: "hostile_tools:interrupts"}
  - {use: "hostile_tools:odd"}
  - {use: "hostile_tools:async_interrupts"}
  - {use: "hostile_tools:boom"}
"""


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"TOOLDECK_HOME": str(tmp_path / "home")}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("raise RuntimeError('broken at import')", "RuntimeError: broken at import"),
        ("def f(:\n    pass", "SyntaxError"),
        ("import sys\nsys.exit(3)", "it called sys.exit(3) while being imported"),
        ("import time\ntime.sleep(60)", "did not finish within 2 s"),
    ],
    ids=["raises", "syntax", "exits", "hangs"],
)
def test_a_use_module_that_fails_to_import_is_a_config_error(
    tmp_path: Path, env: dict[str, str], body: str, message: str
) -> None:
    root = project(tmp_path, 'tools: [{use: "badmod:x"}]\n', badmod=body)
    # A short import budget for the module that hangs (the others import at once and keep the
    # default one, which a loaded machine cannot miss).
    budget = {"TOOLDECK_IMPORT_TIMEOUT_S": "2"} if "sleep" in body else {}
    proc = tooldeck("tools", "--json", cwd=root, env={**env, **budget})
    assert proc.returncode == 2, proc.stderr
    assert "config error: tools[0].use: cannot import module 'badmod'" in proc.stderr or (
        "tools[0].use" in proc.stderr and "badmod" in proc.stderr
    )
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""  # and it returned well before the module's 60 s sleep ended


def test_a_discovered_package_that_fails_is_reported_and_the_rest_still_loads(
    tmp_path: Path, env: dict[str, str]
) -> None:
    root = project(tmp_path, BASE + "discover: [badpkg]\n")
    (root / "badpkg").mkdir()
    (root / "badpkg" / "__init__.py").write_text("")
    (root / "badpkg" / "broken.py").write_text(
        "from tooldeck import tool\nraise ValueError('nope')\n\n@tool\ndef never() -> str:\n    'n'\n    return 'n'\n"
    )
    proc = tooldeck("tools", "--json", cwd=root, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "badpkg.broken" in proc.stderr and "ValueError: nope" in proc.stderr
    assert "chatty" in [t["function"]["name"] for t in json.loads(proc.stdout)]


def test_printing_modules_and_tools_never_corrupt_json_output(tmp_path: Path, env: dict[str, str]) -> None:
    root = project(
        tmp_path,
        BASE + '  - {use: "loud:quiet"}\n',
        loud=LOUD,
    )
    for args in (
        ("tools", "--json"),
        ("explain", "--json"),
        ("call", "chatty", "--args", '{"text": "x"}', "--json"),
    ):
        proc = tooldeck(*args, cwd=root, env=env)
        assert proc.returncode == 0, proc.stderr
        json.loads(proc.stdout)  # stdout holds the JSON and nothing else
        assert "hello from import" in proc.stderr
    call = tooldeck("call", "chatty", "--args", '{"text": "x"}', "--json", cwd=root, env=env)
    assert "noise on stdout from a tool" in call.stderr and json.loads(call.stdout)["content"] == "x"
    assert "raw bytes on descriptor 1" in call.stderr and "a child inherits stdout" in call.stderr


def test_terminal_escapes_are_shown_not_obeyed_and_json_keeps_them(
    tmp_path: Path, env: dict[str, str]
) -> None:
    root = project(tmp_path, BASE)
    human = tooldeck("call", "escapes", cwd=root, env=env)
    assert human.returncode == 0, human.stderr
    assert "\x1b" not in human.stdout and "\\x1b]0;pwned\\x07" in human.stdout
    machine = tooldeck("call", "escapes", "--json", cwd=root, env=env)
    content = json.loads(machine.stdout)["content"]
    assert "\x1b]0;pwned\x07" in content  # the raw text, as the model would get it
    assert "\ud800" not in content and "half\ufffd" in content  # a lone surrogate is replaced


def test_run_verbose_shows_a_tools_escape_sequences_escaped(
    tmp_path: Path, env: dict[str, str], scripted_server: ScriptedServer
) -> None:
    root = project(tmp_path, BASE)
    scripted_server.add(Turn(calls=[("escapes", {})]), Turn(text="done \x1b[31mred\x1b[0m"))
    proc = tooldeck(
        "run", "go", "-v", "--model", "m", "--base-url", scripted_server.openai_url, cwd=root, env=env
    )
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stderr and "\x07" not in proc.stderr  # nothing a terminal would obey
    assert "\x1b" not in proc.stdout and proc.stdout.strip() == "done \\x1b[31mred\\x1b[0m"
    assert "\\x1b]0;pwned\\x07" in proc.stderr  # the step shows what the tool returned, escaped
    [(_, content)] = scripted_server.requests[1].tool_results()
    assert "\x1b]0;pwned\x07" in content  # the model gets the raw text


def test_run_json_stdout_stays_json_when_a_tool_and_a_module_print(
    tmp_path: Path, env: dict[str, str], scripted_server: ScriptedServer
) -> None:
    root = project(tmp_path, BASE + '  - {use: "loud:quiet"}\n', loud=LOUD)
    scripted_server.add(Turn(calls=[("chatty", {"text": "x"})]), Turn(text="fine"))
    proc = tooldeck(
        "run", "go", "--json", "--model", "m", "--base-url", scripted_server.openai_url, cwd=root, env=env
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["text"] == "fine"  # stdout holds the JSON and nothing else
    assert "hello from import" in proc.stderr and "noise on stdout from a tool" in proc.stderr


@pytest.mark.parametrize("name", ["interrupts", "odd", "async_interrupts", "boom"])
def test_a_tool_raising_anything_is_one_error_line_not_a_traceback(
    tmp_path: Path, env: dict[str, str], name: str
) -> None:
    root = project(tmp_path, BASE)
    proc = tooldeck("call", name, "--json", cwd=root, env=env)
    assert proc.returncode == 1, proc.stderr
    error = json.loads(proc.stdout)["error"]
    assert error["type"] == "tool_error"
    assert "Traceback" not in proc.stderr and "interrupted" not in proc.stderr
    human = tooldeck("call", name, cwd=root, env=env)
    assert human.returncode == 1 and "Traceback" not in human.stderr
    assert [line for line in human.stderr.splitlines() if line.startswith("tooldeck: tool_error")]
    log = (Path(env["TOOLDECK_HOME"]) / "logs" / "tooldeck.log").read_text()
    assert "Traceback" in log  # the detail is kept in the log file


def test_a_platform_typo_is_an_error_with_a_suggestion_in_every_command(
    tmp_path: Path, env: dict[str, str]
) -> None:
    root = project(tmp_path, BASE + "platform_toolsets: {cli: [t], gateway: [t]}\n")
    for args in (("tools",), ("explain",), ("call", "chatty", "--args", '{"text": "x"}')):
        proc = tooldeck(*args, "--platform", "gatway", cwd=root, env=env)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "unknown platform 'gatway'" in proc.stderr and "did you mean 'gateway'" in proc.stderr
    run = tooldeck(
        "run",
        "hi",
        "--platform",
        "gatway",
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        cwd=root,
        env=env,
    )
    assert run.returncode == 2 and "did you mean 'gateway'" in run.stderr


def test_a_use_entry_naming_a_class_is_refused(tmp_path: Path, env: dict[str, str]) -> None:
    root = project(tmp_path, 'tools: [{use: "hostile_tools:NotATool"}]\n')
    proc = tooldeck("tools", "--json", cwd=root, env=env)
    assert proc.returncode == 2
    assert "tools[0].use: hostile_tools:NotATool is a class, not a tool" in proc.stderr


def test_call_reads_long_arguments_from_stdin_or_a_file(tmp_path: Path, env: dict[str, str]) -> None:
    root = project(tmp_path, BASE)
    text = "y" * 300_000  # beyond what one command-line argument may hold
    (root / "args.json").write_text(json.dumps({"text": text}))
    from_file = tooldeck("call", "chatty", "--args", f"@{root / 'args.json'}", "--json", cwd=root, env=env)
    assert json.loads(from_file.stdout)["content"].startswith("y" * 1000)
    import subprocess

    from .clirun import BIN

    piped = subprocess.run(
        [str(BIN), "call", "chatty", "--args", "-", "--json"],
        input=json.dumps({"text": "from stdin"}),
        capture_output=True,
        text=True,
        cwd=root,
        env={**__import__("os").environ, **env},
        timeout=60,
    )
    assert json.loads(piped.stdout)["content"] == "from stdin"
    missing = tooldeck("call", "chatty", "--args", "@/nonexistent/args.json", cwd=root, env=env)
    assert missing.returncode == 2 and "cannot read arguments" in missing.stderr


def test_explain_counts_tokens_of_huge_descriptions_in_linear_time(
    tmp_path: Path, env: dict[str, str]
) -> None:
    huge = "word " * 20_000 + "x" * 100_000
    module = f"from tooldeck import Tool\nbig = Tool(name='big', description={huge!r}, parameters={{}}, handler=lambda a: 'ok')\n"
    root = project(tmp_path, 'tools: [{use: "bigmod:big"}]\nplugins: {enabled: false}\n', bigmod=module)
    # Quadratic work on 200,000 characters would not finish within the runner's timeout.
    proc = tooldeck("explain", "big", "--json", cwd=root, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)[0]["tokens"] > 20_000


class _NotAModel:
    """A local endpoint that answers every request with HTTP 200 and an HTML page."""

    def __enter__(self) -> str:
        import http.server
        import threading

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)))
                body = b"<html>this is not a model</html>"
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("provider", ["openai", "responses", "anthropic"])
def test_an_endpoint_answering_garbage_is_one_model_error_line(
    tmp_path: Path, env: dict[str, str], provider: str
) -> None:
    root = project(tmp_path, BASE)
    with _NotAModel() as url:
        proc = tooldeck(
            "run", "hi", "--model", "m", "--base-url", url, "--provider", provider, cwd=root, env=env
        )
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    errors = [line for line in lines if "model error:" in line]
    assert len(errors) == 1, proc.stderr
    # The status (200: the endpoint said all was well) and a snippet of what it sent instead.
    assert "HTTP 200" in errors[0] and "not a model response" in errors[0] and "<html>" in errors[0]
    assert "Traceback" not in proc.stderr


def test_without_a_config_file_a_note_says_what_applies(tmp_path: Path, env: dict[str, str]) -> None:
    proc = tooldeck("tools", "--json", cwd=tmp_path, env=env)
    assert proc.returncode == 0
    assert "no tooldeck.yaml here" in proc.stderr and "every built-in tool" in proc.stderr
    assert json.loads(proc.stdout)  # the tools themselves, untouched by the note
    schema = tooldeck("config", "--schema", cwd=tmp_path, env=env)
    properties = json.loads(schema.stdout)["properties"]
    assert {"platform_toolsets", "sandbox", "approvals", "mcp_servers"} <= set(properties)
