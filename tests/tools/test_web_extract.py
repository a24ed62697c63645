"""`web_extract` against a real local web site, through the deck's full execution path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support.web_pages import WebSite
from tooldeck import Deck, parse_config
from tooldeck._core.execution.results import UNTRUSTED_OPEN
from tooldeck._core.execution.types import ToolResult


def deck(**web: Any) -> Deck:
    return Deck(parse_config({"web": web}))


OPEN = {"allow_private_networks": True}


def extract(d: Deck, *urls: str, **args: Any) -> ToolResult:
    return d.call_sync("web_extract", {"urls": list(urls), **args})


def test_an_article_becomes_markdown_without_navigation_footer_or_scripts(site: WebSite) -> None:
    result = extract(deck(**OPEN), f"{site.url}/article")
    assert result.ok, result.content
    text = result.content
    assert text.startswith(UNTRUSTED_OPEN)  # web content is framed as data, not instructions
    assert "# Tides of Brest & Roscoff" in text  # the page title
    assert f"URL: {site.url}/article" in text and "Type: text/html" in text
    assert "# Tides of Brest\n" in text and "## Table of high waters" in text
    assert "| Monday | 06:42 |" in text
    assert "[yearly tables](https://example.org/tables)" in text
    assert "- Spring tides follow the new and full moon." in text
    for noise in ("About us", "Copyright 2026", "script text must not show", "color: #333"):
        assert noise not in text
    # The request said what it accepts and who asks.
    _, headers = site.requests[-1]
    assert "text/html" in headers["accept"] and "tooldeck" in headers["user-agent"]


def test_text_format_drops_markup(site: WebSite) -> None:
    text = extract(deck(**OPEN), f"{site.url}/article", format="text").content
    assert "The tide in Brest rises twice a day. High water today is at 06:42" in text
    assert "**" not in text and "](" not in text and "## " not in text


def test_plain_text_json_pdf_and_charsets(site: WebSite) -> None:
    text = extract(
        deck(**OPEN),
        f"{site.url}/plain",
        f"{site.url}/data.json",
        f"{site.url}/doc.pdf",
        f"{site.url}/latin1",
    ).content
    assert "Plain notes: the harbour opens at six." in text
    assert '"high_water": [\n    "06:42"' in text  # JSON passed through, pretty printed
    assert (
        "# Tide report" in text and "Hello from a PDF about tides" in text and "Type: application/pdf" in text
    )
    assert "Crème brûlée au café du port" in text and "# Café" in text


def test_a_page_without_an_article_falls_back_to_its_whole_body(site: WebSite) -> None:
    assert "Only a tiny line." in extract(deck(**OPEN), f"{site.url}/bare").content


def test_each_url_gets_its_own_result_or_error_and_they_run_concurrently(site: WebSite) -> None:
    d = deck(**OPEN, timeout_s=3, max_urls=7)
    # The two /together URLs answer only once both requests have arrived: fetched one after
    # the other, the first would wait past its 3 s and time out.
    result = extract(
        d,
        f"{site.url}/plain",
        f"{site.url}/status/404",
        f"{site.url}/together/extract/2/a",
        f"{site.url}/slow",
        f"{site.url}/together/extract/2/b",
        f"{site.url}/image.png",
        "ftp://example.org/file",
    )
    assert result.ok, result.content
    text = result.content
    assert "Plain notes" in text
    assert f"URL: {site.url}/status/404\nError (http_status): HTTP 404 Not Found" in text
    assert f"URL: {site.url}/slow\nError (timeout): no complete answer within 3 s" in text
    assert "Error (unsupported_type): content type image/png is not text" in text
    assert "Error (invalid_url): only http and https URLs can be fetched" in text
    assert text.count("\ntogether") == 2, "the URLs were not fetched concurrently"


def test_size_caps_refuse_huge_answers_declared_or_streamed(site: WebSite) -> None:
    d = deck(**OPEN, max_bytes=1_000_000)
    text = extract(d, f"{site.url}/huge-declared", f"{site.url}/huge-stream", f"{site.url}/plain").content
    assert "Error (too_large): the response is 50000000 bytes; the limit is 1000000" in text
    assert "Error (too_large): the response is larger than the limit of 1000000 bytes" in text
    assert "Plain notes" in text
    alone = extract(d, f"{site.url}/huge-stream")  # every URL failed: the call is an error
    assert alone.error is not None and alone.error.type == "tool_error"
    assert (
        alone.error.message
        == f"{site.url}/huge-stream: (too_large) the response is larger than the limit of 1000000 bytes"
    )


def test_long_content_is_cut_at_max_chars(site: WebSite) -> None:
    text = extract(deck(**OPEN, max_chars=200), f"{site.url}/article").content
    assert "[content cut at 200 of" in text and "(web.max_chars)" in text


def test_redirects_are_followed_and_reported(site: WebSite) -> None:
    text = extract(deck(**OPEN), f"{site.url}/redirect-to/plain").content
    assert f"URL: {site.url}/plain\n(redirected from {site.url}/redirect-to/plain)" in text
    looped = extract(deck(**OPEN, max_redirects=3), f"{site.url}/redirect-loop")
    assert looped.error is not None and "more than 3 redirects" in looped.error.message


def test_loopback_is_refused_by_default_with_a_denied_error(site: WebSite) -> None:
    before = len(site.requests)
    result = extract(deck(), f"{site.url}/article")
    assert result.error is not None and result.error.type == "denied"
    message = result.error.message
    assert "127.0.0.1 is a loopback address" in message and "web.allow_private_networks" in message
    port = site.url.rsplit(":", 1)[1]
    by_name = extract(deck(), f"http://localhost:{port}/article")
    assert by_name.error is not None and by_name.error.type == "denied"
    assert "localhost resolves to" in by_name.error.message  # checked after DNS resolution
    assert len(site.requests) == before  # nothing was sent


def test_a_redirect_to_a_private_address_is_refused_at_that_hop(sites: tuple[WebSite, WebSite]) -> None:
    near, far = sites
    before = len(far.requests)
    # The near site is reachable by name in allowed_networks; the far one (127.0.0.2) is not.
    d = deck(allowed_networks=["127.0.0.1/32"])
    result = extract(d, f"{near.url}/redirect-other/plain", f"{near.url}/plain")
    assert result.ok
    assert (
        f"redirected to {far.url}/plain" in result.content
        and "127.0.0.2 is a loopback address" in result.content
    )
    assert "Error (denied)" in result.content and "Plain notes" in result.content
    assert len(far.requests) == before
    # With private networks allowed, the same redirect reaches the far site.
    allowed = extract(deck(**OPEN), f"{near.url}/redirect-other/plain")
    assert allowed.ok and f"URL: {far.url}/plain" in allowed.content
    assert len(far.requests) == before + 1


def test_bad_arguments_are_tool_call_errors(site: WebSite) -> None:
    d = deck(**OPEN, max_urls=2)
    too_many = extract(d, *(f"{site.url}/plain" for _ in range(3)))
    assert too_many.error is not None and too_many.error.type == "invalid_arguments"
    assert "at most 2 per call (web.max_urls)" in too_many.error.message
    empty = extract(d)
    assert empty.error is not None and "urls is empty" in empty.error.message
    # The description states the configured limit.
    [spec] = [t for t in d.tools() if t["function"]["name"] == "web_extract"]
    assert "up to 2 web pages" in spec["function"]["description"]


@pytest.mark.parametrize("fmt", ["markdown", "text"])
def test_through_the_command_line(site: WebSite, tmp_path: Path, fmt: str) -> None:
    from cli.clirun import tooldeck

    cfg = tmp_path / "tooldeck.yaml"
    cfg.write_text("web: {allow_private_networks: true}\n", encoding="utf-8")
    args = json.dumps({"urls": [f"{site.url}/article"], "format": fmt})
    proc = tooldeck("call", "web_extract", "--config", str(cfg), "--args", args, "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["ok"] and "High water today is at" in out["content"]
    empty = tmp_path / "no-config"
    empty.mkdir()
    refused = tooldeck("call", "web_extract", "--args", args, "--json", cwd=empty)
    assert refused.returncode == 1 and json.loads(refused.stdout)["error"]["type"] == "denied"
