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

# Node packages as locked (forge and anvil ship as npm binaries), by `npm install`,
# which honours the lock and the exact versions of package.json. The committed lock is
# the one `npm install` writes, with forge's and anvil's optional packages for every
# platform (darwin, linux-arm64 included), so installing leaves it as it is
# (scripts/test.sh fails on a work tree the tests changed).
# The native binaries are what scripts/foundry runs (never node_modules/.bin's
# wrappers, which hide exit codes).
if ! scripts/foundry --path forge >/dev/null 2>&1 || ! scripts/foundry --path anvil >/dev/null 2>&1 \
  || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm install --no-audit --no-fund --loglevel=error
fi

# rustfmt and clippy for the formatting and lint checks (part of the usual
# rustup profile; added if missing).
if ! cargo fmt --version >/dev/null 2>&1; then
  rustup component add rustfmt
fi
if ! cargo clippy --version >/dev/null 2>&1; then
  rustup component add clippy
fi

chmod +x scripts/solc-shim scripts/foundry
# Each tool must run: a failed version query stops the bootstrap here.
forge_version="$(scripts/foundry forge --version)"
anvil_version="$(scripts/foundry anvil --version)"
solc_version="$(scripts/solc-shim --version)"
echo "bootstrap: ${forge_version%%$'\n'*}"
echo "bootstrap: ${anvil_version%%$'\n'*}"
echo "bootstrap: ${solc_version##*$'\n'} (solc-js)"
echo "bootstrap: $(cargo --version)"
