"""Fetching one URL for a tool, within limits, through the address guard.

`fetch` follows redirects itself, one hop at a time: each hop's host is resolved and checked by
the `NetworkPolicy`, and the request goes to the checked address (the URL's host stays in the
`Host` header and in TLS's server name, so certificates are verified for the name). The body is
read as a stream and cut off past `max_bytes`; the whole fetch, redirects included, has one
deadline. Every failure is a `FetchError` with a `kind`, so a tool fetching several URLs reports
each one's problem and keeps the others.

A URL carrying credentials (`http://user:password@host/`) is refused, asked for or redirected to,
and shown without them (`userinfo.py`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tooldeck.errors import ToolError
from tooldeck.tools.web.body import ACCEPT_ENCODING, read_capped
from tooldeck.tools.web.failures import FailureKind, FetchError
from tooldeck.tools.web.guard import AddressDenied, NetworkPolicy
from tooldeck.tools.web.userinfo import CREDENTIALS_REFUSED, has_userinfo, shown_url

if TYPE_CHECKING:
    import httpx

__all__ = ["FailureKind", "FetchError", "FetchLimits", "Fetched", "fetch", "new_client"]

_REDIRECTS = frozenset({301, 302, 303, 307, 308})


@dataclass(frozen=True, slots=True)
class FetchLimits:
    timeout_s: float = 20.0
    max_bytes: int = 5_000_000
    max_redirects: int = 5
    user_agent: str = "tooldeck"


@dataclass(frozen=True, slots=True)
class Fetched:
    """A successful response: where it ended up, what it is, and its bytes."""

    url: str
    final_url: str
    status: int
    content_type: str  # lower case, without parameters; "" when the server sent none
    charset: str | None
    body: bytes

    @property
    def redirected(self) -> bool:
        return self.final_url != self.url


def new_client(limits: FetchLimits) -> httpx.AsyncClient:
    """A client for guarded fetches: no proxies from the environment, no automatic redirects, and
    no kept connections (requests go to addresses, so a kept TLS connection to one address must
    not carry a request for another name)."""
    import httpx

    return httpx.AsyncClient(
        trust_env=False,
        follow_redirects=False,
        timeout=httpx.Timeout(limits.timeout_s),
        limits=httpx.Limits(max_keepalive_connections=0),
        headers={"User-Agent": limits.user_agent},
    )


async def fetch(
    client: httpx.AsyncClient,
    url: str,
    policy: NetworkPolicy,
    limits: FetchLimits,
    *,
    accept: str = "*/*",
) -> Fetched:
    """GET `url` within `limits`; raises `FetchError` (never anything else for network trouble)."""
    import httpx

    try:
        async with asyncio.timeout(limits.timeout_s):
            return await _follow(client, url, policy, limits, accept)
    except TimeoutError:
        raise FetchError("timeout", f"no complete answer within {limits.timeout_s:g} s") from None
    except AddressDenied as exc:
        raise FetchError("denied", str(exc)) from None
    except ToolError as exc:  # DNS failures from the guard
        raise FetchError("network", str(exc)) from None
    except httpx.TimeoutException:
        raise FetchError("timeout", f"no complete answer within {limits.timeout_s:g} s") from None
    except httpx.InvalidURL as exc:
        raise FetchError("invalid_url", f"invalid URL: {exc}") from None
    except httpx.HTTPError as exc:
        raise FetchError("network", f"{type(exc).__name__}: {exc or 'connection failed'}") from None


async def _follow(
    client: httpx.AsyncClient, url: str, policy: NetworkPolicy, limits: FetchLimits, accept: str
) -> Fetched:

    current = _checked_url(url)
    for hop in range(limits.max_redirects + 1):
        try:
            response = await _send(client, current, policy, accept)
        except AddressDenied as exc:
            # The caller names the URL asked for; a later hop's URL is named here.
            raise AddressDenied(f"redirected to {current}: {exc}" if hop else str(exc)) from None
        try:
            location = response.headers.get("location")
            if response.status_code in _REDIRECTS and location:
                target = str(current.join(location))
                try:
                    current = _checked_url(target)
                except FetchError as exc:
                    raise FetchError(exc.kind, f"redirected to {shown_url(target)}: {exc}") from None
                continue
            if response.status_code >= 400:
                reason = response.reason_phrase or ""
                message = f"HTTP {response.status_code} {reason}".rstrip()
                raise FetchError("http_status", message, status=response.status_code)
            body = await read_capped(response, limits.max_bytes)
        finally:
            await response.aclose()
        kind, _, params = (response.headers.get("content-type") or "").partition(";")
        return Fetched(url, str(current), response.status_code, kind.strip().lower(), _charset(params), body)
    raise FetchError("network", f"more than {limits.max_redirects} redirects (last: {current})")


async def _send(
    client: httpx.AsyncClient, url: httpx.URL, policy: NetworkPolicy, accept: str
) -> httpx.Response:
    """One request, made to a checked address of the URL's host."""
    import httpx

    port = url.port or (443 if url.scheme == "https" else 80)
    addresses = await policy.resolve(url.host, port)
    headers = {"Host": url.netloc.decode("ascii"), "Accept": accept, "Accept-Encoding": ACCEPT_ENCODING}
    extensions = {"sni_hostname": url.host} if url.scheme == "https" else {}
    last: httpx.ConnectError | None = None
    for address in addresses:
        request = client.build_request(
            "GET", url.copy_with(host=address), headers=headers, extensions=extensions
        )
        try:
            return await client.send(request, stream=True)
        except httpx.ConnectError as exc:  # try the host's next address
            last = exc
    assert last is not None
    raise last


def _checked_url(url: str) -> httpx.URL:
    import httpx

    if not isinstance(url, str) or not url.strip():
        raise FetchError("invalid_url", "empty URL")
    if has_userinfo(url):
        raise FetchError("invalid_url", CREDENTIALS_REFUSED)
    try:
        parsed = httpx.URL(url.strip())
    except httpx.InvalidURL as exc:
        raise FetchError("invalid_url", f"invalid URL: {exc}") from None
    if not parsed.scheme:
        raise FetchError("invalid_url", "the URL has no scheme: only http and https URLs can be fetched")
    if parsed.scheme not in ("http", "https"):
        raise FetchError("invalid_url", f"only http and https URLs can be fetched, not {parsed.scheme} URLs")
    if not parsed.host:
        raise FetchError("invalid_url", "the URL has no host")
    if parsed.userinfo:  # the text check above should have caught it; httpx has the last word
        raise FetchError("invalid_url", CREDENTIALS_REFUSED)
    return parsed


def _charset(params: str) -> str | None:
    for part in params.split(";"):
        key, _, value = part.strip().partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip('"').lower()
    return None
