"""The W3C trace context in an MCP request's `_meta` (`traceparent`, `tracestate`).

The MCP spec carries trace context in `params._meta` under the W3C header names. The client
side puts the current context there (`inject`); a server continues the trace it receives
(`continued`), unless a span is already current (the MCP SDK's own server span, which itself
continues the caller's trace).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from tooldeck.tracing.spans import enabled

if TYPE_CHECKING:
    from opentelemetry.context import Context


def inject(meta: dict[str, Any]) -> dict[str, Any]:
    """Add the current trace context to `meta` (when tracing is on and a span is current)."""
    if enabled():
        from opentelemetry.propagate import inject as otel_inject

        otel_inject(meta)
    return meta


def extract(meta: Any) -> Context | None:
    """The trace context a `_meta` carries (a dict or the SDK's model of it); None without one."""
    carrier = _as_mapping(meta)
    if not carrier or not enabled():
        return None
    from opentelemetry.propagate import extract as otel_extract
    from opentelemetry.trace import get_current_span

    context = otel_extract({k: v for k, v in carrier.items() if isinstance(v, str)})
    return context if get_current_span(context).get_span_context().is_valid else None


@contextlib.contextmanager
def continued(meta: Any) -> Iterator[None]:
    """Run the block in the trace `meta` carries, when no span is current already."""
    if not enabled():
        yield
        return
    from opentelemetry import context as otel_context
    from opentelemetry.trace import get_current_span

    received = None if get_current_span().get_span_context().is_valid else extract(meta)
    if received is None:
        yield
        return
    token = otel_context.attach(received)
    try:
        yield
    finally:
        otel_context.detach(token)


def _as_mapping(meta: Any) -> Mapping[str, Any] | None:
    if meta is None or isinstance(meta, Mapping):
        return meta
    dump = getattr(meta, "model_dump", None)  # the SDK's `RequestParamsMeta` (pydantic)
    return dump(by_alias=True, exclude_none=True) if callable(dump) else None


__all__ = ["continued", "extract", "inject"]
