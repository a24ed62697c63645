"""The command line's exporter: OTLP/HTTP, only when the standard endpoint variable is set.

`configure_cli_exporter()` installs an SDK `TracerProvider` with a batch processor over the
OTLP/HTTP span exporter, which reads its endpoint, headers and timeout from the standard
`OTEL_EXPORTER_OTLP_*` variables; the spans left are flushed at exit. Without
`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` nothing is imported and
no connection is ever tried.
"""

from __future__ import annotations

import atexit
import os
import sys

ENDPOINT_VARS = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")


def configure_cli_exporter() -> bool:
    """Export the CLI's spans over OTLP/HTTP when an endpoint is set; whether it does."""
    if not any(os.environ.get(name) for name in ENDPOINT_VARS):
        return False
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    try:
        from opentelemetry import trace
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError as exc:
        name = next(n for n in ENDPOINT_VARS if os.environ.get(n))
        print(
            f"tooldeck: {name} is set, but tracing needs the otel extra "
            f"(pip install 'tooldeck[otel]'): {exc}; not exporting spans",
            file=sys.stderr,
        )
        return False
    # OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the default service name.
    named = os.environ.get("OTEL_SERVICE_NAME") or "service.name=" in os.environ.get(
        "OTEL_RESOURCE_ATTRIBUTES", ""
    )
    provider = TracerProvider(resource=Resource.create({} if named else {"service.name": "tooldeck"}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    atexit.register(provider.shutdown)  # flushes what the batch still holds
    return True


__all__ = ["ENDPOINT_VARS", "configure_cli_exporter"]
