"""The browser tools: Playwright driving Chromium, one context per session, every connection
through the address guard (see `proxy.py`). Playwright is imported only when a tool runs."""
