"""The browser tools driving a real Chromium (installed by scripts/setup.sh) on a local site."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from support.web_pages import WebSite
from tooldeck import Deck, parse_config
from tooldeck._core.execution.types import ToolCall, ToolResult
from tooldeck.agent import ScriptedModel, call, reply
from tooldeck.tools.browser.executable import find_executable
from tooldeck.tools.library import LibrarySource

MARKER = f"--tooldeck-test-{uuid.uuid4().hex[:8]}"


def chromium_pids(marker: str = MARKER) -> list[int]:
    """Processes whose command line carries `marker` (the flag the tests give Chromium)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def make_deck(marker: str = MARKER, browser: dict[str, Any] | None = None, **top: Any) -> Deck:
    web = {"allowed_networks": ["127.0.0.1/32"], "browser": {"args": [marker], **(browser or {})}}
    return Deck(parse_config({"web": web, **top}))


@pytest.fixture(scope="module")
def deck() -> Iterator[Deck]:
    d = make_deck()
    yield d
    d.close()


def run(d: Deck, name: str, session: str | None = None, **args: Any) -> ToolResult:
    [result] = (
        d.session(session_id=session, direct=False).executor().execute_sync([ToolCall("c1", name, args)])
    )
    return result


def ref_of(text: str, line_start: str) -> str:
    """The ref on the snapshot line that starts (after indentation) with `line_start`."""
    for line in text.splitlines():
        if line.strip().lstrip("- ").startswith(line_start):
            return line.split("[ref=")[1].split("]")[0]
    raise AssertionError(f"no line {line_start!r} in:\n{text}")


def test_chromium_is_installed() -> None:
    path, where = find_executable(parse_config({}).web.browser)
    assert path is not None, where  # scripts/setup.sh installs Debian's chromium


def test_navigate_snapshot_click_type_press_and_back(deck: Deck, site: WebSite) -> None:
    page = run(deck, "browser_navigate", url=f"{site.url}/form")
    assert page.ok, page.content
    text = page.content
    assert text.startswith("<untrusted_content") and "Page: Search form" in text
    assert 'heading "Find a port" [level=1]' in text and 'link "Read the tide article"' in text
    clicked = run(deck, "browser_click", ref=ref_of(text, 'button "Press me"'))
    assert clicked.ok and "Clicked e" in clicked.content and "Button was pressed" in clicked.content
    pressed = run(deck, "browser_press", key="ArrowDown")
    assert "Last key: ArrowDown" in pressed.content
    typed = run(deck, "browser_type", ref=ref_of(text, 'textbox "Port name"'), text="Roscoff", submit=True)
    assert typed.ok, typed.content
    assert "Page: Results" in typed.content and "You searched for: Roscoff" in typed.content
    snap = run(deck, "browser_snapshot")
    assert "You searched for: Roscoff" in snap.content and "/echo?q=Roscoff" in snap.content
    back = run(deck, "browser_back")
    assert back.ok and "Page: Search form" in back.content
    stale = run(deck, "browser_click", ref="e999")
    assert stale.error is not None and "no element with ref 'e999'" in stale.error.message
    bad = run(deck, "browser_click", ref="button")
    assert bad.error is not None and bad.error.type == "invalid_arguments"


def test_scroll_images_and_close(deck: Deck, site: WebSite) -> None:
    run(deck, "browser_navigate", url=f"{site.url}/tall", session="scroll")
    down = run(deck, "browser_scroll", session="scroll", direction="down", pages=2)
    assert down.ok and "Scrolled down; showing pixels 1800-2700 of" in down.content
    run(deck, "browser_navigate", url=f"{site.url}/form", session="scroll")
    images = run(deck, "browser_get_images", session="scroll")
    assert f'1. {site.url}/image.png alt="red square" (4x4)' in images.content
    assert run(deck, "browser_close", session="scroll").content == "Closed the browser session."
    assert run(deck, "browser_close", session="scroll").content == "No browser session was open."


def test_each_session_has_its_own_context(deck: Deck, site: WebSite) -> None:
    run(deck, "browser_navigate", url=f"{site.url}/set-cookie", session="alice")
    alice = run(deck, "browser_navigate", url=f"{site.url}/show-cookie", session="alice")
    bob = run(deck, "browser_navigate", url=f"{site.url}/show-cookie", session="bob")
    assert "Cookie: flavour=salt" in alice.content
    assert "Cookie: no cookie" in bob.content


def test_private_addresses_are_refused_on_navigation_redirect_and_subresources(
    deck: Deck, sites: tuple[WebSite, WebSite]
) -> None:
    near, far = sites
    before = len(far.requests)
    direct = run(deck, "browser_navigate", url=f"{far.url}/form")
    assert direct.error is not None and direct.error.type == "denied"
    assert "127.0.0.2 is a loopback address" in direct.error.message
    redirect = run(deck, "browser_navigate", url=f"{near.url}/redirect-other/plain")
    assert redirect.error is not None and redirect.error.type == "denied"
    assert f"was refused: {far.url}/plain: refused to connect to 127.0.0.2" in redirect.error.message
    mixed = run(deck, "browser_navigate", url=f"{near.url}/private-image")
    assert mixed.ok and "request(s) of this page to blocked addresses were refused" in mixed.content
    assert len(far.requests) == before  # the browser never reached the far site
    scheme = run(deck, "browser_navigate", url="file:///etc/passwd")
    assert scheme.error is not None and scheme.error.type == "invalid_arguments"


def test_by_default_loopback_is_refused_before_the_browser_starts(site: WebSite) -> None:
    d = Deck(parse_config({}))
    result = d.call_sync("browser_navigate", {"url": f"{site.url}/form"})
    assert result.error is not None and result.error.type == "denied"
    source = next(s for s in d.sources if isinstance(s, LibrarySource))
    assert source.browser is not None and not source.browser.running  # refused before Chromium started
    d.close()


def test_an_agent_session_closes_its_browser_context(site: WebSite, tmp_path: Path) -> None:
    d = make_deck(home=str(tmp_path))
    model = ScriptedModel(
        [reply(calls=[call("browser_navigate", {"url": f"{site.url}/article"})]), reply("read it")]
    )
    agent = d.agent(model, store=False)

    async def scenario() -> tuple[list[str], list[str]]:
        convo = agent.new_conversation()
        result = await agent.run(convo, "open the article")
        assert result.text == "read it"
        source = next(s for s in d.sources if isinstance(s, LibrarySource))
        assert source.browser is not None
        during = source.browser.sessions()
        await agent.aclose()
        return during, source.browser.sessions()

    try:
        during, after = asyncio.run(scenario())
        assert len(during) == 1 and during[0] != "default"  # the conversation's own context
        assert after == []
    finally:
        d.close()


SCRIPT = """
import os, signal, sys
from tooldeck import Deck
from tooldeck import parse_config
deck = Deck(parse_config({{"web": {{"allowed_networks": ["127.0.0.1/32"], "browser": {{"args": ["{marker}"]}}}}}}))
result = deck.call_sync("browser_navigate", {{"url": "{url}"}})
assert result.ok, result.content
print("open", flush=True)
how = sys.argv[1]
if how == "close":
    deck.close()
    print("closed", flush=True)
    sys.stdin.readline()  # stay alive until the test has looked
elif how == "_exit":
    os._exit(0)
elif how == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.parametrize("how", ["close", "exit", "_exit", "kill"])
def test_no_browser_process_outlives_the_deck_or_the_process(site: WebSite, tmp_path: Path, how: str) -> None:
    marker = f"--tooldeck-orphan-{uuid.uuid4().hex[:8]}"
    script = tmp_path / "browse.py"
    script.write_text(textwrap.dedent(SCRIPT.format(marker=marker, url=f"{site.url}/form")), encoding="utf-8")
    with subprocess.Popen(
        [sys.executable, str(script), how], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as proc:
        try:
            _watch(proc, how, marker)
        finally:
            if proc.poll() is None:
                proc.communicate("\n", timeout=30)
            for pid in chromium_pids(marker):  # never leave a browser behind, even when failing
                os.kill(pid, signal.SIGKILL)


def _watch(proc: subprocess.Popen[str], how: str, marker: str) -> None:
    assert proc.stdout is not None and proc.stdout.readline().strip() == "open"
    assert chromium_pids(marker)  # the browser runs, with the test's marker flag
    if how == "close":
        assert proc.stdout.readline().strip() == "closed"
        assert chromium_pids(marker) == []  # gone while the process lives on
        return
    proc.wait(60)
    deadline = time.monotonic() + 30
    while chromium_pids(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert chromium_pids(marker) == []


def test_hidden_with_the_reason_when_there_is_no_browser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = Deck(parse_config({"web": {"browser": {"executable": str(tmp_path / "no-chrome")}}}))
    [fate] = missing.explain("browser_navigate").fates
    assert fate.gate == "availability"
    assert fate.reason == f"web.browser.executable {str(tmp_path / 'no-chrome')!r} is not an executable file"
    monkeypatch.setenv("PATH", str(tmp_path))  # no chromium on PATH
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path))  # and no browser of Playwright's own
    fates = Deck(parse_config({"model": {"supports_vision": True}})).explain().fates
    hidden = {f.name: f.reason for f in fates if f.tool.toolset == "browser"}
    assert len(hidden) == 10
    assert set(hidden.values()) == {
        "no Chromium found: install the system browser (Debian: apt-get install chromium), or set web.browser.executable"
    }


def test_the_check_looks_for_the_browser_without_importing_playwright() -> None:
    code = (
        "import sys; from tooldeck import Deck; d = Deck(); d.tools(); "
        "print(sorted(m for m in ('playwright', 'httpx', 'trafilatura', 'lxml', 'pypdf') if m in sys.modules)); "
        "print([f.status for f in d.explain('browser_navigate').fates])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["[]", "['exposed']"]


def test_the_navigate_description_mentions_web_extract_only_when_exposed() -> None:
    def description(cfg: dict[str, Any]) -> str:
        tools = Deck(parse_config(cfg)).tools()
        return next(
            t["function"]["description"] for t in tools if t["function"]["name"] == "browser_navigate"
        )

    assert "web_extract is faster" in description({})
    assert "web_extract" not in description({"disabled_toolsets": ["web"]})


def test_the_browser_timeout_bounds_each_action(site: WebSite) -> None:
    d = make_deck(browser={"timeout_s": 1})
    try:
        # /slow answers after 10 s: an error at all means the 1 s timeout cut the action short.
        result = d.call_sync("browser_navigate", {"url": f"{site.url}/slow"})
        assert result.error is not None and "Timeout 1000ms exceeded" in result.error.message
    finally:
        d.close()


def test_a_url_with_credentials_is_refused_before_the_browser_sees_it() -> None:
    with WebSite() as site:
        d = make_deck()
        try:
            host = site.url.removeprefix("http://")
            result = run(d, "browser_navigate", url=f"http://bob:s3cret@{host}/plain")
        finally:
            d.close()
    assert result.error is not None and result.error.type == "invalid_arguments"
    assert result.error.message.startswith(f"http://***@{host}/plain: the URL carries credentials")
    assert "s3cret" not in result.content and "bob" not in result.content
    assert site.requests == []
