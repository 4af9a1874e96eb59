#!/usr/bin/env bash
# Runs every test of the project from a clean clone (the README's test command).
# Installs the pinned toolchain first; needs only cargo, node and npm.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==== %s ====\n' "$*"; }
export CARGO_TERM_COLOR=never

step "toolchain"
bash scripts/bootstrap.sh

step "contracts: build, sizes, tests"
node_modules/.bin/forge build --sizes
node_modules/.bin/forge test

step "rust: all tests (release: perft and conformance need the speed)"
cargo test --release --workspace --locked

step "corpus check over ../shared/data"
bash scripts/corpus-check.sh
