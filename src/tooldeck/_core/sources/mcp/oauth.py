"""OAuth 2.1 for remote MCP servers: the `httpx2.Auth` a connection to an HTTP server sends with.

The flows are the `mcp` SDK's (`mcp.client.auth`): protected-resource and authorization-server
metadata discovery with the 2025-03-26 fallbacks, scope selection from the `WWW-Authenticate`
challenge or `scopes_supported` and step-up on `insufficient_scope`, PKCE, client ID metadata
documents, dynamic registration or a pre-registered client, the token endpoint auth methods,
resource indicators (a resource that does not match the server's URL is refused), the RFC 9207
`iss` check and credentials bound to their issuer, refresh, the client-credentials grant, and
enterprise-managed authorization (SEP-990: the identity-assertion grant, `oauth_assertion`).
What tooldeck adds around them:

* the state persists in the tooldeck home (`oauth_store`), including when the token expires and
  where the token endpoint is, so a later process refreshes quietly instead of asking again;
* who can approve a login (`Person`): nobody (`call`, `run`, `serve`, `batch`, `mcp list`: a
  server that needs one fails at once with "run `tooldeck mcp login NAME`", before registering
  a client or opening anything), a person at a browser (`tooldeck mcp login`), or, with
  `TOOLDECK_OAUTH_FOLLOW_REDIRECT=1`, an authorization server that approves without a person
  (test and CI servers): the authorization URL is fetched and its redirect read, as a browser
  would follow it;
* the configured scopes, and those a server asked for in a step-up nobody could approve, are
  added to what the next login asks for.

Nothing here imports the SDK until a connection is made; no token is logged or put in a message.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import warnings
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from tooldeck._core.sources.mcp.oauth_store import AuthRecord, TokenStore

if TYPE_CHECKING:
    from tooldeck._core.config import CoreConfig, McpServerConfig

Grant = Literal["authorization_code", "client_credentials", "identity_assertion"]
AuthMethod = Literal["client_secret_basic", "client_secret_post", "none"]
# Who can approve a login: nobody, a person at a browser, or a server that approves by itself.
Person = Literal["none", "browser", "follow"]
# Set to 1: logins follow the authorization server's redirect without a browser (see above).
FOLLOW_ENV = "TOOLDECK_OAUTH_FOLLOW_REDIRECT"
CLIENT_NAME = "tooldeck"
# Where a login's redirect comes back to when no listener is bound (the port is filled in).
REDIRECT_PATH = "/callback"


@dataclass(frozen=True, slots=True)
class OAuthSettings:
    """A server's `auth:` settings, resolved (see `McpAuthConfig` for what each means)."""

    store_dir: Path
    grant: Grant = "authorization_code"
    client_id: str | None = None
    client_secret: str | None = field(default=None, repr=False)
    client_key: str | None = field(default=None, repr=False)
    signing_algorithm: str = "RS256"
    token_endpoint_auth_method: AuthMethod | None = None
    scopes: tuple[str, ...] = ()
    client_metadata_url: str | None = None
    issuer: str | None = None
    redirect_port: int | None = None
    # identity_assertion (SEP-990): the enterprise IdP's token endpoint, tooldeck's client there
    # (its secret, if the IdP authenticates clients), and the user's ID token.
    idp_token_endpoint: str | None = None
    idp_client_id: str | None = None
    idp_client_secret: str | None = field(default=None, repr=False)
    id_token: str | None = field(default=None, repr=False)


def oauth_settings(
    name: str, server: McpServerConfig, config: CoreConfig, environ: Mapping[str, str]
) -> OAuthSettings | None:
    """The OAuth settings of a remote server (None for a local one, or one that sends its own
    Authorization header); a `client_secret_env` that is not set is a ConfigError naming it."""
    from tooldeck._utils.home import tooldeck_home

    if server.command is not None or any(k.lower() == "authorization" for k in server.headers):
        return None
    store_dir = tooldeck_home(config.home, base_dir=config.base_dir) / "mcp-auth"
    auth = server.auth
    if auth is None:
        return OAuthSettings(store_dir=store_dir)
    secret = _from_env(name, "client_secret_env", auth.client_secret_env, "the client secret", environ)
    key = _from_env(name, "client_key_env", auth.client_key_env, "the client's private key", environ)
    idp_secret = _from_env(
        name, "idp_client_secret_env", auth.idp_client_secret_env, "the client secret at the IdP", environ
    )
    id_token = _from_env(name, "idp_id_token_env", auth.idp_id_token_env, "the user's ID token", environ)
    return OAuthSettings(
        store_dir=store_dir,
        grant=auth.grant,
        client_id=auth.client_id,
        client_secret=secret,
        client_key=key,
        signing_algorithm=auth.signing_algorithm,
        token_endpoint_auth_method=auth.token_endpoint_auth_method,
        scopes=tuple(auth.scopes),
        client_metadata_url=auth.client_metadata_url,
        issuer=auth.issuer,
        redirect_port=auth.redirect_port,
        idp_token_endpoint=auth.idp_token_endpoint,
        idp_client_id=auth.idp_client_id,
        idp_client_secret=idp_secret,
        id_token=id_token,
    )


def _from_env(name: str, key: str, variable: str | None, what: str, environ: Mapping[str, str]) -> str | None:
    from tooldeck.errors import ConfigError

    if variable is None:
        return None
    value = environ.get(variable)
    if not value:
        raise ConfigError(
            f"environment variable {variable} ({what}) is not set", path=f"mcp_servers.{name}.auth.{key}"
        )
    return value


class _LoginRequired(Exception):
    """The server needs a login that nobody here can approve; the message says what to run."""


@dataclass(frozen=True, slots=True)
class _Approver:
    """Who approves the logins of server `name` while a `with_approver` block runs."""

    name: str
    person: Person
    open_url: Callable[[str], Awaitable[Any]] | None
    redirect_uri: str | None


_APPROVER: contextvars.ContextVar[_Approver | None] = contextvars.ContextVar("tooldeck_oauth", default=None)


@contextlib.contextmanager
def with_approver(
    name: str, person: Person, open_url: Callable[[str], Awaitable[Any]] | None, redirect_uri: str | None
) -> Iterator[None]:
    """Connections to server `name` made inside (and their tasks) send logins to `person`."""
    token = _APPROVER.set(_Approver(name, person, open_url, redirect_uri))
    try:
        yield
    finally:
        _APPROVER.reset(token)


def connection_auth(name: str, url: str | None, settings: OAuthSettings | None) -> Any:
    """The `httpx2.Auth` of a connection to server `name` at `url` (None when it does not use
    OAuth): nobody approves a login, unless a `with_approver` block for this server is running."""
    if settings is None or url is None:
        return None
    approver = _APPROVER.get()
    if approver is None or approver.name != name:
        return http_auth(name, url, settings)
    return http_auth(
        name,
        url,
        settings,
        person=approver.person,
        open_url=approver.open_url,
        redirect_uri=approver.redirect_uri,
    )


def login_reason(auth: Any) -> str | None:
    """Why the last request of a connection failed for want of a login, if it did."""
    return getattr(auth, "login_reason", None)


def login_hint(name: str) -> str:
    return f"run `tooldeck mcp login {name}`"


def store_for(name: str, url: str, settings: OAuthSettings) -> TokenStore:
    return TokenStore(settings.store_dir, name=name, url=url)


def who_approves(wanted: Person) -> Person:
    """`wanted`, unless the environment says logins follow the redirect by themselves."""
    return "follow" if os.environ.get(FOLLOW_ENV, "") in ("1", "true", "yes") else wanted


def http_auth(
    name: str,
    url: str,
    settings: OAuthSettings,
    *,
    person: Person = "none",
    redirect_uri: str | None = None,
    open_url: Callable[[str], Awaitable[Any]] | None = None,
) -> Any:
    """The `httpx2.Auth` for server `name` at `url`. With `person="browser"`, `open_url` shows the
    authorization URL to the person and returns the redirect's (code, state, iss)."""
    store = store_for(name, url, settings)
    person = who_approves(person)
    _quiet_sdk_log()
    if settings.grant == "client_credentials":
        return _guard_class()(_client_credentials(url, store, settings), name, store, gate=False)
    if settings.grant == "identity_assertion":
        return _guard_class()(_identity_assertion(url, store, settings), name, store, gate=False)
    record = store.load()
    redirect = redirect_uri or _stored_redirect(record.client_info) or _redirect_uri(settings.redirect_port)
    pending = _Pending(person, open_url)
    provider = _provider_class()(
        server_url=url,
        client_metadata=_client_metadata(redirect, settings),
        storage=store,
        redirect_handler=pending.redirect,
        callback_handler=pending.callback,
        client_metadata_url=settings.client_metadata_url,
    )
    provider.tooldeck_setup(store, settings)
    return _guard_class()(provider, name, store, gate=person == "none")


@cache
def _quiet_sdk_log() -> None:
    """The SDK logs a failed flow with its traceback; the connection reports it in one line
    instead. A handler here keeps Python's last-resort printing out of the command line's
    output; an application's own logging setup still gets the records."""
    import logging

    logging.getLogger("mcp.client.auth").addHandler(logging.NullHandler())


# -- the pieces of the authorization-code provider -----------------------------------------------


def _redirect_uri(port: int | None) -> str:
    return f"http://127.0.0.1:{port}{REDIRECT_PATH}" if port else f"http://127.0.0.1{REDIRECT_PATH}"


def _stored_redirect(client_info: dict[str, Any] | None) -> str | None:
    uris = (client_info or {}).get("redirect_uris") or []
    return str(uris[0]) if uris else None


def _client_metadata(redirect: str, settings: OAuthSettings) -> Any:
    from mcp.shared.auth import OAuthClientMetadata

    return OAuthClientMetadata.model_validate(
        {
            "client_name": CLIENT_NAME,
            "redirect_uris": [redirect],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "scope": " ".join(settings.scopes) or None,
            "token_endpoint_auth_method": settings.token_endpoint_auth_method,
        }
    )


class _Pending:
    """The redirect of one authorization, from the redirect handler to the callback handler (the
    SDK calls one right after the other, one flow at a time per provider)."""

    def __init__(self, person: Person, open_url: Callable[[str], Awaitable[Any]] | None) -> None:
        self.person = person
        self.open_url = open_url
        self.result: tuple[str, str | None, str | None] | None = None

    async def redirect(self, authorization_url: str) -> None:
        from tooldeck._core.sources.mcp.oauth_redirect import follow_redirect

        if self.person == "follow":
            self.result = await follow_redirect(authorization_url)
        elif self.person == "browser" and self.open_url is not None:
            self.result = await self.open_url(authorization_url)
        else:
            raise _LoginRequired("the server needs a login that nobody here can approve")

    async def callback(self) -> Any:
        from mcp.shared.auth import AuthorizationCodeResult

        if self.result is None:
            raise _LoginRequired("the login was not completed")
        (code, state, iss), self.result = self.result, None
        return AuthorizationCodeResult(code=code, state=state, iss=iss)


@cache
def _provider_class() -> type[Any]:
    """The SDK's authorization-code provider, keeping its state in the tooldeck home."""
    from mcp.client.auth import OAuthClientProvider
    from mcp.client.auth.utils import union_scopes
    from mcp.shared.auth import OAuthClientInformationFull, OAuthMetadata, ProtectedResourceMetadata

    class Provider(OAuthClientProvider):
        def tooldeck_setup(self, store: TokenStore, settings: OAuthSettings) -> None:
            self._td_store = store
            self._td_settings = settings

        async def _initialize(self) -> None:
            await super()._initialize()
            settings = self._td_settings
            record = self._td_store.load()
            if settings.client_id is not None and (
                self.context.client_info is None or self.context.client_info.client_id != settings.client_id
            ):
                method = settings.token_endpoint_auth_method or (
                    "client_secret_basic" if settings.client_secret else "none"
                )
                self.context.client_info = OAuthClientInformationFull(
                    client_id=settings.client_id,
                    client_secret=settings.client_secret,
                    redirect_uris=self.context.client_metadata.redirect_uris,
                    token_endpoint_auth_method=method,
                    issuer=settings.issuer,
                )
            if self.context.current_tokens is not None:
                self.context.token_expiry_time = record.expires_at
            with contextlib.suppress(ValueError):  # a record that no longer parses is rediscovered
                if record.oauth_metadata and self.context.oauth_metadata is None:
                    self.context.oauth_metadata = OAuthMetadata.model_validate(record.oauth_metadata)
                    self.context.auth_server_url = record.issuer
                if record.resource_metadata and self.context.protected_resource_metadata is None:
                    prm = ProtectedResourceMetadata.model_validate(record.resource_metadata)
                    self.context.protected_resource_metadata = prm

        async def _perform_authorization_code_grant(self) -> tuple[str, str]:
            # The configured scopes, and those of a step-up nobody could approve, come along.
            extra = " ".join(self._td_settings.scopes) or None
            wanted = self._td_store.load().wanted_scope
            scope = union_scopes(union_scopes(self.context.client_metadata.scope, extra), wanted)
            self.context.client_metadata.scope = scope
            return await super()._perform_authorization_code_grant()

        async def _handle_token_response(self, response: Any) -> None:
            await super()._handle_token_response(response)
            self._td_remember(wanted_done=True)

        async def _handle_refresh_response(self, response: Any) -> bool:
            ok: bool = await super()._handle_refresh_response(response)
            if ok:
                self._td_remember(wanted_done=False)
            return ok

        def _td_remember(self, *, wanted_done: bool) -> None:
            record = self._td_store.load()
            metadata = self.context.oauth_metadata
            prm = self.context.protected_resource_metadata
            record.oauth_metadata = metadata.model_dump(mode="json", exclude_none=True) if metadata else None
            record.resource_metadata = prm.model_dump(mode="json", exclude_none=True) if prm else None
            if metadata is not None:
                record.issuer = str(metadata.issuer)
            if wanted_done:
                record.wanted_scope = None
            self._td_store.save(record)

    return Provider


def _client_credentials(url: str, store: TokenStore, settings: OAuthSettings) -> Any:
    from mcp.client.auth.extensions import client_credentials as cc

    assert settings.client_id is not None  # the config checks it, and that a secret or key is given
    if settings.client_key is not None:
        signer = cc.SignedJWTParameters(
            issuer=settings.client_id,
            subject=settings.client_id,
            signing_key=settings.client_key,
            signing_algorithm=settings.signing_algorithm,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # as below: no `issuer` configured
            return cc.PrivateKeyJWTOAuthProvider(
                server_url=url,
                storage=store,
                client_id=settings.client_id,
                assertion_provider=signer.create_assertion_provider(),
                scope=" ".join(settings.scopes) or None,
                issuer=settings.issuer,
            )
    assert settings.client_secret is not None
    method: Any = settings.token_endpoint_auth_method or "client_secret_basic"
    with warnings.catch_warnings():
        # Without `issuer`, the SDK warns that the server decides where the secret goes; the
        # config reference says so, and setting `issuer` pins it.
        warnings.simplefilter("ignore")
        return cc.ClientCredentialsOAuthProvider(
            server_url=url,
            storage=store,
            client_id=settings.client_id,
            client_secret=settings.client_secret,
            token_endpoint_auth_method=method,
            scope=" ".join(settings.scopes) or None,
            issuer=settings.issuer,
        )


def _identity_assertion(url: str, store: TokenStore, settings: OAuthSettings) -> Any:
    """Enterprise-managed authorization (SEP-990): the SDK's jwt-bearer provider, bound to the
    configured authorization server, with tooldeck's token exchange at the IdP (`oauth_assertion`)."""
    from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider

    from tooldeck._core.sources.mcp.oauth_assertion import IdpExchange, StoredTokens

    # The config checks that each is given (and that the method is not "none").
    assert settings.client_id and settings.client_secret and settings.issuer
    assert settings.idp_token_endpoint and settings.idp_client_id and settings.id_token
    if store.load().issuer != settings.issuer:
        # Tokens from another authorization server (or of another grant) are not this one's.
        store.save(AuthRecord(store.url, issuer=settings.issuer))
    scope = " ".join(settings.scopes) or None
    method: Any = settings.token_endpoint_auth_method or "client_secret_basic"
    exchange = IdpExchange(
        token_endpoint=settings.idp_token_endpoint,
        client_id=settings.idp_client_id,
        id_token=settings.id_token,
        client_secret=settings.idp_client_secret,
        scope=scope,
    )
    return IdentityAssertionOAuthProvider(
        server_url=url,
        storage=StoredTokens(store),
        client_id=settings.client_id,
        client_secret=settings.client_secret,
        issuer=settings.issuer,
        assertion_provider=exchange,
        scope=scope,
        token_endpoint_auth_method=method,
    )


# -- nobody to ask -------------------------------------------------------------------------------


class _GuardFlow:
    """The provider as a connection uses it. It notes why the OAuth flow failed, for the
    connection's reason (the SDK's own error would be reduced to the last HTTP answer). With
    nobody to approve a login (`gate`), a 401 that the stored tokens (refreshed if need be) do
    not answer, or a step-up to more scopes, fails at once with what to run, before any
    registration or authorization request. `_guard_class` makes it an `httpx2.Auth`."""

    requires_request_body = False
    requires_response_body = True

    def __init__(self, provider: Any, name: str, store: TokenStore, *, gate: bool) -> None:
        self.provider = provider
        self.name = name
        self.store = store
        self.gate = gate
        # Why the last request failed for want of a login, or in the login (None when it did not).
        self.login_reason: str | None = None

    def sync_auth_flow(self, request: Any) -> Any:
        raise RuntimeError("the MCP client is asynchronous")

    async def async_auth_flow(self, request: Any) -> AsyncGenerator[Any, Any]:
        flow = self.provider.async_auth_flow(request)
        response = None
        try:
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                problem = self._needs_login(response) if self.gate and outgoing is request else None
                if problem is not None:
                    self.login_reason = f"{problem}: {login_hint(self.name)}"
                    raise _LoginRequired(self.login_reason)
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            if response is not None and response.status_code < 400:
                self.login_reason = None  # authorized again (a login elsewhere, a refresh)
            return
        except _LoginRequired:
            raise
        except Exception as exc:  # boundary: the flow's failure becomes the connection's reason
            self.login_reason = f"the OAuth login to MCP server {self.name!r} failed: {_describe(exc)}"
            raise
        finally:
            await flow.aclose()

    def _needs_login(self, response: Any) -> str | None:
        from mcp.client.auth.utils import extract_field_from_www_auth, extract_scope_from_www_auth

        if response.status_code == 401:
            return f"MCP server {self.name!r} needs a login"
        if (
            response.status_code == 403
            and extract_field_from_www_auth(response, "error") == "insufficient_scope"
        ):
            scope = extract_scope_from_www_auth(response)
            record = self.store.load()
            if record.tokens is not None:
                record.wanted_scope = scope
                self.store.save(record)
            return f"MCP server {self.name!r} needs a login with more scopes ({scope or 'unnamed'})"
        return None


@cache
def _guard_class() -> type[Any]:
    import httpx2

    return type("Guard", (_GuardFlow, httpx2.Auth), {})


def _describe(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:300]
