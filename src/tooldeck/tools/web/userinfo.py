"""URLs that carry credentials (`http://user:password@host/`): found, refused, never repeated.

The web tools refuse such a URL rather than send its credentials to whatever host it names, or
drop them silently and fetch something other than what was asked. `shown_url` is how a URL goes
into any message, so a refused URL's password never reaches the model, a log or a result.
"""

from __future__ import annotations

__all__ = ["CREDENTIALS_REFUSED", "has_userinfo", "shown_url"]

CREDENTIALS_REFUSED = (
    "the URL carries credentials (user info before '@'), which tooldeck never sends and does "
    "not repeat: give the URL without them"
)


def shown_url(url: str) -> str:
    """`url` as messages show it: user info, if any, replaced by `***`."""
    span = _userinfo(url)
    return url if span is None else f"{url[: span[0]]}***@{url[span[1] :]}"


def _userinfo(url: str) -> tuple[int, int] | None:
    """Where `url`'s user info lies (its start, and the end of its last "@"), or None.

    Looser than the URL grammar on purpose: text that is not a URL at all is hidden too rather
    than repeated. The authority starts after the scheme's colon and every slash or backslash
    that follows (browsers read `http:/\\user:pw@host` and `http:///user:pw@host` as sending
    `user:pw`), or, without a scheme, after leading blanks and slashes; it ends at the first "/",
    "?" or "#". A backslash inside it may end it or not depending on the parser
    (`http://a\\@user:pw@host`): up to its last "@" is hidden either way. A linear scan, not a
    regular expression: the text comes from the model, and may be long.
    """
    colon = url.find(":")
    start = 0
    if (
        colon > 0
        and not any(c in "@/\\?#" for c in url[:colon])
        and url[colon + 1 : colon + 2] in ("/", "\\")
    ):
        start = colon + 1
    while start < len(url) and (url[start] in "/\\" or url[start].isspace()):
        start += 1
    ends = [i for i in (url.find(c, start) for c in "/?#") if i >= 0]
    at = url.rfind("@", start, min(ends, default=len(url)))
    return None if at < 0 else (start, at + 1)


def has_userinfo(url: str) -> bool:
    """Whether `url` (or text that may be meant as one) carries user info before its host."""
    return shown_url(url) != url
