"""tooldeck's benchmarks: peer comparisons run from a checkout, never part of the installed package.

    python -m benchmarks NAME [options]     # NAME: see `python -m benchmarks --help`

Each benchmark measures its peers (Hermes Agent, pydantic-ai, ...) in the same run, in
alternation, and prints a table (or `--json`). Peers' virtual environments are built on demand
in a cache folder (`--cache DIR` or `TOOLDECK_BENCH_CACHE`); shared benchmark data is read from
`--shared DIR` or `TOOLDECK_SHARED` (default: the `shared` folder beside the checkout).
"""
