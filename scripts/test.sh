#!/usr/bin/env bash
# Set up, then run every check: ruff (lint + format), mypy --strict, the whole test suite, and the
# strict build of the documentation site (a broken link or an unresolved API reference fails it).
# The suite runs on parallel workers (pytest-xdist; TOOLDECK_TEST_WORKERS, default twice the cores:
# many tests wait on the processes and servers they start, and a waiting worker leaves its core
# to another), each test with its own temp folders, tooldeck home and ports; mypy runs beside it,
# its cache kept with the package caches (mypy checks every cached module against its file, so a
# stale entry is rechecked). The tests that run `tooldeck` as a plain subprocess fork it from one
# warm server per worker (tests/support/warm_tooldeck.py: imported once, not once per command);
# TOOLDECK_TEST_WARM=0 runs the real console script everywhere instead.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Compiled modules are kept (__pycache__, ignored by git), even where the environment says not to
# write them: the suite starts many Python processes (the `tooldeck` command, MCP servers, test
# scripts) that import the checkout's src/, and each would compile every module it imports from
# source again (~0.3 s CPU a `tooldeck` command); pytest likewise keeps its rewritten test modules
# instead of rewriting them in every worker. Compiled once here, before the workers start, on
# every core: tooldeck's modules; the test modules as pytest rewrites them (warm_test_modules.py);
# and the installed packages the workers and their commands import (uv installs sources only, and
# four workers starting at once would each compile the same few thousand modules again).
unset PYTHONDONTWRITEBYTECODE
.venv/bin/python -m compileall -q -j 0 src benchmarks >/dev/null &
compiling=$!
.venv/bin/python scripts/warm_test_modules.py tests &
rewriting=$!
.venv/bin/python -c "import anthropic, openai, mcp.client.session, mcp.server, httpx, pydantic_ai, agents, \
langchain_core.tools, hypothesis, ray, jsonschema, numpy, tooldeck.cli.main"
wait "$compiling"
wait "$rewriting"
.venv/bin/ruff check .
.venv/bin/ruff format --check .

work="$(mktemp -d)"
mypy_pid=""
cleanup() {
  [ -z "$mypy_pid" ] || kill "$mypy_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
.venv/bin/mypy --cache-dir "${XDG_CACHE_HOME:-$HOME/.cache}/tooldeck-mypy" >"$work/mypy.log" 2>&1 &
mypy_pid=$!

# pytest exits 5 when it collected no test: that is a failure here, as any non-zero exit.
.venv/bin/pytest -q -p no:cacheprovider -n "${TOOLDECK_TEST_WORKERS:-$(( $(nproc) * 2 ))}" --dist loadgroup \
  --durations=20 "$@"

status=0
wait "$mypy_pid" || status=$?
mypy_pid=""
cat "$work/mypy.log"
[ "$status" = 0 ] || exit "$status"

# After the tests, which take the screenshot of `tooldeck inspect` the site shows. Into a
# temporary folder: the checkout keeps no build.
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --site-dir "$work/site"
