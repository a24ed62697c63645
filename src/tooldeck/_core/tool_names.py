"""What a tool's name may be and the kinds of source a tool comes from, lower winning a clash.

Below both the tool model and the config: the config checks names with them without importing
the `Tool` class, whose descriptions can look at a `Config`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
# Lower wins when two kinds of source offer the same name.
SOURCE_PRIORITY: Mapping[str, int] = {"config": 0, "user": 1, "builtin": 2, "mcp": 3, "plugin": 4, "acp": 5}
