"""Plain helpers with no tool definitions: discovery skips this module without importing it."""


def shout(text: str) -> str:
    return text.upper()
