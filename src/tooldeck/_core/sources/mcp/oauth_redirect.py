"""The redirect that ends an authorization: reading its code, and following it without a person.

`TOOLDECK_OAUTH_FOLLOW_REDIRECT=1` has logins fetch the authorization URL and read the code from
the redirect it answers with, as a browser whose person approves at once would follow it: for
test and CI authorization servers that approve without a person. A real one answers with its
login page, which is an error here saying to log in without the variable.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from tooldeck.errors import SourceError


async def follow_redirect(authorization_url: str) -> tuple[str, str | None, str | None]:
    """Fetch the authorization URL and read (code, state, iss) from the redirect it answers with."""
    import httpx2

    async with httpx2.AsyncClient(timeout=30.0) as client:
        response = await client.get(authorization_url, follow_redirects=False)
    location = response.headers.get("location")
    if response.status_code not in (301, 302, 303, 307, 308) or not location:
        raise SourceError(
            f"the authorization server answered HTTP {response.status_code} instead of redirecting back: "
            "it needs a person; run the login without TOOLDECK_OAUTH_FOLLOW_REDIRECT"
        )
    return redirect_result(parse_qs(urlsplit(location).query))


def redirect_result(query: dict[str, list[str]]) -> tuple[str, str | None, str | None]:
    """(code, state, iss) from the redirect's query; the error the server sent instead, raised."""

    def one(key: str) -> str | None:
        values = query.get(key)
        return values[0] if values else None

    error = one("error")
    if error is not None:
        said = one("error_description")
        raise SourceError(f"the authorization server refused: {error}" + (f" ({said})" if said else ""))
    code = one("code")
    if not code:
        raise SourceError("the redirect carried no authorization code")
    return code, one("state"), one("iss")
