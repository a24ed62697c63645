"""Reading several URLs for `web_extract`: fetched concurrently, each turned into text, and
reported one section per URL (an error in one section does not fail the others)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Literal

from tooldeck.errors import ErrorType, ToolError
from tooldeck.tools.web.extract import to_document
from tooldeck.tools.web.fetch import Fetched, FetchError, FetchLimits, fetch, new_client
from tooldeck.tools.web.guard import NetworkPolicy
from tooldeck.tools.web.userinfo import shown_url

if TYPE_CHECKING:
    import httpx

    from tooldeck.tools.web.config import WebConfig

Format = Literal["markdown", "text"]
_ACCEPT = "text/html,application/xhtml+xml,text/plain,text/markdown,application/json,application/pdf;q=0.9,*/*;q=0.5"
Outcome = tuple[Fetched, str | None, str] | FetchError


def policy_of(web: WebConfig) -> NetworkPolicy:
    return NetworkPolicy.of(web.allow_private_networks, web.allowed_networks)


def limits_of(web: WebConfig) -> FetchLimits:
    return FetchLimits(web.timeout_s, web.max_bytes, web.max_redirects, web.user_agent)


async def read_urls(urls: list[str], web: WebConfig, fmt: Format) -> str:
    policy, limits = policy_of(web), limits_of(web)
    async with new_client(limits) as client:
        outcomes = await asyncio.gather(*(_read_one(client, u, policy, limits, fmt) for u in urls))
    return report(list(zip(urls, outcomes, strict=True)), web.max_chars)


async def _read_one(
    client: httpx.AsyncClient, url: str, policy: NetworkPolicy, limits: FetchLimits, fmt: Format
) -> Outcome:
    try:
        fetched = await fetch(client, url, policy, limits, accept=_ACCEPT)
        # Extraction is CPU work (lxml, trafilatura): off the event loop, so URLs overlap.
        doc = await asyncio.to_thread(to_document, fetched, fmt)
    except FetchError as exc:
        return exc
    return fetched, doc.title, doc.text


def report(outcomes: list[tuple[str, Outcome]], max_chars: int) -> str:
    """One section per URL; the call fails only when every URL failed."""
    failures = [o for _, o in outcomes if isinstance(o, FetchError)]
    if len(failures) == len(outcomes):
        kinds = {f.kind for f in failures}
        kind: ErrorType = (
            "denied" if kinds == {"denied"} else "timeout" if kinds == {"timeout"} else "tool_error"
        )
        lines = [f"{shown_url(url)}: ({o.kind}) {o}" for url, o in outcomes if isinstance(o, FetchError)]
        raise ToolError("\n".join(lines), type=kind, retryable=all(f.retryable for f in failures))
    sections = []
    for url, outcome in outcomes:
        if isinstance(outcome, FetchError):
            sections.append(f"URL: {shown_url(url)}\nError ({outcome.kind}): {outcome}")
            continue
        fetched, title, text = outcome
        head = [f"# {title}" if title else None, f"URL: {fetched.final_url}"]
        if fetched.redirected:
            head.append(f"(redirected from {shown_url(url)})")
        head.append(f"Type: {fetched.content_type or 'unknown'}, {len(fetched.body)} bytes")
        if len(text) > max_chars:
            text = (
                text[:max_chars]
                + f"\n\n[content cut at {max_chars} of {len(text)} characters (web.max_chars)]"
            )
        sections.append("\n".join(h for h in head if h) + "\n\n" + (text or "(no text content)"))
    return "\n\n---\n\n".join(sections)
