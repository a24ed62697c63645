"""The two exception families of tooldeck.

    TooldeckError                 -- something is wrong (user misuse, bad config, tool failure)
      ├── ToolDefinitionError     -- a Tool could not be built (bad name, schema, option)
      ├── ToolConflictError       -- two owners claim one tool name in one source
      ├── ConfigError             -- tooldeck.yaml is invalid (carries the key path)
      ├── SourceError             -- a `use:` entry, plugin or package could not be loaded
      └── ToolsetError            -- unknown toolset or include cycle (strict mode)

    TooldeckSignal                -- control flow, not failure (approval needed, interrupt, ...)

Signals are raised to steer the run and are caught by the layer that asked for them; errors
are reported to the user (or, for tool failures, to the model as an error envelope).
"""

from __future__ import annotations


class TooldeckError(Exception):
    """Root of every tooldeck error."""


class ToolDefinitionError(TooldeckError, ValueError):
    """A tool definition is invalid; the message says which field and why."""


class ToolConflictError(TooldeckError):
    """Two owners claim the same tool name within one source."""


class ConfigError(TooldeckError):
    """The configuration is invalid.

    `path` is the dotted key path (``sandbox.kind``, ``tools[2].use``) when one is known.
    """

    def __init__(self, message: str, *, path: str | None = None) -> None:
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


class SourceError(TooldeckError):
    """A tool source (a `use:` reference, a plugin, a package) could not be loaded."""


class ToolsetError(TooldeckError):
    """A toolset name is unknown or toolsets include each other in a cycle (strict mode)."""


class TooldeckSignal(Exception):
    """Root of control-flow signals (approval needed, interrupt, ...)."""
