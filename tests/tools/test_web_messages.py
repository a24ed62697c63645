"""What `web_extract` says when a URL fails: the URL named once, plain grammar, and nothing
printed outside the result by the libraries it uses."""

from __future__ import annotations

import json
from pathlib import Path

from support.web_pages import WebSite
from tooldeck import Deck
from tooldeck.config_load import parse_config


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
