"""`vision_analyze` and `browser_vision`: the image checked on the wire through the scripted server."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path
from typing import Any

import pytest

from support.agent_kit import PROVIDERS
from support.web_pages import WebSite, tiny_png
from tooldeck import Deck, parse_config
from tooldeck.agent.models.base import ModelSettings, Provider
from tooldeck.agent.models.factory import make_model
from tooldeck.testing.scripted_server import Recorded, ScriptedServer, Turn


def image_sent(request: Recorded) -> tuple[str, bytes]:
    """The (media type, bytes) of the one image in a one-off vision request, whatever the format."""
    if request.kind == "chat":
        [message] = request.body["messages"]
        text, image = message["content"]
        url = image["image_url"]["url"]
    elif request.kind == "responses":
        [message] = request.body["input"]
        text, image = message["content"]
        assert image["type"] == "input_image"
        url = image["image_url"]
    else:
        [message] = request.body["messages"]
        image, text = message["content"]
        source = image["source"]
        assert source["type"] == "base64"
        return source["media_type"], base64.b64decode(source["data"])
    assert text["text"]
    head, data = url.split(",", 1)
    assert head.endswith(";base64") and head.startswith("data:")
    return head[5:-7], base64.b64decode(data)


def base_url(server: ScriptedServer, provider: str) -> str:
    return server.url if provider == "anthropic" else server.openai_url


def vision_deck(workspace: Path, home: Path, provider: str = "openai", **extra: Any) -> Deck:
    model = {"supports_vision": True, "provider": provider, "name": "vision-model"}
    return Deck(
        parse_config({"model": model, "sandbox": {"workspace": str(workspace)}, "home": str(home), **extra})
    )


@pytest.mark.parametrize("provider", PROVIDERS)
def test_vision_analyze_sends_the_workspace_image_to_the_agents_model(
    scripted_server: ScriptedServer, provider: Provider, tmp_path: Path, home: Path
) -> None:
    png = tiny_png(8, 6)
    (tmp_path / "shots").mkdir()
    (tmp_path / "shots" / "pic.png").write_bytes(png)
    deck = vision_deck(tmp_path, home, provider)
    settings = ModelSettings(
        provider=provider, model="vision-model", base_url=base_url(scripted_server, provider), api_key="k"
    )
    scripted_server.add(
        Turn(calls=[("vision_analyze", {"image": "shots/pic.png", "question": "What colour is it?"})]),
        Turn(text="A small red rectangle."),
        Turn(text="The picture is a red rectangle."),
    )
    agent = deck.agent(make_model(settings), store=False)

    async def main() -> str:
        try:
            return (await agent.run(agent.new_conversation(), "Describe shots/pic.png")).text
        finally:
            await agent.aclose()

    assert asyncio.run(main()) == "The picture is a red rectangle."
    first, vision, last = scripted_server.requests
    assert "vision_analyze" in first.tool_names()
    assert vision.body["model"] == "vision-model" and not vision.body.get("tools")
    assert image_sent(vision) == ("image/png", png)
    [(_, answer)] = last.tool_results()
    assert "A small red rectangle." in answer


def test_outside_an_agent_the_config_model_is_asked(scripted_server: ScriptedServer, tmp_path: Path) -> None:
    from cli.clirun import tooldeck

    (tmp_path / "pic.png").write_bytes(tiny_png())
    config = {
        "model": {"supports_vision": True, "name": "cfg-model", "base_url": scripted_server.openai_url},
        "sandbox": {"workspace": "."},
    }
    (tmp_path / "tooldeck.yaml").write_text(json.dumps(config), encoding="utf-8")
    scripted_server.add(Turn(text="Red, entirely."))
    args = json.dumps({"image": "pic.png", "question": "Which colour?"})
    proc = tooldeck(
        "call", "vision_analyze", "--args", args, "--json", cwd=tmp_path, env={"OPENAI_API_KEY": "k"}
    )
    assert proc.returncode == 0, proc.stderr
    assert "Red, entirely." in json.loads(proc.stdout)["content"]
    [request] = scripted_server.requests
    assert request.body["model"] == "cfg-model" and image_sent(request)[0] == "image/png"


def test_images_by_url_go_through_the_address_guard(
    scripted_server: ScriptedServer, site: WebSite, tmp_path: Path, home: Path
) -> None:
    model = {"supports_vision": True, "name": "m", "base_url": scripted_server.openai_url}
    open_deck = Deck(parse_config({"model": model, "web": {"allow_private_networks": True}}))
    scripted_server.add(Turn(text="A red square."))
    result = open_deck.call_sync(
        "vision_analyze", {"image": f"{site.url}/image.png", "question": "What is it?"}
    )
    assert result.ok and "A red square." in result.content
    assert image_sent(scripted_server.requests[-1]) == ("image/png", tiny_png())
    closed = Deck(parse_config({"model": model}))
    refused = closed.call_sync(
        "vision_analyze", {"image": f"{site.url}/image.png", "question": "What is it?"}
    )
    assert refused.error is not None and refused.error.type == "denied"
    text = open_deck.call_sync("vision_analyze", {"image": f"{site.url}/plain", "question": "?"})
    assert text.error is not None and "is not a PNG, JPEG, GIF or WebP image" in text.error.message
    assert len(scripted_server.requests) == 1  # refusals never reached the model


def test_paths_stay_inside_the_workspace_and_must_be_images(tmp_path: Path, home: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("not an image")
    (tmp_path / "secret.png").write_bytes(tiny_png())
    deck = vision_deck(ws, home)
    outside = deck.call_sync("vision_analyze", {"image": "../secret.png", "question": "?"})
    assert outside.error is not None and "contains '..'" in outside.error.message
    absolute = deck.call_sync("vision_analyze", {"image": str(tmp_path / "secret.png"), "question": "?"})
    assert absolute.error is not None and "outside the workspace" in absolute.error.message
    text = deck.call_sync("vision_analyze", {"image": "notes.txt", "question": "?"})
    assert text.error is not None and "notes.txt is not a PNG, JPEG, GIF or WebP image" in text.error.message
    missing = deck.call_sync("vision_analyze", {"image": "nope.png", "question": "?"})
    assert missing.error is not None and "not found" in missing.error.message


def test_without_an_endpoint_the_error_says_how_to_configure_one(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    (tmp_path / "pic.png").write_bytes(tiny_png())
    result = vision_deck(tmp_path, home).call_sync("vision_analyze", {"image": "pic.png", "question": "?"})
    assert result.error is not None and result.error.type == "unavailable"
    assert "no model to ask: no model endpoint is configured" in result.error.message


def test_hidden_unless_the_model_supports_vision(tmp_path: Path) -> None:
    fates = {f.name: f for f in Deck(parse_config({})).explain("vision_analyze", "browser_vision").fates}
    for name in ("vision_analyze", "browser_vision"):
        assert fates[name].gate == "model_capability"
        assert "needs vision" in (fates[name].reason or "")


def test_browser_vision_sends_a_screenshot_of_the_page(
    scripted_server: ScriptedServer, site: WebSite, tmp_path: Path, home: Path
) -> None:
    web = {"allowed_networks": ["127.0.0.1/32"]}
    deck = vision_deck(tmp_path, home, web=web)
    settings = ModelSettings(
        provider="openai", model="vision-model", base_url=scripted_server.openai_url, api_key="k"
    )
    scripted_server.add(
        Turn(calls=[("browser_navigate", {"url": f"{site.url}/form"})]),
        Turn(calls=[("browser_vision", {"question": "Is there a button?"})]),
        Turn(text="Yes, a Search button and a Press me button."),
        Turn(text="The page has two buttons."),
    )
    agent = deck.agent(make_model(settings), store=False)

    async def main() -> str:
        try:
            return (await agent.run(agent.new_conversation(), "look at the form")).text
        finally:
            await agent.aclose()

    try:
        assert asyncio.run(main()) == "The page has two buttons."
    finally:
        deck.close()
    vision = scripted_server.requests[2]
    kind, data = image_sent(vision)
    assert kind == "image/png" and data.startswith(b"\x89PNG") and len(data) > 2000  # a real screenshot
    [(_, answer)] = scripted_server.requests[3].tool_results()[-1:]
    assert "Yes, a Search button" in answer
