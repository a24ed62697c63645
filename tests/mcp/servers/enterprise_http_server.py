"""An MCP server under enterprise-managed authorization (SEP-990), with its authorization server
(the SDK's `mcp.server.auth` pieces, the jwt-bearer grant on) and an enterprise IdP beside it.

python enterprise_http_server.py PORT LOG_FILE TOKEN_TTL_S

* the IdP (`POST /idp/token`) exchanges the user's ID token `ID_TOKEN` (RFC 8693, client
  `IDP_CLIENT` at the IdP: its ID in the form, or with `IDP_SECRET` in HTTP Basic) for an ID-JAG: an opaque one-use string it remembers with
  its audience, resource and client; a wrong ID token is refused, the refusal quoting it (so a
  test sees that tooldeck keeps it out of its messages);
* the authorization server (issuer BASE, `POST /token`) knows one confidential client, `CLIENT`
  with `SECRET`, and takes an ID-JAG (RFC 7523 jwt-bearer) issued for it, for itself and for
  the MCP server: the access token it issues expires after TOKEN_TTL_S seconds;
* the MCP server (`/mcp`) requires the scope `notes:read` and tokens for its own resource.

Each exchange is appended to LOG_FILE as one JSON line (`{"grant": ..., ...}`).
"""

from __future__ import annotations

import base64
import json
import secrets
import sys
import time
from typing import Any

import uvicorn
from mcp.server.auth.provider import AccessToken, IdentityAssertionParams, TokenError
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import JWT_BEARER_GRANT_TYPE, OAuthClientInformationFull, OAuthToken
from starlette.requests import Request
from starlette.responses import JSONResponse

port, log_file, ttl = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
BASE = f"http://127.0.0.1:{port}"
RESOURCE = f"{BASE}/mcp"
SCOPE = "notes:read"
CLIENT, SECRET = "mcp-client", "mcp-secret-123"
IDP_CLIENT, IDP_SECRET, ID_TOKEN = "idp-client", "idp-secret-789", "id-token-of-ada-456"
BASIC = "Basic " + base64.b64encode(f"{IDP_CLIENT}:{IDP_SECRET}".encode()).decode()


def note(**fields: Any) -> None:
    with open(log_file, "a", encoding="utf-8") as out:
        out.write(json.dumps(fields) + "\n")


# ID-JAG -> what it was issued for (audience, resource, client).
ISSUED: dict[str, tuple[str, str, str]] = {}


class Provider:
    """One pre-registered confidential client; access tokens in memory."""

    def __init__(self) -> None:
        self.access: dict[str, AccessToken] = {}

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        if client_id != CLIENT:
            return None
        return OAuthClientInformationFull(
            client_id=CLIENT,
            client_secret=SECRET,
            redirect_uris=None,
            grant_types=[JWT_BEARER_GRANT_TYPE],
            token_endpoint_auth_method="client_secret_basic",
        )

    async def exchange_identity_assertion(
        self, client: OAuthClientInformationFull, params: IdentityAssertionParams
    ) -> OAuthToken:
        issued = ISSUED.pop(params.assertion, None)
        if issued is None or issued != (BASE, RESOURCE, client.client_id) or params.resource != RESOURCE:
            note(grant="jwt-bearer", ok=False)
            raise TokenError("invalid_grant", "the identity assertion is not for this client and server")
        scopes = params.scopes or [SCOPE]
        note(grant="jwt-bearer", ok=True, scopes=scopes)
        access = f"at-{secrets.token_urlsafe(16)}"
        self.access[access] = AccessToken(
            token=access,
            client_id=CLIENT,
            scopes=scopes,
            expires_at=int(time.time()) + ttl,
            resource=RESOURCE,
        )
        return OAuthToken(access_token=access, expires_in=ttl, scope=" ".join(scopes))

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found


server = MCPServer(
    "notes",
    auth_server_provider=Provider(),  # type: ignore[arg-type]  # only what this grant uses
    auth=AuthSettings(
        issuer_url=BASE,
        resource_server_url=RESOURCE,
        identity_assertion_enabled=True,
        required_scopes=[SCOPE],
        validate_token_resource=True,
    ),
)


@server.custom_route("/idp/token", methods=["POST"])
async def idp_token(request: Request) -> JSONResponse:
    form = await request.form()
    wanted = {
        "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
        "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
        "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
    }
    wrong = [k for k, v in wanted.items() if form.get(k) != v]
    client_auth = "basic" if request.headers.get("authorization") == BASIC else "none"
    if client_auth == "none" and form.get("client_id") != IDP_CLIENT:
        wrong.append("client")
    if wrong or not form.get("audience") or not form.get("resource"):
        note(grant="token-exchange", ok=False, wrong=wrong)
        return JSONResponse({"error": "invalid_request", "error_description": f"bad {wrong}"}, 400)
    if form.get("subject_token") != ID_TOKEN:
        note(grant="token-exchange", ok=False, wrong=["subject_token"])
        said = f"the ID token {form.get('subject_token')} has expired"
        return JSONResponse({"error": "invalid_grant", "error_description": said}, 400)
    jag = f"jag-{secrets.token_urlsafe(16)}"
    ISSUED[jag] = (str(form["audience"]), str(form["resource"]), CLIENT)
    note(
        grant="token-exchange",
        ok=True,
        audience=form["audience"],
        scope=form.get("scope"),
        client_auth=client_auth,
    )
    return JSONResponse(
        {
            "access_token": jag,
            "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
            "token_type": "N_A",
            "expires_in": 300,
        }
    )


@server.tool()
def read_note(title: str) -> str:
    """The note with this title."""
    return f"note {title}: remember the milk"


uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=port, log_level="warning")
