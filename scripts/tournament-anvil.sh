#!/usr/bin/env bash
# An 8-player knockout played to its end by `chessref tournament` processes on a local
# node (the README's "An 8-player knockout on anvil"; crates/chessref/tests/
# tournament_anvil.rs runs this very script and checks the chain after it).
#
# The organiser is anvil's account 0 (its well-known test key); the players are accounts
# 1 to 8, unlocked on the node. Every game is scripted:
#   - players 3 to 7 play fool's mate: as white `f3 g4`, as black `e5 Qh4#`;
#   - players 1 and 2 shuffle their knights: as white `Nf3 Ng1 Nf3 Ng1 draw` (claiming the
#     threefold repetition), as black `Nf6 Ng8 Nf6 Ng8`. Against fool's mate the other
#     side runs out of moves and resigns, so they win until they meet: exactly one game
#     is drawn, wherever the draw put them, and the lot decides its match;
#   - player 8 never starts: its opponent goes on by the first-move window (60 s, then
#     its 60 s clock and the 15 s grace) and claims the timeout. Player 8 runs `play`
#     only once the event is over, which then claims its prize.
# Then `show` prints the bracket, and the organiser claims and withdraws its fee.
#
# Environment: RPC (default http://127.0.0.1:8545), CHESSREF (the binary, default
# `chessref`), WORK (a directory for the deployments file, the move scripts and the
# players' logs; default a new temporary one). The node must mine blocks by itself as well
# as on each transaction (`anvil --block-time 1 --mixed-mining`): the draw and a lot read
# the hash of a block after the one that armed them.
set -euo pipefail

RPC=${RPC:-http://127.0.0.1:8545}
CHESSREF=${CHESSREF:-chessref}
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"
export CHESSREF_DEPLOYMENTS="$WORK/deployments.json"
ORGANISER_KEY=0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80
PLAYERS=(
  0x70997970C51812dc3A010C7d01b50e0d17dc79C8
  0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC
  0x90F79bf6EB2c4f870365E785982E1f101E93b906
  0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65
  0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc
  0x976EA74026E726554dB657fA54763abd0C3a0aa9
  0x14dC79964da2C08b23698B3D3cc7Ca32193d9955
  0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f
)

organiser() { CHESSREF_PRIVATE_KEY=$ORGANISER_KEY "$CHESSREF" "$@" --rpc "$RPC"; }
player() { local who=$1; shift; "$CHESSREF" "$@" --rpc "$RPC" --unlocked "${PLAYERS[$who - 1]}"; }

organiser deploy
created=$(organiser tournament create --size 8 --fee 0.01eth --time 60 --first-move-window 60 \
  --deadline 1h --split 4000,2000,1000,500 --organiser-fee 500)
echo "$created"
id=$(sed -n 's/^created event //p' <<<"$created")
for who in 1 2 3 4 5 6 7 8; do
  player "$who" tournament enter "$id"
done

printf 'white: Nf3 Ng1 Nf3 Ng1 draw\nblack: Nf6 Ng8 Nf6 Ng8\n' >"$WORK/knights.txt"
printf 'white: f3 g4\nblack: e5 Qh4#\n' >"$WORK/fools-mate.txt"
pids=()
for who in 1 2 3 4 5 6 7; do
  moves=$WORK/fools-mate.txt
  [ "$who" -le 2 ] && moves=$WORK/knights.txt
  player "$who" tournament play "$id" --moves "$moves" --poll-ms 250 --timeout 900 \
    >"$WORK/player-$who.log" 2>&1 &
  pids+=("$!")
done
echo "players 1-7 play event $id (logs in $WORK/player-N.log); player 8 does not start"
failed=0
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    echo "player $((i + 1)) failed:" >&2
    cat "$WORK/player-$((i + 1)).log" >&2
    failed=1
  fi
done
[ "$failed" = 0 ]
for who in 1 2 3 4 5 6 7; do
  echo "== player $who"
  grep -E '^(match|claiming|reported|credited|withdrew|event)' "$WORK/player-$who.log" || true
done
echo "== player 8, after the event"
player 8 tournament play "$id" --timeout 60

player 1 tournament show "$id"
organiser tournament claim-fee "$id"
