"""What the commands share: common options, loading the deck, printing, failing with a code."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from tooldeck.cli.main import CliError
from tooldeck.cli.output import emit, print_json, real_stdout

if TYPE_CHECKING:
    from tooldeck import Deck
    from tooldeck.core import Diagnostic, Loadout

DIALECTS = ("openai", "responses", "anthropic", "gemini")


def add_config(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        "-c",
        type=_file_name,
        default=None,
        help="config file (default: ./tooldeck.yaml if present)",
    )


def _file_name(text: str) -> Path:
    if not text.strip():
        raise argparse.ArgumentTypeError("needs a file name")
    return Path(text)


def add_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", dest="as_json", action="store_true", help="machine-readable output")


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """Which model endpoint to talk to (`run`, `chat`, `batch`); config `model:` by default."""
    parser.add_argument("--model", "-m", default=None, help="model name (default: config model.name)")
    parser.add_argument(
        "--base-url",
        default=None,
        help="what the provider's SDK takes as base URL: OpenAI-compatible ends in /v1; Anthropic is the host root",
    )
    parser.add_argument("--provider", choices=("openai", "responses", "anthropic"), default=None)
    parser.add_argument(
        "--reasoning",
        choices=("none", "low", "medium", "high", "max"),
        default=None,
        help="how hard the model reasons (default: config model.reasoning.effort)",
    )
    parser.add_argument(
        "--reasoning-budget",
        type=_positive_int,
        default=None,
        metavar="TOKENS",
        help="tokens the model may spend reasoning (default: config model.reasoning.budget_tokens)",
    )


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def add_platform(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--platform", "-p", default=None, help="platform whose toolsets to use (default: config)"
    )


def fail(message: str, code: int = 2) -> NoReturn:
    raise CliError(message, code)


def load_deck(config: Path | None) -> Deck:
    """Load the config and sources; a bad config exits 2 with the key path."""
    from tooldeck import Deck
    from tooldeck.errors import ConfigError

    if config is None and not Path("tooldeck.yaml").exists():
        print(
            "tooldeck: note: no tooldeck.yaml here (and no --config): using the defaults, every built-in "
            "tool with the current directory as the workspace",
            file=sys.stderr,
        )
    from tooldeck._utils.home import tooldeck_home
    from tooldeck.cli.output import log_to_home

    try:
        deck = Deck.load(config)
    except ConfigError as exc:
        fail(f"config error: {exc}")
    log_to_home(tooldeck_home(deck.config.home, base_dir=deck.config.base_dir))
    return deck


def add_agent(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--agent",
        action="store_true",
        help="as an agent run (tooldeck run/chat/batch) gets them, with the tools only an agent run can use",
    )


def assemble(
    deck: Deck, platform: str | None, *, agent: bool = False, calling: Sequence[str] | None = None
) -> Loadout:
    """The loadout (`calling`: for those calls only, see `Deck.loadout`); a config problem exits 2."""
    from tooldeck.errors import ConfigError, ToolsetError

    try:
        return deck.loadout(platform, agent=agent, calling=calling)
    except (ToolsetError, ConfigError) as exc:
        fail(f"config error: {exc}")


def warn_diagnostics(diagnostics: list[Diagnostic], *, notes: bool = False) -> None:
    """Warnings (and with `notes`, info notes too) go to stderr, so stdout stays parseable in
    machine mode and nothing vanishes."""
    for d in diagnostics:
        if notes or d.level != "info":
            print(f"tooldeck: {d.level}: {d}", file=sys.stderr)


def console() -> Any:
    """A rich console; wide enough for the tables when output is not a terminal."""
    from rich.console import Console

    out = real_stdout()
    con = Console(file=out, soft_wrap=False)
    if not con.is_terminal:
        con = Console(file=out, soft_wrap=False, width=200)
    return con


__all__ = [
    "DIALECTS",
    "add_agent",
    "add_config",
    "add_json",
    "add_platform",
    "assemble",
    "console",
    "emit",
    "fail",
    "load_deck",
    "print_json",
    "warn_diagnostics",
]
