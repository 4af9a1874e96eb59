#!/usr/bin/env bash
# Compiles the contracts with the pinned forge (scripts/bootstrap.sh) and
# writes what crates/chessref-evm embeds: ABI, creation and deployed bytecode
# of each contract below, as crates/chessref-evm/artifacts/NAME.json (the
# Foundry artifact shape alloy's sol! macro reads). The artifacts are
# committed so `cargo build` needs neither node nor solc.
#
#   scripts/build-contracts.sh           rewrite the committed artifacts
#   scripts/build-contracts.sh --check   rebuild into a temp dir; exit 1 if the
#                                        committed artifacts are stale (CI)
set -euo pipefail
cd "$(dirname "$0")/.."

# contract name => source file (under the repository root)
SOURCES=(
  "ChessRulesView=contracts/src/ChessRulesView.sol"
  "ChessReferee=contracts/src/ChessReferee.sol"
  # The referee's rarely called functions and views, run by its fallback (DELEGATECALL).
  "ChessRefereeAnnex=contracts/src/ChessRefereeAnnex.sol"
  # The court of channel games; ChessReferee deploys it (its address: ChessReferee.channel()).
  "ChessChannel=contracts/src/ChessChannel.sol"
  # The channel's rarely called functions and views, run by its fallback (DELEGATECALL).
  "ChessChannelAnnex=contracts/src/ChessChannelAnnex.sol"
  # Holds ChessChannel's creation code; ChessReferee's constructor creates the channel from it.
  "ChessChannelBlueprint=contracts/src/ChessChannelBlueprint.sol"
  # Knockout events whose games the referee hosts; ChessReferee deploys it (ChessReferee.tournament()).
  "ChessTournament=contracts/src/ChessTournament.sol"
  # Holds ChessTournament's creation code; ChessReferee's constructor creates the tournament from it.
  "ChessTournamentBlueprint=contracts/src/ChessTournamentBlueprint.sol"
  # A tiny contract the harness's own tests use (deploy, value, events, errors, time).
  "Probe=crates/chessref-evm/tests/fixtures/Probe.sol"
  # A plain ERC-20 with symbol and decimals: the stake token of `chessref game` tests.
  "TestToken=crates/chessref-evm/tests/fixtures/TestToken.sol"
  # A one-owner ERC-1271 wallet that can change hands: simulate --channel's wallet player.
  "OwnerWallet=crates/chessref-evm/tests/fixtures/OwnerWallet.sol"
)
DEST=crates/chessref-evm/artifacts

mode=write
case "${1:-}" in
  "") ;;
  --check) mode=check ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac

# The native forge (scripts/foundry says why not node_modules/.bin/forge).
FORGE="$(scripts/foundry --path forge)" || exit 2

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

paths=()
for entry in "${SOURCES[@]}"; do
  src=${entry#*=}
  if [ ! -f "$src" ]; then
    echo "build-contracts: missing source $src" >&2
    exit 2
  fi
  paths+=("$src")
done

# A fresh cache and output dir: the result never depends on earlier builds.
"$FORGE" build --out "$tmp/out" --cache-path "$tmp/cache" "${paths[@]}" >"$tmp/forge.log" 2>&1 || {
  cat "$tmp/forge.log" >&2
  echo "build-contracts: forge build failed" >&2
  exit 1
}

mkdir -p "$tmp/artifacts"
for entry in "${SOURCES[@]}"; do
  name=${entry%%=*}
  src=${entry#*=}
  node - "$tmp/out/$(basename "$src")/$name.json" "$tmp/artifacts/$name.json" "$name" "$tmp/out" <<'JS'
const fs = require('fs');
const [input, output, name, out] = process.argv.slice(2);
const full = JSON.parse(fs.readFileSync(input, 'utf8'));
// ChessReferee's and ChessChannel's artifacts carry the ABI callers see at their address:
// their own functions and those their fallback runs from their annex (the annex's ABI
// without what the contract already declares: the shared events, errors and getters).
const annexOf = { ChessReferee: 'ChessRefereeAnnex', ChessChannel: 'ChessChannelAnnex' }[name];
if (annexOf) {
  const key = (e) => `${e.type} ${e.name || ''}(${(e.inputs || []).map((i) => i.type).join(',')})`;
  const own = new Set(full.abi.map(key));
  const annex = JSON.parse(fs.readFileSync(`${out}/${annexOf}.sol/${annexOf}.json`, 'utf8')).abi;
  full.abi = full.abi.concat(annex.filter((e) => e.type !== 'constructor' && !own.has(key(e))));
}
const code = (o) => {
  const hex = typeof o === 'string' ? o : o.object;
  if (!/^0x[0-9a-f]*$/.test(hex) || hex.length <= 2) throw new Error(`${name}: no bytecode`);
  return hex;
};
const artifact = {
  contractName: name,
  abi: full.abi,
  bytecode: { object: code(full.bytecode) },
  deployedBytecode: { object: code(full.deployedBytecode) },
};
fs.writeFileSync(output, JSON.stringify(artifact, null, 1) + '\n');
const size = (artifact.deployedBytecode.object.length - 2) / 2;
process.stdout.write(`${name}: ${size} bytes deployed\n`);
JS
done

if [ "$mode" = check ]; then
  if diff -r -q "$tmp/artifacts" "$DEST" >/dev/null 2>&1; then
    echo "build-contracts: committed artifacts in $DEST are up to date"
  else
    diff -r -q "$tmp/artifacts" "$DEST" >&2 || true
    echo "build-contracts: artifacts in $DEST are STALE: run scripts/build-contracts.sh and commit them" >&2
    exit 1
  fi
else
  mkdir -p "$DEST"
  rm -f "$DEST"/*.json
  cp "$tmp/artifacts"/*.json "$DEST"/
  echo "build-contracts: wrote $DEST"
fi
