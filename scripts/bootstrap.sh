#!/usr/bin/env bash
# Installs the pinned toolchain from a clean clone: Rust targets and the
# Solidity side (forge, anvil, solc-js from npm, versions in package-lock.json).
# Idempotent; CI and a new user run exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

need() { command -v "$1" >/dev/null 2>&1 || { echo "bootstrap: '$1' is required but not installed" >&2; exit 1; }; }
need cargo
need node
need npm

# Node packages as locked (forge and anvil ship as npm binaries). Not `npm ci`:
# the lock can never list forge's/anvil's darwin-amd64 and linux-arm64 optional
# packages (the registry has none), so `npm ci` refuses it as out of sync;
# `npm install` honours the lock and the exact versions of package.json.
if [ ! -x node_modules/.bin/forge ] || [ ! -x node_modules/.bin/anvil ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm install --no-audit --no-fund --loglevel=error
fi

# rustfmt for the formatting check (part of the usual rustup profile; added if missing).
if ! cargo fmt --version >/dev/null 2>&1; then
  rustup component add rustfmt
fi

chmod +x scripts/solc-shim
echo "bootstrap: $(node_modules/.bin/forge --version | head -1)"
echo "bootstrap: $(node_modules/.bin/anvil --version | head -1)"
echo "bootstrap: $(scripts/solc-shim --version | tail -1) (solc-js)"
echo "bootstrap: $(cargo --version)"
