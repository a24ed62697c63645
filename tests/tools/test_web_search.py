"""`web_search` against a local server that answers in each provider's documented format.

The server checks what a real service would (the key in the right header, the query in the
right place) and answers as SearXNG's `format=json`, Brave's web search, Tavily's search and
Exa's search do.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tooldeck import Deck, load_config, parse_config

KEY = "test-key-123"
RESULTS = [
    ("Tides of Brest", "https://tides.example/brest", "High water in <strong>Brest</strong> today at 06:42."),
    ("Harbour office", "https://harbour.example/", "Opening hours &amp; tide tables."),
    ("Third", "https://third.example/", "A third result."),
]


def searxng(query: dict[str, list[str]], body: Any, headers: dict[str, str]) -> tuple[int, Any]:
    if query.get("format") != ["json"]:
        return 403, {"error": "format not allowed"}
    results = [
        {"url": u, "title": t, "content": s, "engine": "duckduckgo", "score": 1.0} for t, u, s in RESULTS
    ]
    return 200, {
        "query": query["q"][0],
        "number_of_results": 3,
        "results": results,
        "answers": [],
        "suggestions": [],
    }


def brave(query: dict[str, list[str]], body: Any, headers: dict[str, str]) -> tuple[int, Any]:
    if headers.get("x-subscription-token") != KEY:
        return 401, {"type": "ErrorResponse", "error": {"code": "SUBSCRIPTION_TOKEN_INVALID", "status": 401}}
    count = int(query["count"][0])
    results = [{"title": t, "url": u, "description": s, "language": "en"} for t, u, s in RESULTS][:count]
    return 200, {
        "type": "search",
        "query": {"original": query["q"][0]},
        "web": {"type": "search", "results": results},
    }


def tavily(query: dict[str, list[str]], body: Any, headers: dict[str, str]) -> tuple[int, Any]:
    if headers.get("authorization") != f"Bearer {KEY}":
        return 401, {"detail": {"error": "Unauthorized: missing or invalid API key."}}
    results = [{"title": t, "url": u, "content": s, "score": 0.9, "raw_content": None} for t, u, s in RESULTS]
    return 200, {
        "query": body["query"],
        "answer": None,
        "images": [],
        "results": results[: body["max_results"]],
    }


def exa(query: dict[str, list[str]], body: Any, headers: dict[str, str]) -> tuple[int, Any]:
    if headers.get("x-api-key") != KEY:
        return 401, {"error": "Invalid API key"}
    results = [
        {
            "id": u,
            "title": t,
            "url": u,
            "publishedDate": None,
            "author": None,
            "highlights": [s],
            "highlightScores": [0.5],
        }
        for t, u, s in RESULTS
    ]
    return 200, {"requestId": "r1", "resolvedSearchType": "neural", "results": results[: body["numResults"]]}


ROUTES = {
    "/searxng/search": searxng,
    "/brave/res/v1/web/search": brave,
    "/tavily/search": tavily,
    "/exa/search": exa,
}


class Providers:
    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, list[str]], Any, dict[str, str]]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, format: str, *args: Any) -> None:
                return None

            def _answer(self) -> None:
                url = urlsplit(self.path)
                query = parse_qs(url.query)
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                headers = {k.lower(): v for k, v in self.headers.items()}
                owner.requests.append((self.command, url.path, query, body, headers))
                status, payload = ROUTES[url.path](query, body, headers)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _answer

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"


@pytest.fixture(scope="module")
def providers() -> Iterator[Providers]:
    server = Providers()
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()


ENDPOINTS = {
    "searxng": "/searxng",
    "brave": "/brave/res/v1/web/search",
    "tavily": "/tavily/search",
    "exa": "/exa/search",
}


@pytest.mark.parametrize("provider", ["searxng", "brave", "tavily", "exa"])
def test_each_provider_through_a_config_file(
    providers: Providers, provider: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TD_SEARCH_KEY", KEY)
    key = "" if provider == "searxng" else "\n    api_key: ${TD_SEARCH_KEY}"
    cfg = tmp_path / "tooldeck.yaml"
    cfg.write_text(
        f"web:\n  search:\n    provider: {provider}\n    url: {providers.url}{ENDPOINTS[provider]}{key}\n",
        encoding="utf-8",
    )
    deck = Deck(load_config(cfg))
    result = deck.call_sync("web_search", {"query": "tides brest", "limit": 2})
    assert result.ok, result.content
    text = result.content
    assert text.startswith("<untrusted_content") and f"Results for 'tides brest' ({provider}):" in text
    assert "1. Tides of Brest\n   https://tides.example/brest\n   High water in Brest today at 06:42." in text
    assert "2. Harbour office\n   https://harbour.example/\n   Opening hours & tide tables." in text
    assert "Third" not in text  # the limit holds whatever the provider returned
    method, path, query, body, _headers = providers.requests[-1]
    if provider in ("searxng", "brave"):
        assert method == "GET" and query["q"] == ["tides brest"]
    else:
        assert method == "POST" and body["query"] == "tides brest"
    assert path.endswith("/search")
    [spec] = [t for t in deck.tools() if t["function"]["name"] == "web_search"]
    assert f"Search the web ({provider})" in spec["function"]["description"]
    assert "web_extract" in spec["function"]["description"]


@pytest.mark.parametrize(
    ("provider", "env"), [("brave", "BRAVE_API_KEY"), ("tavily", "TAVILY_API_KEY"), ("exa", "EXA_API_KEY")]
)
def test_a_missing_key_hides_the_tool_and_the_default_env_var_is_read(
    providers: Providers, provider: str, env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(env, raising=False)
    cfg = parse_config(
        {"web": {"search": {"provider": provider, "url": providers.url + ENDPOINTS[provider]}}}
    )
    [fate] = Deck(cfg).explain("web_search").fates
    assert fate.status == "hidden" and fate.gate == "availability"
    assert fate.reason == (
        f"web.search.provider is {provider} but its API key is missing: env {env} not set (or set web.search.api_key)"
    )
    monkeypatch.setenv(env, KEY)
    deck = Deck(cfg)
    assert deck.explain("web_search").fates[0].status == "exposed"
    assert "Tides of Brest" in deck.call_sync("web_search", {"query": "q"}).content


def test_no_provider_hides_the_tool_with_the_key_to_set() -> None:
    [fate] = Deck(parse_config({})).explain("web_search").fates
    assert fate.gate == "availability"
    assert (
        fate.reason
        == "no search provider configured: set web.search.provider (searxng, brave, tavily or exa)"
    )


def test_provider_errors_are_tool_errors_that_say_what_to_check(providers: Providers) -> None:
    wrong_key = {"provider": "brave", "url": providers.url + ENDPOINTS["brave"], "api_key": "wrong"}
    result = Deck(parse_config({"web": {"search": wrong_key}})).call_sync("web_search", {"query": "q"})
    assert result.error is not None and "brave: HTTP 401 (check the API key)" in result.error.message
    no_json = {"provider": "searxng", "url": providers.url + "/brave/res/v1/web"}  # answers 401 JSON
    result = Deck(parse_config({"web": {"search": no_json}})).call_sync("web_search", {"query": "q"})
    assert result.error is not None and result.error.message.startswith("searxng: HTTP")
    limited = {"provider": "searxng", "url": providers.url + "/searxng", "max_results": 3}
    result = Deck(parse_config({"web": {"search": limited}})).call_sync(
        "web_search", {"query": "q", "limit": 4}
    )
    assert result.error is not None and result.error.type == "invalid_arguments"


def test_the_search_timeout_and_the_user_agent_are_the_configured_ones(site: Any) -> None:
    slow = {"provider": "searxng", "url": site.url + "/slow", "timeout_s": 0.5}
    result = Deck(parse_config({"web": {"search": slow}})).call_sync("web_search", {"query": "q"})
    assert result.error is not None and result.error.message == "searxng: no answer within 0.5 s"
    web = {"allow_private_networks": True, "user_agent": "td-test-agent/1"}
    assert Deck(parse_config({"web": web})).call_sync("web_extract", {"urls": [f"{site.url}/plain"]}).ok
    assert site.requests[-1][1]["user-agent"] == "td-test-agent/1"
