#!/usr/bin/env bash
# Set up, then run every check: ruff (lint + format), mypy --strict, the whole test suite, and the
# strict build of the documentation site (a broken link or an unresolved API reference fails it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
# pytest exits 5 when it collected no test: that is a failure here, as any non-zero exit.
.venv/bin/pytest -q -p no:cacheprovider "$@"
# After the tests, which take the screenshot of `tooldeck inspect` the site shows. Into a
# temporary folder: the checkout keeps no build.
site="$(mktemp -d)"
trap 'rm -rf "$site"' EXIT
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --site-dir "$site"
