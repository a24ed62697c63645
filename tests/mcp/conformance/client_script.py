"""tooldeck as the client of an MCP conformance scenario, used the way a person would use it.

`conformance client --command "python client_script.py" --scenario NAME` starts a mock server
and runs this script with its URL as the last argument (and the scenario in
$MCP_CONFORMANCE_SCENARIO, the protocol revision the mock speaks in
$MCP_CONFORMANCE_PROTOCOL_VERSION, extra data in $MCP_CONFORMANCE_CONTEXT as JSON). The script
writes a tooldeck config naming that server, then runs the `tooldeck` command line: `tooldeck mcp
list`, and `tooldeck call mcp__conf__TOOL --yes` for the calls the scenario wants made. `--yes`
is what answers a server's question (elicitation) with its form's defaults, as a person
accepting the form unchanged would. Nothing here speaks MCP itself.

The commands run one after another in this process, through the console script's own entry
(`tooldeck.cli.main.run`: the same parsing, output and exit codes), each ended as the console
script ends, its exit handlers run (MCP sessions closed): a command costs what it does, not a
fresh interpreter importing the MCP SDK again (most of a scenario's CPU when each was a process).

`server_config` is the one place that decides what the config says about the server (the
authorization scenarios add their settings there). The exit code is 0 when every command ran;
whether the scenario passed is the suite's verdict, not this script's.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tooldeck.cli.main import run as run_command_line

SERVER = "conf"  # its tools are mcp__conf__<tool>


def server_config(url: str, scenario: str, context: dict[str, Any]) -> dict[str, Any]:
    """The `mcp_servers` entry for the scenario's server."""
    entry: dict[str, Any] = {"url": url, "connect_timeout": 20}
    if scenario.startswith("auth/"):
        entry["auth"] = auth_config(url, scenario, context)
    return entry


# The client ID metadata document URL the suite's mock authorization servers expect.
CIMD_URL = "https://conformance-test.local/client-metadata.json"
SECRET_ENV = "CONFORMANCE_CLIENT_SECRET"
KEY_ENV = "CONFORMANCE_CLIENT_KEY"


def auth_config(url: str, scenario: str, context: dict[str, Any]) -> dict[str, Any]:
    """`auth:` as a person would write it for the scenario's server: a pre-registered client when
    the scenario hands one out (its secret in an environment variable), else registration."""
    if context.get("idp_token_endpoint"):
        return identity_assertion_config(url, context)
    auth: dict[str, Any] = {"client_metadata_url": CIMD_URL}
    if context.get("client_id"):
        auth["client_id"] = context["client_id"]
        if context.get("client_secret"):
            os.environ[SECRET_ENV] = context["client_secret"]
            auth["client_secret_env"] = SECRET_ENV
    if context.get("private_key_pem"):
        os.environ[KEY_ENV] = context["private_key_pem"]
        auth["client_key_env"] = KEY_ENV
        auth["signing_algorithm"] = context.get("signing_algorithm", "ES256")
    if scenario.startswith("auth/client-credentials"):
        auth["grant"] = "client_credentials"
    return auth


ID_TOKEN_ENV = "CONFORMANCE_IDP_ID_TOKEN"


def identity_assertion_config(url: str, context: dict[str, Any]) -> dict[str, Any]:
    """Enterprise-managed authorization (SEP-990): the scenario's client at the MCP authorization
    server, its client at the enterprise IdP and the user's ID token (in environment variables).
    A person would write the authorization server's issuer from their IdP admin's instructions;
    the scenario does not say it, so the script reads it where the SDK's conformance client does,
    in the MCP server's protected-resource metadata (a harness step, not tooldeck's: tooldeck
    itself never asks the MCP server which authorization server to trust with this grant)."""
    os.environ[SECRET_ENV] = context["client_secret"]
    os.environ[ID_TOKEN_ENV] = context["idp_id_token"]
    return {
        "grant": "identity_assertion",
        "client_id": context["client_id"],
        "client_secret_env": SECRET_ENV,
        "issuer": _authorization_server(url),
        "idp_token_endpoint": context["idp_token_endpoint"],
        "idp_client_id": context["idp_client_id"],
        "idp_id_token_env": ID_TOKEN_ENV,
    }


def _authorization_server(server_url: str) -> str:
    """The first authorization server of the RFC 9728 metadata at the path-suffixed well-known URL."""
    import urllib.request
    from urllib.parse import urlsplit

    parts = urlsplit(server_url)
    path = parts.path.rstrip("/")
    prm = f"{parts.scheme}://{parts.netloc}/.well-known/oauth-protected-resource{path}"
    with urllib.request.urlopen(prm, timeout=20) as answer:  # the scenario's loopback URL
        return str(json.loads(answer.read())["authorization_servers"][0])


def tool(name: str) -> str:
    return f"mcp__{SERVER}__{name}"


@dataclass
class Done:
    """What one command left: its exit code and its standard output."""

    returncode: int
    stdout: str


class Run:
    """The config folder of one scenario run, and the commands run in it."""

    def __init__(self, url: str, scenario: str, context: dict[str, Any]) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="tooldeck-conformance-client-"))
        os.chdir(self.folder)  # where a person would run the commands: beside the config
        self.scenario = scenario
        self.context = context
        config = {
            "home": str(self.folder / "home"),
            "mcp_servers": {SERVER: server_config(url, scenario, context)},
        }
        # JSON is YAML: the config is written without a YAML library.
        (self.folder / "tooldeck.yaml").write_text(json.dumps(config, indent=2))
        self.failed = False

    def tooldeck(self, *args: str) -> Done:
        """`tooldeck ARGS --config tooldeck.yaml`; what it says on stderr goes to this script's."""
        print(f"$ tooldeck {' '.join(args)}", file=sys.stderr)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = run_command_line([*args, "--config", str(self.folder / "tooldeck.yaml")])
        atexit._run_exitfuncs()  # as the console script's exit: its MCP sessions closed
        done = Done(code, out.getvalue())
        print(f"  -> exit {done.returncode}\n{done.stdout}", file=sys.stderr)
        if done.returncode == 2:  # bad usage or an unreadable config: the script is wrong
            self.failed = True
        return done

    def tools(self) -> list[str]:
        """The server's tool names as `tooldeck mcp list --json` shows them (deck names)."""
        done = self.tooldeck("mcp", "list", "--json")
        try:
            servers = json.loads(done.stdout)
        except ValueError:
            self.failed = True
            return []
        found = [s for s in servers if s.get("name") == SERVER]
        return list(found[0]["tools"]) if found else []

    def schemas(self) -> list[dict[str, Any]]:
        """Each exposed tool's name and parameters, as `tooldeck tools --json` shows them."""
        done = self.tooldeck("tools", "--json")
        try:
            listed = json.loads(done.stdout)
        except ValueError:
            self.failed = True
            return []
        return [t["function"] for t in listed if "function" in t]

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any] | None:
        done = self.tooldeck("call", tool(name), "--args", json.dumps(arguments or {}), "--yes", "--json")
        try:
            answer: dict[str, Any] = json.loads(done.stdout)
        except ValueError:
            return None
        return answer

    def close(self) -> None:
        os.chdir(tempfile.gettempdir())
        shutil.rmtree(self.folder, ignore_errors=True)


# -- what each scenario has tooldeck do ---------------------------------------------------------


def list_only(run: Run) -> None:
    run.tools()


def add_numbers(run: Run) -> None:
    run.tools()
    run.call("add_numbers", {"a": 5, "b": 3})


def call_named(name: str) -> Callable[[Run], None]:
    def scenario(run: Run) -> None:
        run.tools()
        run.call(name)

    return scenario


_STUB = {"string": "x", "integer": 0, "number": 0, "boolean": False, "object": {}, "array": []}


def call_every_listed(run: Run) -> None:
    """Call every tool tooldeck offers of the server (tools it refused are not among them), with
    a placeholder for each required argument of the schema `tooldeck tools` shows."""
    prefix = tool("")
    for item in run.schemas():
        name, schema = item["name"], item["parameters"]
        if name.startswith(prefix):
            props = schema.get("properties", {})
            args = {k: _STUB.get(props.get(k, {}).get("type"), "x") for k in schema.get("required", [])}
            run.call(name[len(prefix) :], args)


def replay_tool_calls(run: Run) -> None:
    """The calls the scenario's context lists, with its arguments verbatim."""
    prefix = tool("")
    offered = {n[len(prefix) :] for n in run.tools() if n.startswith(prefix)}
    for item in run.context.get("toolCalls", []):
        if item.get("name") in offered:
            run.call(item["name"], item.get("arguments") or {})


def echo_schema(run: Run) -> None:
    """Show the focal tool's schema as tooldeck would send it, and send it back verbatim."""
    focal = [t for t in run.schemas() if t["name"] == tool("json_schema_2020_12_tool")]
    if focal:
        run.call("json_schema_echo", {"schema": focal[0]["parameters"]})


def request_state(run: Run) -> None:
    run.tools()
    for name in (
        "test_mrtr_echo_state",
        "test_mrtr_unrelated",
        "test_mrtr_no_state",
        "test_mrtr_no_result_type",
    ):
        run.call(name)


def first_tool(run: Run) -> None:
    """Authorization scenarios: log in, list, then call the first tool the server offers. No
    person approves: $TOOLDECK_OAUTH_FOLLOW_REDIRECT has tooldeck follow the mock authorization
    server's redirect itself, in the login and in any later step-up."""
    os.environ["TOOLDECK_OAUTH_FOLLOW_REDIRECT"] = "1"
    # Grants without a person (client credentials, enterprise-managed) need no login first.
    if not run.scenario.startswith("auth/client-credentials") and "idp_token_endpoint" not in run.context:
        run.tooldeck("mcp", "login", SERVER, "--timeout", "30")
    names = run.tools()
    if names:
        run.call(names[0][len(tool("")) :], {})


SCENARIOS: dict[str, Callable[[Run], None]] = {
    "initialize": list_only,
    "json-schema-ref-no-deref": list_only,
    "tools_call": add_numbers,
    "request-metadata": add_numbers,
    "http-standard-headers": add_numbers,
    "sse-retry": call_named("test_reconnection"),
    "elicitation-sep1034-client-defaults": call_named("test_client_elicitation_defaults"),
    "http-invalid-tool-headers": call_every_listed,
    "http-custom-headers": replay_tool_calls,
    "json-schema-2020-12-preservation": echo_schema,
    "sep-2322-client-request-state": request_state,
}


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(f"usage: {argv[0]} SERVER_URL", file=sys.stderr)
        return 2
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    steps = SCENARIOS.get(scenario) or (first_tool if scenario.startswith("auth/") else list_only)
    run = Run(argv[-1], scenario, context)
    try:
        steps(run)
    finally:
        run.close()
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
