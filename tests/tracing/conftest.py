"""Fixtures for the tracing tests: the application's `TracerProvider` (an SDK one, set once per
process, as an application would) recording into memory, the scripted model server, a temp
tooldeck home."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.fixtures import home, scripted_server  # noqa: F401

_EXPORTER = InMemorySpanExporter()
_attached = False


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    """The in-memory exporter behind the application's tracer provider, emptied for the test."""
    global _attached
    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    if not _attached:  # a provider set earlier in this process gets our exporter beside its own
        provider.add_span_processor(SimpleSpanProcessor(_EXPORTER))
        _attached = True
    _EXPORTER.clear()
    yield _EXPORTER
    _EXPORTER.clear()
