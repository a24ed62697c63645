"""Config `prompts:` / `resources:` and `Deck(prompts=..., resources=...)`: entries are loaded like
`tools:` entries (one declaration or a list; modules next to the config importable), a bad entry
is a ConfigError naming its key path, two declarations of one name or URI conflict, and the
modules the entries import are protected from the tools like those of `tools:`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tooldeck import Deck, load_config, prompt, resource
from tooldeck.errors import ConfigError, ToolConflictError

MODULE = '''
from tooldeck import prompt, resource


@prompt
def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello, {name}!"


@prompt(name="farewell")
def bye() -> str:
    """Say goodbye."""
    return "Bye."


def plain(topic: str) -> str:
    """A plain function: made a prompt."""
    return topic


@resource("test://motd", mime_type="text/plain")
def motd() -> str:
    """The message of the day."""
    return "be kind"


@resource("test://notes/{id}")
def note(id: str) -> str:
    return "note " + id


PROMPTS = [greet, bye]
RESOURCES = (motd, note)
NOT_A_PROMPT = 42
'''


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "decl_mod.py").write_text(MODULE, encoding="utf-8")
    # A deck puts its config folder on sys.path: restore it, and forget the module afterwards.
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "decl_mod", raising=False)
    return tmp_path


def deck_of(folder: Path, text: str) -> Deck:
    path = folder / "tooldeck.yaml"
    path.write_text("plugins: {enabled: false}\nhome: .home\n" + text, encoding="utf-8")
    return Deck(load_config(path), builtins=False)


def test_entries_name_one_declaration_or_a_list(folder: Path) -> None:
    deck = deck_of(
        folder,
        "prompts:\n  - use: decl_mod:PROMPTS\n  - use: decl_mod:plain\n"
        "resources:\n  - use: decl_mod:RESOURCES\n",
    )
    assert [p.name for p in deck.prompts] == ["greet", "farewell", "plain"]
    assert [p.owner for p in deck.prompts] == [
        "config prompts[0] (decl_mod:PROMPTS)",
        "config prompts[0] (decl_mod:PROMPTS)",
        "config prompts[1] (decl_mod:plain)",
    ]
    assert [(r.uri, r.is_template) for r in deck.resources] == [
        ("test://motd", False),
        ("test://notes/{id}", True),
    ]
    assert deck.resources[1].owner == "config resources[0] (decl_mod:RESOURCES)"
    # Nothing of them is a tool: `tools` and `explain` are about tools.
    assert deck.tools() == []


@pytest.mark.parametrize(
    ("entries", "path", "message"),
    [
        ("prompts: [{use: decl_mod}]", "prompts[0].use", "must look like 'package.module:attribute'"),
        ("resources: [{use: 'decl_mod:RESOURCES'}, {use: 'a b:c'}]", "resources[1].use", "must look like"),
        (
            "prompts: [{use: 'no_such_module_x:p'}]",
            "prompts[0].use",
            "cannot import module 'no_such_module_x'",
        ),
        ("prompts: [{use: 'decl_mod:missing'}]", "prompts[0].use", "has no attribute 'missing'"),
        ("prompts: [{use: 'decl_mod:NOT_A_PROMPT'}]", "prompts[0].use", "holds a int, not a prompt"),
        ("prompts: [{use: 'decl_mod:motd'}]", "prompts[0].use", "holds a DeclaredResource, not a prompt"),
        ("resources: [{use: 'decl_mod:plain'}]", "resources[0].use", "holds a function, not a resource"),
        ("resources: [{use: 'decl_mod:PROMPTS'}]", "resources[0].use", "holds a Prompt, not a resource"),
        ("prompts: [{use: 'decl_mod:greet', name: x}]", "prompts[0].name", "unknown"),
    ],
)
def test_a_bad_entry_is_a_config_error_naming_its_key_path(
    folder: Path, entries: str, path: str, message: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        deck_of(folder, entries + "\n")
    assert str(raised.value).startswith(f"{path}: "), str(raised.value)
    assert message in str(raised.value)


def test_two_declarations_of_one_name_or_uri_conflict(folder: Path) -> None:
    with pytest.raises(ToolConflictError, match=r"prompt 'greet' is declared twice: by config prompts\[0\]"):
        deck_of(folder, "prompts:\n  - use: decl_mod:PROMPTS\n  - use: decl_mod:greet\n")

    @resource("test://motd")
    def other_motd() -> str:
        return "mine"

    with pytest.raises(
        ToolConflictError, match=r"resource 'test://motd' is declared twice: by .*other_motd and by config"
    ):
        path = folder / "tooldeck.yaml"
        path.write_text("plugins: {enabled: false}\nresources: [{use: 'decl_mod:motd'}]\n")
        Deck(load_config(path), builtins=False, resources=[other_motd])


def test_a_deck_takes_declarations_in_code_and_keeps_them_under_another_config(folder: Path) -> None:
    @prompt
    def ask(question: str) -> str:
        return question

    @resource("test://answer")
    def answer() -> str:
        return "42"

    deck = Deck(prompts=[ask], resources=[answer], builtins=False)
    assert deck.prompts == (ask,) and deck.resources == (answer,)
    path = folder / "tooldeck.yaml"
    path.write_text("plugins: {enabled: false}\nprompts: [{use: 'decl_mod:greet'}]\n")
    moved = deck.with_config(load_config(path))
    assert [p.name for p in moved.prompts] == ["ask", "greet"] and moved.resources == (answer,)
    with pytest.raises(TypeError, match=r"Deck\(prompts=...\)\[0\] is a DeclaredResource, not a @prompt"):
        Deck(prompts=[answer], builtins=False)  # type: ignore[list-item]


def test_the_modules_the_entries_import_are_protected_from_the_tools(folder: Path) -> None:
    deck = deck_of(
        folder,
        "platform_toolsets: {cli: [file]}\nprompts: [{use: 'decl_mod:greet'}]\n",
    )
    deck = Deck(deck.config)  # with the built-in file tools
    done = deck.call_sync("write_file", {"path": "decl_mod.py", "content": "import os\n"})
    error = json.loads(done.content)["error"]
    assert error["type"] == "denied" and "a module the config imports (decl_mod)" in error["message"], error
    assert (folder / "decl_mod.py").read_text(encoding="utf-8") == MODULE
