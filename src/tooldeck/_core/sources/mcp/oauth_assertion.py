"""Enterprise-managed authorization (SEP-990) for remote MCP servers: the `identity_assertion` grant.

Two legs, no person at either:

1. RFC 8693 token exchange at the enterprise IdP (`idp_token_endpoint`): the user's ID token
   (from its environment variable) for an Identity Assertion JWT Authorization Grant (ID-JAG)
   whose audience is the configured authorization server and whose resource is the MCP server;
2. RFC 7523 jwt-bearer at that authorization server: the ID-JAG, with the client's secret, for
   an access token. This leg is the SDK's `IdentityAssertionOAuthProvider` (set up in `oauth`,
   with `IdpExchange` here as its assertion provider and `StoredTokens` as its storage). The
   authorization server is configuration (`issuer`), never the one the MCP server names, so
   neither the assertion nor the secret can be sent anywhere else.

An ID-JAG lives minutes: a fresh one is asked for each token request. The access token is kept
in the token store as the other grants' are, with when it expires, so a later process uses it
until then and exchanges again after. Nothing here logs a token or puts one in a message.
"""

from __future__ import annotations

import base64
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from tooldeck._core.sources.mcp.oauth_store import TokenStore

TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
ID_TOKEN = "urn:ietf:params:oauth:token-type:id_token"
# Seconds the IdP has to answer a token exchange.
IDP_TIMEOUT_S = 30.0


class _ExchangeFailed(Exception):
    """The IdP gave no identity assertion; the message says why (never with a token in it)."""


@dataclass(frozen=True, slots=True)
class IdpExchange:
    """Leg 1: the user's ID token for an ID-JAG at the IdP, as the SDK's `assertion_provider`."""

    token_endpoint: str
    client_id: str
    id_token: str = field(repr=False)
    client_secret: str | None = field(default=None, repr=False)
    scope: str | None = None

    async def __call__(self, audience: str, resource: str) -> str:
        import httpx2

        data = {
            "grant_type": TOKEN_EXCHANGE,
            "requested_token_type": ID_JAG,
            "subject_token": self.id_token,
            "subject_token_type": ID_TOKEN,
            "audience": audience,
            "resource": resource,
        }
        if self.scope:
            data["scope"] = self.scope
        headers = {"Accept": "application/json"}
        if self.client_secret is not None:
            # RFC 6749 section 2.3.1: each part form-encoded, then the pair in base64.
            pair = f"{quote(self.client_id, safe='')}:{quote(self.client_secret, safe='')}"
            headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
        else:
            data["client_id"] = self.client_id
        try:
            async with httpx2.AsyncClient(timeout=IDP_TIMEOUT_S, follow_redirects=False) as http:
                response = await http.post(self.token_endpoint, data=data, headers=headers)
        except httpx2.HTTPError as exc:
            raise _ExchangeFailed(
                f"the enterprise IdP at {self.token_endpoint} did not answer ({type(exc).__name__})"
            ) from None
        return self._id_jag(response)

    def _id_jag(self, response: Any) -> str:
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            body = {}
        if response.status_code != 200:
            said = ": ".join(str(body[k]) for k in ("error", "error_description") if body.get(k))
            raise _ExchangeFailed(
                f"the enterprise IdP refused the token exchange (HTTP {response.status_code}"
                + (f": {self._clean(said)})" if said else ")")
            )
        assertion = body.get("access_token")
        issued = body.get("issued_token_type")
        if issued is not None and issued != ID_JAG:
            raise _ExchangeFailed(
                f"the enterprise IdP issued a {self._clean(str(issued))}, not an identity assertion (ID-JAG)"
            )
        if not isinstance(assertion, str) or not assertion:
            raise _ExchangeFailed("the enterprise IdP's answer holds no identity assertion (access_token)")
        return assertion

    def _clean(self, text: str) -> str:
        """The IdP's words, in one short line and without the user's ID token."""
        return " ".join(text.replace(self.id_token, "[ID token]").split())[:200]


class StoredTokens:
    """The token store as the SDK's provider reads it: a stored token's `expires_in` counts from
    now (the provider reckons the expiry from it), so an expired one is not sent."""

    def __init__(self, store: TokenStore) -> None:
        self.store = store

    async def get_tokens(self) -> Any:
        tokens = await self.store.get_tokens()
        expires_at = self.store.load().expires_at
        if tokens is not None and expires_at is not None:
            tokens = tokens.model_copy(update={"expires_in": max(0, int(expires_at - time.time()))})
        return tokens

    async def set_tokens(self, tokens: Any) -> None:
        await self.store.set_tokens(tokens)

    async def get_client_info(self) -> Any:
        return None  # the client is configuration, never registered

    async def set_client_info(self, client_info: Any) -> None:
        return None
