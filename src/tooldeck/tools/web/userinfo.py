"""URLs that carry credentials (`http://user:password@host/`): found, refused, never repeated.

The web tools refuse such a URL rather than send its credentials to whatever host it names, or
drop them silently and fetch something other than what was asked. `shown_url` is how a URL goes
into any message, so a refused URL's password never reaches the model, a log or a result.
"""

from __future__ import annotations

import re

__all__ = ["CREDENTIALS_REFUSED", "has_userinfo", "shown_url"]

# What may come before an authority (`http://`, `//` or nothing), then the authority's text up to
# its last "@" (the user info, password included). Looser than the URL grammar on purpose: text
# that is not a URL at all is hidden too rather than repeated.
_USERINFO = re.compile(r"^(\s*(?:[A-Za-z][A-Za-z0-9+.-]*:)?//|\s*)([^/?#]*@)")

CREDENTIALS_REFUSED = (
    "the URL carries credentials (user info before '@'), which tooldeck never sends and does "
    "not repeat: give the URL without them"
)


def shown_url(url: str) -> str:
    """`url` as messages show it: user info, if any, replaced by `***`."""
    return _USERINFO.sub(r"\1***@", url, count=1)


def has_userinfo(url: str) -> bool:
    """Whether `url` (or text that may be meant as one) carries user info before its host."""
    return shown_url(url) != url
