"""Shared helpers that know nothing of tools: text, JSON lines, logging, paths, processes."""
