"""The web tools: `web_extract` (pages as markdown or text) and `web_search` (a search service).

Every address a model names goes through `guard.NetworkPolicy` first: private, loopback,
link-local and cloud-metadata addresses are refused unless the config allows them. Modules here
import httpx, trafilatura and friends only inside the functions that use them.
"""
