"""Benchmarks run by `tooldeck bench`."""
