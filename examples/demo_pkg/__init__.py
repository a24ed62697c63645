"""A package of tools found by `discover:` (source "user")."""
