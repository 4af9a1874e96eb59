#!/usr/bin/env bash
# The main job: replay real games through ChessReferee on the in-process revm
# chain, every ply compared byte for byte with the Rust mirror (chessref-core).
#
#   scripts/main.sh                 every PGN under ../shared/data/pgn (or, if that
#                                   folder is absent, 200 seeded random games)
#   scripts/main.sh FILE.pgn ...    the given PGN files
#
# Needs only cargo: the contract bytecode is committed (crates/chessref-evm/artifacts).
# Exit status 1 if the contract and the mirror disagree anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --quiet -p chessref
bin=target/release/chessref

if [ "$#" -eq 0 ]; then
  data="$(cd .. && pwd)/shared/data/pgn"
  if [ ! -d "$data" ]; then
    echo "main: no PGN given and $data is absent: simulating 200 seeded random games instead" >&2
    exec "$bin" simulate --games 200 --seed 1
  fi
  mapfile -t files < <(find "$data" -name '*.pgn' | sort)
  echo "main: replaying ${#files[@]} PGN files from $data as one stream" >&2
  # One stream, one grand total; a blank line keeps games of adjacent files apart.
  for f in "${files[@]}"; do cat "$f" || exit 1; printf '\n\n'; done | "$bin" replay -
  statuses=("${PIPESTATUS[@]}")
  if [ "${statuses[0]}" != 0 ]; then
    echo "main: reading the PGN files failed" >&2
    exit 1
  fi
  exit "${statuses[1]}"
fi

status=0
for pgn in "$@"; do
  echo "== $pgn"
  "$bin" replay "$pgn" || status=1
done
exit "$status"
