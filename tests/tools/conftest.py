"""Fixtures for the built-in library's tests: two local web sites (127.0.0.1 and 127.0.0.2)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from support.web_pages import WebSite


@pytest.fixture(scope="module")
def sites() -> Iterator[tuple[WebSite, WebSite]]:
    """`near` on 127.0.0.1 (the allowed one in tests) and `far` on 127.0.0.2, each pointing at the other."""
    with WebSite("127.0.0.1") as near, WebSite("127.0.0.2") as far:
        near.other, far.other = far.url, near.url
        yield near, far


@pytest.fixture(scope="module")
def site(sites: tuple[WebSite, WebSite]) -> WebSite:
    return sites[0]
