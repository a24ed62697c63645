"""Model clients behind one protocol: OpenAI-compatible Chat Completions, OpenAI Responses,
Anthropic Messages, and `ScriptedModel`, the in-process fake for tests."""
