"""An OAuth-protected MCP server over streamable HTTP, with its own authorization server (the SDK's
`mcp.server.auth` pieces): dynamic registration, PKCE, refresh, RFC 8707 resources checked.

python oauth_http_server.py PORT LOG_FILE TOKEN_TTL_S

The authorization endpoint approves every request at once (it redirects straight back with a
code, as if the person had clicked "allow"), so a login is completed by following the redirect.
Each grant is appended to LOG_FILE as one JSON line (`{"grant": ..., "client_id": ...}`) so a test
can see a refresh happen; access tokens expire after TOKEN_TTL_S seconds, on the server too.
"""

from __future__ import annotations

import json
import secrets
import sys
import time
from typing import Any

import uvicorn
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

port, log_file, ttl = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
BASE = f"http://127.0.0.1:{port}"
RESOURCE = f"{BASE}/mcp"
SCOPE = "notes:read"


def note(**fields: Any) -> None:
    with open(log_file, "a", encoding="utf-8") as out:
        out.write(json.dumps(fields) + "\n")


class Provider:
    """Clients, codes and tokens in memory; every authorization approved."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info
        note(grant="register", client_id=client_info.client_id)

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(24)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + 300,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        note(grant="authorize", client_id=client.client_id, resource=params.resource)
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state, iss=BASE)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, code: AuthorizationCode
    ) -> OAuthToken:
        del self.codes[code.code]
        note(grant="authorization_code", client_id=client.client_id)
        return self._issue(client.client_id or "", code.scopes, code.resource)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        del self.refresh[refresh_token.token]
        note(grant="refresh_token", client_id=client.client_id)
        return self._issue(client.client_id or "", scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: Any) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = f"at-{secrets.token_urlsafe(16)}", f"rt-{secrets.token_urlsafe(16)}"
        expires = int(time.time()) + ttl
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=expires, resource=resource
        )
        self.refresh[refresh] = RefreshToken(
            token=refresh, client_id=client_id, scopes=scopes, resource=resource
        )
        return OAuthToken(access_token=access, expires_in=ttl, scope=" ".join(scopes), refresh_token=refresh)


server = MCPServer(
    "notes",
    auth_server_provider=Provider(),
    auth=AuthSettings(
        issuer_url=BASE,
        resource_server_url=RESOURCE,
        client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=[SCOPE]),
        required_scopes=[SCOPE],
        validate_token_resource=True,
    ),
)


@server.tool()
def read_note(title: str) -> str:
    """The note with this title."""
    return f"note {title}: remember the milk"


uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=port, log_level="warning")
