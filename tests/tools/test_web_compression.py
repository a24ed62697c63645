"""Compressed answers for `web_extract`: decoded correctly, and a compression bomb is refused
without ever inflating much more than `web.max_bytes` in memory."""

from __future__ import annotations

import tracemalloc

from support.web_pages import WebSite
from tooldeck import Deck, parse_config

OPEN = {"allow_private_networks": True}


def deck(**web: object) -> Deck:
    return Deck(parse_config({"web": {**OPEN, **web}}))


def test_a_gzip_bomb_is_refused_without_inflating_it_in_memory(site: WebSite) -> None:
    d = deck(max_bytes=1_000_000)
    d.call_sync("web_extract", {"urls": [f"{site.url}/plain"]})  # warm imports before measuring
    tracemalloc.start()
    try:
        result = d.call_sync("web_extract", {"urls": [f"{site.url}/gzip-bomb"] * 3})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.error is not None and result.error.type == "tool_error"
    assert "(too_large) the response is larger than the limit of 1000000 bytes" in result.error.message
    # Three URLs of 64 MB each once inflated; each may hold the limit plus one step at most.
    assert peak < 12_000_000, f"peak memory {peak} bytes while refusing the bomb"
    _, headers = site.requests[-1]
    assert headers["accept-encoding"] == "gzip, deflate"  # only encodings we can bound


def test_gzip_and_deflate_pages_are_decoded(site: WebSite) -> None:
    paths = ["gzip-page", "deflate-page", "raw-deflate-page"]
    result = deck().call_sync("web_extract", {"urls": [f"{site.url}/{p}" for p in paths]})
    assert result.ok, result.content
    assert result.content.count("Packed tide notes for Brest.") == 3
    assert "Error" not in result.content


def test_an_encoding_we_did_not_ask_for_is_refused_by_name(site: WebSite) -> None:
    result = deck().call_sync("web_extract", {"urls": [f"{site.url}/brotli-page"]})
    assert result.error is not None
    assert "(unsupported_type) content encoding br is not supported (only gzip or deflate)" in (
        result.error.message
    )
