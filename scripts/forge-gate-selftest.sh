#!/usr/bin/env bash
# Proves that the forge this repository runs (scripts/foundry forge) reports
# failure: CI trusts forge's exit status for the contract tests, the gas
# snapshot, the size limit and compilation, so each of those failures is made
# on purpose here, in a scratch project outside the repository's sources, and
# this script fails loudly if forge exits 0 for any of them. A control run
# first proves the scratch project itself builds, passes and snapshots.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
forge() { "$root/scripts/foundry" forge "$@"; }

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/src" "$scratch/test/utils"
cp "$root/contracts/test/utils/Test.sol" "$scratch/test/utils/Test.sol"
cat >"$scratch/foundry.toml" <<TOML
[profile.default]
src = "src"
test = "test"
out = "out"
cache_path = "cache"
solc = "$root/scripts/solc-shim"
offline = true
evm_version = "prague"
optimizer = true
optimizer_runs = 200
TOML
cat >"$scratch/src/Counter.sol" <<'SOL'
// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

contract Counter {
    uint256 public count;

    function bump() external {
        count += 1;
    }
}
SOL
cat >"$scratch/test/Counter.t.sol" <<'SOL'
// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Test} from "./utils/Test.sol";
import {Counter} from "../src/Counter.sol";

contract CounterTest is Test {
    function test_bump() public {
        Counter c = new Counter();
        c.bump();
        assertEq(c.count(), 1);
    }
}
SOL

log="$scratch/forge.log"
passed=0
failed=0
# expect OUTCOME WHAT PATTERN ARGS...: runs forge ARGS in the scratch project.
# OUTCOME "pass" must exit 0; "fail" must exit non-zero and print PATTERN (an
# extended regular expression), so that a failure for some other reason (a
# broken scratch project, a missing compiler) cannot pass for the gate working.
expect() {
  local outcome="$1" what="$2" pattern="$3"
  shift 3
  local status=0
  (cd "$scratch" && forge "$@") >"$log" 2>&1 || status=$?
  local ok=false
  if [ "$outcome" = pass ] && [ "$status" = 0 ]; then ok=true; fi
  if [ "$outcome" = fail ] && [ "$status" != 0 ] && grep -Eq "$pattern" "$log"; then ok=true; fi
  if $ok; then
    passed=$((passed + 1))
    echo "forge gate: ok: $what (forge $*: exit $status)"
  else
    failed=$((failed + 1))
    echo "forge gate: BROKEN: $what (forge $*: exit $status, expected to $outcome${pattern:+ saying /$pattern/})" >&2
    tail -20 "$log" >&2
  fi
}

expect pass "a sound project builds" "" build --sizes
expect pass "a passing test passes" "" test
expect pass "a gas snapshot is written" "" snapshot
expect pass "an unchanged gas snapshot checks" "" snapshot --check

# A changed gas figure.
cp "$scratch/.gas-snapshot" "$scratch/snapshot.good"
awk '{ if (match($0, /gas: [0-9]+/)) { n = substr($0, RSTART + 5, RLENGTH - 5) + 1; sub(/gas: [0-9]+/, "gas: " n) } print }' \
  "$scratch/snapshot.good" >"$scratch/.gas-snapshot"
if cmp -s "$scratch/snapshot.good" "$scratch/.gas-snapshot"; then
  echo "forge gate: BROKEN: could not alter the scratch gas snapshot" >&2
  exit 1
fi
expect fail "a changed gas figure fails the snapshot check" 'Diff in "CounterTest::test_bump\(\)"' snapshot --check
mv "$scratch/snapshot.good" "$scratch/.gas-snapshot"

# A failing test.
cat >"$scratch/test/Failing.t.sol" <<'SOL'
// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Test} from "./utils/Test.sol";

contract FailingTest is Test {
    function test_fails() public pure {
        assertEq(uint256(1), uint256(2));
    }
}
SOL
expect fail "a failing test fails forge test" "1 failing test" test
expect fail "a failing test fails forge snapshot --check" "1 failing test" snapshot --check
rm "$scratch/test/Failing.t.sol"

# A contract over the 24,576-byte limit (EIP-170): 25,000 bytes of constant data.
{
  printf '// SPDX-License-Identifier: MIT OR Apache-2.0\npragma solidity ^0.8.30;\n\ncontract Oversized {\n'
  printf '    function blob() external pure returns (bytes memory) {\n        return hex"'
  head -c 25000 /dev/zero | od -An -v -tx1 | tr -d ' \n'
  printf '";\n    }\n}\n'
} >"$scratch/src/Oversized.sol"
expect fail "a contract over 24 KiB fails forge build --sizes" "exceed the runtime size limit" build --sizes
rm "$scratch/src/Oversized.sol"

# A compile error.
printf '// SPDX-License-Identifier: MIT OR Apache-2.0\npragma solidity ^0.8.30;\n\ncontract Broken {\n    function f() external { uint256 x = ; }\n}\n' >"$scratch/src/Broken.sol"
expect fail "a compile error fails forge build" "src/Broken.sol:5" build
rm "$scratch/src/Broken.sol"

expect pass "the project is sound again" "" test

echo "forge gate: $passed passed, $failed failed"
if [ "$failed" != 0 ]; then
  echo "forge gate: forge can exit 0 on a failure: CI could not see failing contract tests" >&2
  exit 1
fi
