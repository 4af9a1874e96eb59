#!/usr/bin/env bash
# Runs every test of the project from a clean clone (the README's test command).
# Installs what it needs first (pinned: npm packages from package-lock.json,
# Rust crates from Cargo.lock, the wasm target, wasm-bindgen-cli, Debian chromium,
# Debian postgresql for the tests that start a throwaway server).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==== %s (at %ss) ====\n' "$*" "$SECONDS"; }
export CARGO_TERM_COLOR=never

# The tests leave the work tree as they found it (no rewritten lock, no stray file that
# .gitignore does not name): compared at the end.
tree_before=""
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  tree_before=$(git status --porcelain)
fi

step "toolchain"
bash scripts/bootstrap.sh

step "postgresql: the server binaries the Postgres tests start (crates/chessref-pgtest)"
# Only initdb/pg_ctl/postgres are used, in a temporary directory per test; the package's
# own cluster service is never needed (scripts/main.sh does not need Postgres at all).
if ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
  bash scripts/apt-install.sh postgresql
fi
ls -d /usr/lib/postgresql/*/bin/initdb

step "contracts: forge reports failures (a failing test, a gas change, an oversized contract, a compile error)"
bash scripts/forge-gate-selftest.sh

step "contracts: formatting (forge fmt), build, sizes (each under 24 KiB), forge tests with the committed gas snapshot"
scripts/foundry forge fmt --check
scripts/foundry forge build --sizes
# Runs every forge test and fails if any fails or any deterministic test's gas
# differs from .gas-snapshot (regenerate with `scripts/gas-snapshot.sh` when a
# change is meant to move gas).
bash scripts/gas-snapshot.sh --check

step "contracts: committed ABI/bytecode artifacts are up to date"
bash scripts/build-contracts.sh --check

step "rust: formatting"
cargo fmt --all --check

step "rust: clippy, every crate, target and feature, warnings are errors (lints: [workspace.lints])"
cargo clippy --workspace --all-targets --all-features --locked --release -- -D warnings

step "rust: every workspace test (release: perft, differential and conformance need the speed)"
cargo test --release --workspace --locked

step "rust: the book with k256 recovery, as WASM builds it (no libsecp256k1: it keeps recovered keys)"
cargo test --release --locked -p chessref-channel --no-default-features --features signer --lib book::

step "rust: benchmarks still build (criterion; run them with cargo bench, see README)"
cargo bench --workspace --locked --no-run

step "off-chain play: signed transcripts and every settlement path on revm (chessref simulate --channel; exit 1 on any mismatch)"
# --now: the fixture's own time (its session keys expire; judged at the wall clock they would have)
cargo run --release --locked -q -p chessref -- channel verify tests/fixtures/channel-examples.json --now 1767225720
cargo run --release --locked -q -p chessref -- simulate --channel --games 70 --seed 7

step "knockout events on revm: every pairing, lot and prize against the mirror (chessref simulate --tournament; exit 1 on any mismatch)"
cargo run --release --locked -q -p chessref -- simulate --tournament --events 60 --seed 7

step "corpus check over ../shared/data"
bash scripts/corpus-check.sh

step "web: WASM package (node, Chromium), HTTP server, example page end to end"
bash scripts/web-test.sh

step "the work tree is as the tests found it"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  tree_after=$(git status --porcelain)
  if [ "$tree_after" != "$tree_before" ]; then
    echo "test: the tests changed the work tree (git status --porcelain):" >&2
    diff <(printf '%s\n' "$tree_before") <(printf '%s\n' "$tree_after") >&2 || true
    exit 1
  fi
fi

step "all passed"
