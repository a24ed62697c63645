"""The private core: sources, registry, assembly, dialects, session and the call path.

Nothing here is public API; its public face is `tooldeck.core` (and `tooldeck` for users).
"""
