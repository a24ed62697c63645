"""`Deck`: a config, the registry filled from every source, and the assembler over them.

A thin façade for the CLI and for applications: `Deck.load("tooldeck.yaml").loadout()`.
It holds no policy of its own; sources, gates and rendering live in their own modules.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from tooldeck.assembly.loadout import Diagnostic, Loadout
from tooldeck.assembly.pipeline import Assembler
from tooldeck.config import Config, load_config
from tooldeck.errors import ConfigError, ToolConflictError
from tooldeck.registry import Registry
from tooldeck.sources.config_entries import load_entry
from tooldeck.sources.discovery import discover_package
from tooldeck.sources.entry_points import load_plugins
from tooldeck.tool import Tool

BUILTIN_PACKAGE = "tooldeck.tools"


@dataclass
class Deck:
    config: Config
    registry: Registry
    assembler: Assembler
    # What the sources reported while loading (skips, renames, failed plugins).
    notes: list[Diagnostic] = field(default_factory=list)

    @classmethod
    def load(cls, path: str | Path | None = None, *, builtins: bool = True) -> Deck:
        """Read the config (see `load_config`) and fill the registry from every source."""
        return cls.from_config(load_config(path), builtins=builtins)

    @classmethod
    def from_config(
        cls, config: Config, *, builtins: bool = True, extra_tools: list[Tool] | None = None
    ) -> Deck:
        registry = Registry()
        notes: list[Diagnostic] = []
        # Modules next to the config file are importable by `use:` and `discover:`.
        if config.base_dir and config.base_dir not in sys.path:
            sys.path.insert(0, config.base_dir)
        try:
            if builtins:
                found, n = discover_package(BUILTIN_PACKAGE, source="builtin")
                registry.register_many(found)
                notes += [d for d in n if d.level != "info"]
            for package in config.discover:
                found, n = discover_package(package, source="user")
                registry.register_many(found)
                notes += n
            if config.plugins.enabled:
                found, n = load_plugins(disabled=frozenset(config.plugins.disabled))
                registry.register_many(found)
                notes += n
            for i, entry in enumerate(config.tools):
                found, n = load_entry(entry, i)
                registry.register_many(found)
                notes += n
            registry.register_many(extra_tools or [])
        except ToolConflictError as exc:
            raise ConfigError(str(exc)) from None
        return cls(config, registry, Assembler(registry, config), notes)

    def loadout(self, platform: str | None = None) -> Loadout:
        return self.assembler.assemble(platform)

    def diagnostics(self, loadout: Loadout) -> list[Diagnostic]:
        """Source notes and assembly diagnostics together, without repeats."""
        return list(dict.fromkeys([*self.notes, *loadout.diagnostics]))
