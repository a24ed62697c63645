from __future__ import annotations

from ..dialects.conftest import livemcp_tools  # noqa: F401
