"""The sections of MCP servers and ACP agents as tool sources (`mcp_servers`, `acp_agents`), with
the checks of what goes with what (a local server's command, a remote one's URL and OAuth)."""

from __future__ import annotations

import re
from dataclasses import field
from typing import TYPE_CHECKING, Annotated, Literal

from tooldeck._core.config_sections import MAX_SECONDS, ConfigSection, section
from tooldeck.errors import ConfigError

if TYPE_CHECKING:
    # Bounds in the annotations stay strings until pydantic reads them (see config_sections.py).
    from annotated_types import Ge, Gt, Le


@section
class McpAuthConfig(ConfigSection):
    """OAuth for a remote MCP server (`mcp_servers.NAME.auth`). Without it, a server that asks
    for OAuth is logged in to with `tooldeck mcp login NAME`, registering tooldeck dynamically."""

    # authorization_code: a person logs in once (`tooldeck mcp login NAME`), later runs use and
    # refresh the stored tokens; client_credentials: tooldeck gets tokens itself with
    # `client_id` and its secret, no person involved; identity_assertion: enterprise-managed
    # authorization (SEP-990), no person involved either: the user's ID token is exchanged at the
    # enterprise IdP (`idp_token_endpoint`) for an identity assertion (ID-JAG), which the client
    # (`client_id`, `client_secret_env`) presents to the authorization server `issuer`.
    grant: Literal["authorization_code", "client_credentials", "identity_assertion"] = "authorization_code"
    # A client registered beforehand with the authorization server (default: dynamic registration,
    # or `client_metadata_url` where the server takes it).
    client_id: str | None = None
    # The environment variable holding that client's secret (the secret is never written in the config).
    client_secret_env: str | None = None
    # With client_credentials, instead of a secret: the environment variable holding the client's
    # private key (PEM), which signs a private_key_jwt assertion for each token request.
    client_key_env: str | None = None
    # The algorithm that signs it.
    signing_algorithm: Literal["RS256", "RS384", "RS512", "PS256", "ES256", "ES384", "EdDSA"] = "RS256"
    # How the client authenticates at the token endpoint (default: client_secret_basic with a
    # secret, none without).
    token_endpoint_auth_method: Literal["client_secret_basic", "client_secret_post", "none"] | None = None
    # Scopes to ask for, besides those the server names in its challenge or metadata.
    scopes: list[str] = field(default_factory=list)
    # An https URL of tooldeck's client ID metadata document, used as the client ID by
    # authorization servers that support such documents (instead of registering).
    client_metadata_url: str | None = None
    # The issuer URL of the authorization server the client belongs to; with client_credentials
    # the secret is sent only there (default: whichever server the MCP server names). Required
    # with identity_assertion: the assertion and the secret go to this server and no other.
    issuer: str | None = None
    # identity_assertion: the enterprise IdP's token endpoint (RFC 8693 token exchange).
    idp_token_endpoint: str | None = None
    # identity_assertion: tooldeck's client ID at the enterprise IdP.
    idp_client_id: str | None = None
    # identity_assertion: the environment variable holding that client's secret at the IdP, for
    # an IdP that authenticates its clients (default: none, the client ID alone is sent).
    idp_client_secret_env: str | None = None
    # identity_assertion: the environment variable holding the user's ID token from the IdP.
    idp_id_token_env: str | None = None
    # The loopback port `tooldeck mcp login` listens on for the browser's redirect (default: any
    # free port); a pre-registered client's redirect URI names it: http://127.0.0.1:PORT/callback.
    redirect_port: Annotated[int, Ge(1), Le(65535)] | None = None


@section
class McpServerConfig(ConfigSection):
    """One MCP server: a command run over stdio, or a URL (streamable HTTP or SSE)."""

    # The server's command (stdio).
    command: str | None = None
    # Its arguments.
    args: list[str] = field(default_factory=list)
    # Variables set for the child, on top of those it inherits (see `inherit_env`).
    env: dict[str, str] = field(default_factory=dict, repr=False)
    # Variables the child inherits from tooldeck's environment (names or globs such as LC_*);
    # default: PATH, HOME, USER, LOGNAME, SHELL, TERM, LANG, LC_*, TZ, TMPDIR.
    inherit_env: list[str] | None = None
    # The child's working directory; relative to the config file's folder.
    cwd: str | None = None
    # The server's URL (streamable HTTP or SSE).
    url: str | None = None
    # Default: stdio with `command`, http (streamable HTTP) with `url`.
    transport: Literal["stdio", "http", "sse"] | None = None
    # Sent with every request to a remote server (e.g. a bearer token); never logged or shown.
    headers: dict[str, str] = field(default_factory=dict, repr=False)
    # Seconds one tool call may take (default: execution.default_timeout_s).
    timeout: Annotated[float, Gt(0), Le(MAX_SECONDS)] | None = None
    # Seconds to start the server and list its tools before it counts as failed.
    connect_timeout: Annotated[float, Gt(0), Le(MAX_SECONDS)] = 10.0
    # Whether to connect to it.
    enabled: bool = True
    # Server tool names (or globs) to offer; None offers every tool.
    include_tools: list[str] | None = None
    # Server tool names (or globs) to leave out.
    exclude_tools: list[str] = field(default_factory=list)
    # Its tools may run at the same time even when they change things (read-only ones always may).
    parallel_safe: bool = False
    # Which calls need approval: those the server marks destructive, all of them, or none.
    approval: Literal["destructive", "always", "never"] = "destructive"
    # "thread": one server process per (user, thread), working in that thread's workspace (stdio only).
    scope: Literal["shared", "thread"] = "shared"
    # Thread-scoped sessions: how many server processes stay open at once; opening one more
    # closes the least recently used idle one (a session busy with a call is never closed).
    max_sessions: Annotated[int, Ge(1)] = 8
    # Seconds an idle thread-scoped session is kept.
    idle_timeout: Annotated[float, Gt(0), Le(MAX_SECONDS)] = 600.0
    # Whether the server may ask the agent's model (MCP sampling): "allow" lets the model of the
    # run answer it (outside an agent run there is no model: refused); "deny" does not offer
    # sampling to the server at all, so the model never sees its requests.
    sampling: Literal["allow", "deny"] = "deny"
    # The protocol revision: "auto" asks `server/discover` (2026-07-28) and falls back to the
    # `initialize` handshake; "legacy" always does the handshake (for a server that cannot take
    # an unknown request); "2026-07-28" adopts that revision without asking.
    protocol: Literal["auto", "legacy", "2026-07-28"] = "auto"
    # OAuth settings of a remote server (see below); any remote server without an Authorization
    # header of its own logs in with OAuth when it asks for it.
    auth: McpAuthConfig | None = None

    def check(self, key: str) -> None:
        """`command` or `url` and what goes with each; OAuth only for a remote server."""
        if self.command is not None and not self.command.strip():
            raise ConfigError("must name the program that starts the server", path=f"{key}.command")
        if (self.command is None) == (self.url is None):
            raise ConfigError("give either `command` (a local server) or `url` (a remote one)", path=key)
        transport = self.transport or ("stdio" if self.command is not None else "http")
        if transport == "stdio" and self.command is None:
            raise ConfigError("the stdio transport runs a `command`; none is given", path=f"{key}.transport")
        if transport != "stdio":
            if self.url is None:
                raise ConfigError(f"the {transport} transport needs a `url`", path=f"{key}.transport")
            if not re.match(r"https?://", self.url):
                raise ConfigError(f"must be an http:// or https:// URL, got {self.url!r}", path=f"{key}.url")
        local = {"args": self.args, "env": self.env, "inherit_env": self.inherit_env, "cwd": self.cwd}
        for name, value in local.items():
            if transport != "stdio" and value:
                raise ConfigError(f"only servers run with `command` take `{name}`", path=f"{key}.{name}")
        if transport == "stdio" and self.headers:
            raise ConfigError("headers are sent to remote servers (`url`) only", path=f"{key}.headers")
        if self.scope == "thread" and transport != "stdio":
            raise ConfigError(
                "thread-scoped sessions are for servers run with `command`", path=f"{key}.scope"
            )
        if self.auth is not None:
            _check_auth(self, transport, f"{key}.auth")


@section
class AcpAgentConfig(ConfigSection):
    """An ACP agent offered as a tool: the command that starts it over stdio, and how calls run."""

    # The program that starts the agent (it speaks ACP on its stdin/stdout).
    command: str
    # Its arguments.
    args: list[str] = field(default_factory=list)
    # Variables for the agent's process, on top of a small allow-list of the environment
    # (HOME, PATH, USER, ...): nothing else of tooldeck's environment reaches the agent.
    env: dict[str, str] = field(default_factory=dict, repr=False)
    # What the model reads about the agent (default: a sentence naming it).
    description: str = ""
    # Seconds one prompt may run; then the session is cancelled and the agent's process group killed.
    timeout_s: Annotated[float, Gt(0), Le(MAX_SECONDS)] = 600.0
    # Seconds the agent has to start, initialize and open a session.
    startup_timeout_s: Annotated[float, Gt(0), Le(MAX_SECONDS)] = 30.0
    # The toolset of the agent's tool.
    toolset: str = "acp"
    # Ask before every call (the agent's own permission requests are asked regardless).
    requires_approval: bool = False
    # Whether to offer the agent at all.
    enabled: bool = True

    def check(self, key: str) -> None:
        if not self.command.strip():
            raise ConfigError("must name the program that starts the agent", path=f"{key}.command")


def _check_auth(server: McpServerConfig, transport: str, where: str) -> None:
    auth = server.auth
    assert auth is not None
    if transport == "stdio":
        raise ConfigError("OAuth is for remote servers (`url`); a local server needs none", path=where)
    if any(k.lower() == "authorization" for k in server.headers):
        raise ConfigError("give either an Authorization header or `auth`, not both", path=where)
    if auth.client_secret_env is not None and auth.client_id is None:
        raise ConfigError(
            "a client secret belongs to a `client_id`; none is given", path=f"{where}.client_secret_env"
        )
    for key in ("client_secret_env", "client_key_env", "idp_client_secret_env", "idp_id_token_env"):
        value = getattr(auth, key)
        if value is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
            raise ConfigError(
                f"must name an environment variable (not hold the secret itself), got {len(value)} characters",
                path=f"{where}.{key}",
            )
    if auth.client_key_env is not None and auth.grant != "client_credentials":
        raise ConfigError("a signing key is for the client_credentials grant", path=f"{where}.client_key_env")
    if auth.client_key_env is not None and auth.client_secret_env is not None:
        raise ConfigError(
            "give either `client_secret_env` or `client_key_env`, not both", path=f"{where}.client_key_env"
        )
    has_credential = auth.client_secret_env is not None or auth.client_key_env is not None
    if auth.grant == "client_credentials" and (auth.client_id is None or not has_credential):
        raise ConfigError(
            "the client_credentials grant needs `client_id` and `client_secret_env` (or `client_key_env`)",
            path=f"{where}.grant",
        )
    _check_identity_assertion(auth, where)
    method = auth.token_endpoint_auth_method
    if method in ("client_secret_basic", "client_secret_post") and auth.client_secret_env is None:
        raise ConfigError(
            f"{method} sends a client secret: give `client_secret_env`",
            path=f"{where}.token_endpoint_auth_method",
        )
    if auth.grant in ("client_credentials", "identity_assertion") and method == "none":
        raise ConfigError(
            f"the {auth.grant} grant authenticates the client",
            path=f"{where}.token_endpoint_auth_method",
        )
    url = auth.client_metadata_url
    if url is not None and not re.fullmatch(r"https://[^/?#]+/[^?#]+", url):
        raise ConfigError(
            f"must be an https:// URL with a path, got {url!r}", path=f"{where}.client_metadata_url"
        )
    if auth.issuer is not None and not re.match(r"https?://", auth.issuer):
        raise ConfigError(f"must be an http:// or https:// URL, got {auth.issuer!r}", path=f"{where}.issuer")
    for i, scope in enumerate(auth.scopes):
        if not scope or any(c.isspace() for c in scope):
            raise ConfigError(f"a scope is one word, got {scope!r}", path=f"{where}.scopes[{i}]")


_IDP_KEYS = ("idp_token_endpoint", "idp_client_id", "idp_client_secret_env", "idp_id_token_env")
# What the identity_assertion grant cannot go without.
_ASSERTION_NEEDS = (
    "client_id",
    "client_secret_env",
    "issuer",
    "idp_token_endpoint",
    "idp_client_id",
    "idp_id_token_env",
)


def _check_identity_assertion(auth: McpAuthConfig, where: str) -> None:
    """The identity_assertion grant (SEP-990): its own keys, all it needs, and only with it."""
    if auth.grant != "identity_assertion":
        for key in _IDP_KEYS:
            if getattr(auth, key) is not None:
                raise ConfigError(
                    f"is for the identity_assertion grant (`grant` is {auth.grant})", path=f"{where}.{key}"
                )
        return
    missing = [f"`{key}`" for key in _ASSERTION_NEEDS if getattr(auth, key) is None]
    if missing:
        raise ConfigError(f"the identity_assertion grant needs {', '.join(missing)}", path=f"{where}.grant")
    url = auth.idp_token_endpoint or ""
    if not re.fullmatch(r"https?://[^/?#\s]+(/\S*)?", url):
        raise ConfigError(
            f"must be an http:// or https:// URL, got {url!r}", path=f"{where}.idp_token_endpoint"
        )
