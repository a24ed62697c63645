"""The version of tooldeck (what `tooldeck --version` prints and what clients are told)."""

__version__ = "0.2.0"
"""tooldeck's version."""
