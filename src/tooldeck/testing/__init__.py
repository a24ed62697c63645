"""Fakes tooldeck ships for tests: a scripted model server that speaks the providers' wire
formats (`tooldeck.testing.scripted_server`). The in-process fake model is `tooldeck.ScriptedModel`."""
