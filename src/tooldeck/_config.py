"""`tooldeck.Config`: the whole of `tooldeck.yaml`, composed above the core and the satellites.

The core owns its keys (`CoreConfig`: tools and sources, the sandbox, approvals, execution,
checkpoints, MCP, the model it renders tools for); each satellite owns its section, beside the
code that reads it, with its own checks: the web tools `web:` (`tooldeck.tools.web.config`, with
`web.browser` in `tooldeck.tools.browser.config`), the agent `agent:` (`tooldeck.agent.config`),
`tooldeck serve` `serve:` (`tooldeck.serve.config`, a module that imports only the core's public
face, in a package whose `__init__` imports the server lazily, so composing it here imports no
server). This module adds them to the core's keys, each at its place in the file's order, and
offers the loaders for the composed class.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Any, ClassVar

from tooldeck._core.config import CoreConfig, composed, section
from tooldeck._core.config_load import load_config_as, parse_config_as
from tooldeck.agent.config import AgentConfig
from tooldeck.serve.config import ServeConfig
from tooldeck.tools.web.config import WebConfig


@composed
@section
class Config(CoreConfig):
    """The whole of `tooldeck.yaml`. Building one validates it (a `ConfigError` names the key)."""

    # Where each satellite's key sits among the core's (the order of the reference).
    placed_after: ClassVar[dict[str, str]] = {
        "web": "skills_dirs",
        "serve": "execution",
        "agent": "dialects",
    }
    # The web tools: fetching, search, the browser.
    web: WebConfig = field(default_factory=WebConfig)
    # `tooldeck serve`: calls as tasks for MCP clients of the tasks extension.
    serve: ServeConfig = field(default_factory=ServeConfig)
    # The agent loop.
    agent: AgentConfig = field(default_factory=AgentConfig)


def parse_config(data: Any, *, env: Mapping[str, str] | None = None, base_dir: str | None = None) -> Config:
    """Validate a config mapping (e.g. parsed from YAML); `${VAR}` is read from `env`."""
    return parse_config_as(Config, data, env=env, base_dir=base_dir)


def load_config(path: str | Path | None = None) -> Config:
    """Read `path`, or `./tooldeck.yaml` when present, or return the built-in defaults."""
    return load_config_as(Config, path)
