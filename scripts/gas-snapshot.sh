#!/usr/bin/env bash
# The committed forge gas snapshot (.gas-snapshot), in one place.
#
#   scripts/gas-snapshot.sh           rewrite .gas-snapshot (after a change meant to move gas)
#   scripts/gas-snapshot.sh --check   run the tests; fail if any fails or any figure differs (CI)
#
# Only the deterministic tests are snapshotted. The mean and median gas that
# forge records for a fuzz or invariant test depend on the inputs its fuzzer
# draws, and those depend on which other tests share the run (seen: the same
# commit, the same seed, different figures in a full run and a filtered one),
# so such a figure cannot be checked. Those tests still run here, and must pass.
set -euo pipefail
cd "$(dirname "$0")/.."

randomised='^(testFuzz|invariant)_'
case "${1:-}" in
  "") scripts/foundry forge snapshot --no-match-test "$randomised" ;;
  --check) scripts/foundry forge snapshot --check --no-match-test "$randomised" ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac
scripts/foundry forge test --match-test "$randomised"
