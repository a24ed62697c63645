"""What `web_extract` says when a URL fails: the URL named once, plain grammar, and nothing
printed outside the result by the libraries it uses."""

from __future__ import annotations

import json
from pathlib import Path

from support.web_pages import WebSite
from tooldeck import Deck, parse_config


def extract(*urls: str, **web: object) -> tuple[str, str]:
    result = Deck(parse_config({"web": web})).call_sync("web_extract", {"urls": list(urls)})
    assert result.error is not None
    return result.error.type, result.error.message


def test_a_refused_url_is_named_once(site: WebSite) -> None:
    kind, message = extract(f"{site.url}/plain")
    assert kind == "denied"
    assert message.startswith(f"{site.url}/plain: (denied) refused to connect to 127.0.0.1: ")
    assert message.count(site.url) == 1


def test_a_refused_redirect_names_the_hop_it_refused(sites: tuple[WebSite, WebSite]) -> None:
    near, far = sites
    _, message = extract(f"{near.url}/redirect-other/plain", allowed_networks=["127.0.0.1/32"])
    assert message.startswith(f"{near.url}/redirect-other/plain: (denied) redirected to {far.url}/plain: ")
    assert message.count(far.url) == 1


def test_bad_urls_are_named_once_with_the_reason() -> None:
    _, message = extract("ftp://example.org/file", "example.org/page")
    assert message.splitlines() == [
        "ftp://example.org/file: (invalid_url) only http and https URLs can be fetched, not ftp URLs",
        "example.org/page: (invalid_url) the URL has no scheme: only http and https URLs can be fetched",
    ]


def test_an_unspecified_address_takes_an() -> None:
    _, message = extract("http://0.0.0.0:9/")
    assert "0.0.0.0 is an unspecified address" in message


def test_a_damaged_pdf_is_an_error_in_the_result_and_nothing_on_stderr(site: WebSite, tmp_path: Path) -> None:
    from cli.clirun import tooldeck

    cfg = tmp_path / "tooldeck.yaml"
    cfg.write_text("web: {allow_private_networks: true}\n", encoding="utf-8")
    args = json.dumps({"urls": [f"{site.url}/broken.pdf"]})
    proc = tooldeck("call", "web_extract", "--config", str(cfg), "--args", args, "--json", cwd=tmp_path)
    out = json.loads(proc.stdout)
    assert "(unsupported_type) not a readable PDF: " in out["error"]["message"]
    assert "EOF marker" not in proc.stderr, proc.stderr


def test_a_url_with_credentials_is_refused_without_repeating_them() -> None:
    with WebSite() as site:
        host = site.url.removeprefix("http://")
        kind, message = extract(f"http://bob:s3cret@{host}/plain", allow_private_networks=True)
    assert kind == "tool_error"
    assert message == (
        f"http://***@{host}/plain: (invalid_url) the URL carries credentials (user info before '@'), "
        "which tooldeck never sends and does not repeat: give the URL without them"
    )
    assert site.requests == []  # refused before anything was sent


def test_credentials_are_hidden_even_in_urls_refused_for_another_reason() -> None:
    _, message = extract("ftp://bob:s3cret@example.org/f", "bob:s3cret@example.org/page")
    assert "s3cret" not in message and "bob" not in message
    assert message.splitlines()[0].startswith(
        "ftp://***@example.org/f: (invalid_url) the URL carries credentials"
    )


def test_credentials_are_hidden_however_the_authority_is_spelt() -> None:
    # Browsers read any run of slashes and backslashes after the scheme as the authority's start,
    # so these send bob:s3cret; a backslash inside the authority may end it or not.
    with WebSite() as site:
        host = site.url.removeprefix("http://")
        urls = [
            f"http:/\\bob:s3cret@{host}/plain",
            f"http:///bob:s3cret@{host}/plain",
            f"http:\\\\bob:s3cret@{host}/plain",
            f"http://{host}\\@bob:s3cret@{host}/plain",
            f"\x01http://bob:s3cret@{host}/plain",
        ]
        _, message = extract(*urls, allow_private_networks=True)
    assert "s3cret" not in message and "bob" not in message, message
    assert len(message.splitlines()) == len(urls)
    assert all("(invalid_url) the URL carries credentials" in line for line in message.splitlines())
    assert site.requests == []


def test_credentials_in_very_long_urls_are_hidden_too() -> None:
    # The scan is linear: a backtracking pattern over a long URL from the model would stall the call.
    from tooldeck.tools.web.userinfo import shown_url

    long = "a" * 2_000_000
    assert shown_url(long) == long and shown_url(long + ":x@h/") == "***@h/"
    assert shown_url("http://" + "a:" * 1_000_000 + "@h/") == "http://***@h/"


def test_a_redirect_to_a_url_with_credentials_is_refused_without_repeating_them() -> None:
    with WebSite() as near, WebSite() as far:
        near.other = far.url.replace("http://", "http://bob:s3cret@")
        result = Deck(parse_config({"web": {"allow_private_networks": True}})).call_sync(
            "web_extract", {"urls": [f"{near.url}/redirect-other/plain", f"{near.url}/plain"]}
        )
    assert result.ok, result.error
    assert "s3cret" not in result.content and "bob" not in result.content
    host = far.url.removeprefix("http://")
    assert (
        f"Error (invalid_url): redirected to http://***@{host}/plain: the URL carries credentials"
        in result.content
    )
    assert "the harbour opens at six" in result.content  # the other URL is read
    assert far.requests == []
