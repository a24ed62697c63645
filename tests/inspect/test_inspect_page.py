"""The inspector's page in a real Chromium (Debian's, driven by Playwright), used as a person
would: by visible text, labels and roles."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from support.cli import run_tooldeck

from .inspector import Inspector, running, write_workspace

CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    config = write_workspace(tmp_path_factory.mktemp("inspect-page"))
    store_a_session(config)
    return config


def store_a_session(config: Path) -> None:
    """One stored agent session with a tool call and its result, as `tooldeck run` leaves them."""
    from tooldeck import load_config
    from tooldeck.agent.messages import Message
    from tooldeck.agent.services import sessions_db
    from tooldeck.agent.sessions import SessionStore
    from tooldeck.core import ToolCall

    db = sessions_db(load_config(config))
    db.parent.mkdir(parents=True, exist_ok=True)
    with SessionStore(db) as store:
        store.create(session_id="sess-tides", title="Tide tables", model="scripted")
        for message in (
            Message("user", "When is high tide?"),
            Message(
                "assistant",
                "",
                tool_calls=(ToolCall("c1", "echo", {"text": "six"}),),
                reasoning="The tide table tool knows this.",
            ),
            Message("tool", "six <img src=x onerror=alert(1)>", tool_call_id="c1", name="echo"),
            Message("assistant", "High tide is at six."),
        ):
            store.append_message("sess-tides", message)


@pytest.fixture(scope="module")
def inspector(workspace: Path) -> Iterator[Inspector]:
    with running(workspace) as found:
        yield found


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser, inspector: Inspector) -> Iterator[Page]:
    context = browser.new_context()
    opened = context.new_page()
    dialogs: list[str] = []
    opened.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    opened.goto(inspector.url)
    expect(opened.get_by_role("heading", name=re.compile("Loadout"))).to_be_visible()
    yield opened
    assert dialogs == []  # nothing the page shows may open a dialog (no script from data runs)
    context.close()


def row(page: Page, name: str) -> object:
    return page.get_by_role("row").filter(has=page.get_by_role("link", name=name, exact=True))


def test_without_the_token_the_page_is_refused(browser: Browser, inspector: Inspector) -> None:
    context = browser.new_context()
    bare = context.new_page()
    response = bare.goto(inspector.base + "/")
    assert response is not None and response.status == 401
    context.close()


def test_rows_show_each_tool_with_its_fate_gate_and_reason_as_explain_words_them(
    page: Page, workspace: Path
) -> None:
    explained = json.loads(
        run_tooldeck(workspace.parent, "explain", "--config", str(workspace), "--json").stdout
    )
    other = next(r for r in explained if r["name"] == "other")
    hidden = row(page, "other")
    for text in ("hidden", "extra", "config", "disabled_toolsets", other["reason"]):
        expect(hidden).to_contain_text(text)
    expect(row(page, "echo")).to_contain_text("exposed")
    exposed = [r for r in explained if r["status"] == "exposed"]
    total = sum(r["tokens"] for r in exposed)
    expect(page.get_by_text(f"{len(exposed)} exposed ({total} tokens")).to_be_visible()


def test_the_filter_narrows_the_rows_by_name(page: Page) -> None:
    expect(row(page, "echo")).to_have_count(1)
    page.get_by_label("Filter").fill("laun")
    expect(row(page, "launch")).to_have_count(1)
    expect(row(page, "echo")).to_have_count(0)
    expect(row(page, "other")).to_have_count(0)
    page.get_by_placeholder("Search").fill("")
    expect(row(page, "echo")).to_have_count(1)


def test_the_platform_switcher_shows_that_platforms_loadout(page: Page) -> None:
    page.get_by_role("button", name="gateway").click()
    expect(page.get_by_role("heading", name="Loadout — platform gateway")).to_be_visible()
    expect(row(page, "read_file")).to_contain_text("hidden")
    page.get_by_role("button", name="cli", exact=True).click()
    expect(row(page, "read_file")).to_contain_text("exposed")


def schema_of(page: Page) -> object:
    return json.loads(page.get_by_label("Schema").inner_text())


def test_a_dialect_switch_changes_the_schema_text_and_its_token_count(page: Page, workspace: Path) -> None:
    page.get_by_role("link", name="echo", exact=True).click()
    expect(page.get_by_role("heading", name="echo", exact=True)).to_be_visible()
    for dialect in ("anthropic", "gemini", "openai"):
        page.get_by_role("button", name=dialect, exact=True).click()
        expect(page.get_by_role("heading", name=f"Schema as {dialect} receives it")).to_be_visible()
        sent = json.loads(
            run_tooldeck(
                workspace.parent, "tools", "--config", str(workspace), "--dialect", dialect, "--json"
            ).stdout
        )
        assert schema_of(page) in sent
        [explained] = json.loads(
            run_tooldeck(
                workspace.parent,
                "explain",
                "echo",
                "--config",
                str(workspace),
                "--dialect",
                dialect,
                "--json",
            ).stdout
        )
        expect(page.get_by_text(f"{explained['tokens']} tokens", exact=True)).to_be_visible()
    assert "input_schema" not in json.dumps(schema_of(page))
    page.get_by_role("button", name="anthropic", exact=True).click()
    expect(page.get_by_label("Schema")).to_contain_text('"input_schema"')


def test_a_hostile_description_is_shown_as_text(page: Page) -> None:
    page.get_by_role("link", name="echo", exact=True).click()
    expect(page.get_by_text("<script>window.hacked = 1</script><b>not bold</b>").first).to_be_visible()
    assert page.evaluate("window.hacked") is None
    assert page.locator("main b").count() == 0 and page.locator("main script").count() == 0


def test_the_form_calls_the_tool_through_the_execution_path(page: Page) -> None:
    page.get_by_role("link", name="echo", exact=True).click()
    page.get_by_label("text", exact=True).fill("tide")
    page.get_by_label("times").fill("3")
    page.get_by_label("loud").check()
    page.get_by_role("button", name=re.compile("^Call")).click()
    result = page.get_by_role("region", name="Result")
    expect(result).to_contain_text("TIDE TIDE TIDE")
    expect(result).to_contain_text("ok")
    # An invalid value comes back as the error envelope a model would read.
    page.get_by_label("times").fill("2.5")
    page.get_by_role("button", name=re.compile("^Call")).click()
    expect(result).to_contain_text("error: invalid_arguments")


def test_an_approval_is_asked_in_the_page_and_deny_gives_denied(page: Page) -> None:
    page.get_by_role("link", name="launch", exact=True).click()
    page.get_by_label("target").fill("the moon")
    page.get_by_role("button", name=re.compile("^Call")).click()
    request = page.get_by_role("region", name="Approval request for launch")
    expect(request).to_contain_text("requires_approval:launch")
    expect(request).to_contain_text("the moon")
    request.get_by_role("button", name="Deny").click()
    result = page.get_by_role("region", name="Result")
    expect(result).to_contain_text("error: denied")
    expect(request).to_have_count(0)
    page.get_by_role("link", name="Approvals").click()
    log = page.get_by_role("table", name="Approvals audit log")
    expect(log.get_by_role("row").nth(1)).to_contain_text("launch")
    expect(log.get_by_role("row").nth(1)).to_contain_text("refused")
    expect(log.get_by_role("row").nth(1)).to_contain_text("PageApprover")


def test_an_approved_call_runs(page: Page) -> None:
    page.get_by_role("link", name="launch", exact=True).click()
    page.get_by_label("target").fill("the sea")
    page.get_by_role("button", name=re.compile("^Call")).click()
    page.get_by_role("region", name="Approval request for launch").get_by_role(
        "button", name="Approve"
    ).click()
    expect(page.get_by_role("region", name="Result")).to_contain_text("launched the sea")


def test_a_session_opens_on_its_transcript(page: Page) -> None:
    page.get_by_role("link", name="Sessions").click()
    page.get_by_role("link", name="Tide tables").click()
    expect(page.get_by_role("heading", name="Session Tide tables")).to_be_visible()
    main = page.locator("main")
    expect(main).to_contain_text("When is high tide?")
    expect(main).to_contain_text("tool call echo")
    expect(main.locator(".reasoning")).to_have_text("The tide table tool knows this.")  # shown dimmed
    expect(main).to_contain_text("six <img src=x onerror=alert(1)>")
    expect(main).to_contain_text("High tide is at six.")
    assert page.locator("main img").count() == 0


def test_the_mcp_and_checkpoints_pages_say_what_there_is(page: Page) -> None:
    page.get_by_role("link", name="MCP").click()
    expect(page.get_by_text("No MCP servers configured")).to_be_visible()
    page.get_by_role("link", name="Checkpoints").click()
    expect(page.get_by_text("No checkpoints for this workspace.")).to_be_visible()


def test_the_mcp_page_shows_each_servers_name_state_and_error(browser: Browser, tmp_path: Path) -> None:
    import sys

    from .inspector import TINY

    servers = {
        "tiny": {"command": sys.executable, "args": [str(TINY)]},
        "broken": {"command": sys.executable, "args": [str(TINY), "--exit-at-start", "3"]},
    }
    config = write_workspace(tmp_path, mcp=servers)
    with running(config) as inspector:
        statuses = {s["name"]: s for s in inspector.get("/api/mcp")}
        context = browser.new_context()
        page = context.new_page()
        page.goto(inspector.url)
        page.get_by_role("link", name="MCP", exact=True).click()
        table = page.get_by_role("table", name="MCP servers")
        for name, status in statuses.items():
            line = table.get_by_role("row").filter(has_text=name)
            expect(line).to_contain_text(status["state"])
            if status["error"]:
                expect(line).to_contain_text(status["error"])
        expect(table.get_by_role("row").filter(has_text="tiny")).to_contain_text("mcp__tiny__echo")
        context.close()


# -- forms (elicitation) asked during a call from the page ------------------------------------


def ask_survey(page: Page, message: str | None = None) -> object:
    """Call `survey` from its page; the form it asks, as the page shows it."""
    page.get_by_role("link", name="survey", exact=True).click()
    if message is not None:
        page.get_by_label("message", exact=True).fill(message)
    page.get_by_role("button", name=re.compile("^Call")).click()
    card = page.get_by_role("region", name="Form from survey")
    expect(card).to_be_visible()
    return card


def returned(page: Page) -> object:
    """The JSON the tool returned, once the call's result is shown (an MCP server's inside the
    untrusted-content frame)."""
    content = page.get_by_role("region", name="Result").get_by_role("region", name="Content")
    expect(content).to_contain_text('"action"')
    text = content.inner_text()
    return json.JSONDecoder().raw_decode(text[text.index("{") :])[0]


def test_a_tools_form_shows_with_its_defaults_and_accept_hands_the_tool_the_values(page: Page) -> None:
    card = ask_survey(page)
    expect(card).to_contain_text("Tell me about you")
    expect(card.get_by_label("Your name")).to_have_value("Ada")
    expect(card.get_by_label("Age")).to_have_value("36")
    expect(card.get_by_label("Colour")).to_have_value("g")  # a select: the titles are its options
    expect(card.get_by_label("Send news")).to_be_checked()
    card.get_by_label("Your name").fill("Bo")
    card.get_by_label("Colour").select_option(label="Red")
    card.get_by_label("Size").select_option("m")
    card.get_by_label("Send news").uncheck()
    card.get_by_role("button", name="Accept").click()
    assert returned(page) == {
        "action": "accept",
        "content": {"name": "Bo", "age": 36, "colour": "r", "size": "m", "news": False},
        "reason": "",
    }
    expect(card).to_have_count(0)


def test_a_form_declined_in_the_page_reaches_the_tool_as_declined(page: Page) -> None:
    card = ask_survey(page)
    card.get_by_role("button", name="Decline").click()
    assert returned(page) == {"action": "decline", "content": None, "reason": "declined in the inspector"}
    expect(card).to_have_count(0)


def test_a_bad_value_is_refused_naming_the_field_and_the_form_stays(page: Page) -> None:
    card = ask_survey(page)
    card.get_by_label("Age").fill("500")
    card.get_by_role("button", name="Accept").click()
    expect(card.get_by_role("alert")).to_contain_text("field 'age'")
    expect(card.get_by_role("alert")).to_contain_text("150")
    expect(card.get_by_label("Your name")).to_have_value("Ada")  # still there, as it was
    card.get_by_label("Age").fill("40")
    card.get_by_role("button", name="Accept").click()
    got = returned(page)
    assert got["action"] == "accept" and got["content"]["age"] == 40


def test_a_hostile_form_message_is_shown_as_text(page: Page) -> None:
    hostile = "<img src=x onerror=alert(1)><script>window.hacked = 1</script><b>not bold</b>"
    card = ask_survey(page, hostile)
    expect(card.get_by_text(hostile)).to_be_visible()
    expect(card.get_by_text("<i>pick one</i>")).to_be_visible()  # a field's description
    pending = page.locator("#pending")
    for tag in ("img", "script", "b", "i"):
        assert pending.locator(tag).count() == 0, tag
    assert page.evaluate("window.hacked") is None
    card.get_by_role("button", name="Cancel").click()
    assert returned(page)["action"] == "cancel"


def test_an_mcp_servers_form_is_answered_in_the_page(browser: Browser, tmp_path: Path) -> None:
    import sys

    from .inspector import ASKING

    servers = {"ask": {"command": sys.executable, "args": [str(ASKING)], "protocol": "legacy"}}
    with running(write_workspace(tmp_path, mcp=servers)) as inspector:
        context = browser.new_context()
        page = context.new_page()
        page.goto(inspector.url)
        page.get_by_role("link", name="mcp__ask__ask_profile", exact=True).click()
        page.get_by_role("button", name=re.compile("^Call")).click()
        card = page.get_by_role("region", name="Form from mcp__ask__ask_profile")
        expect(card).to_contain_text("Tell me about you")
        name, colour = card.get_by_label("Name", exact=True), card.get_by_label("Color", exact=True)
        expect(name).to_have_value("Ada")  # the server's defaults, its enum a select
        expect(colour).to_have_value("green")
        expect(card.get_by_label("Age", exact=True)).to_have_value("36")
        name.fill("Bo")
        colour.select_option("red")
        card.get_by_role("button", name="Accept").click()
        assert returned(page) == {"action": "accept", "content": {"name": "Bo", "color": "red", "age": 36}}
        context.close()
