#!/usr/bin/env bash
# Set up, then run every check: ruff (lint + format), mypy --strict, and the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
# pytest exits 5 when it collected no test: that is a failure here, as any non-zero exit.
.venv/bin/pytest -q -p no:cacheprovider "$@"
