#!/bin/sh
# Prints chessref-core / shakmaty throughput ratios from the last criterion run of
#   cargo bench -p chessref-core --bench vs_shakmaty
# (ratio > 1: chessref-core is faster). Both perft entries count in bulk at the
# last ply; see the header of vs_shakmaty.rs for what each side does.
# Bars (issue 19): perft >= 1, pgn_replay >= 1.5, san_replay (parse_san then play) >= 1.
set -eu
root=$(cd "$(dirname "$0")/../../.." && pwd)
dir="${CARGO_TARGET_DIR:-$root/target}/criterion"
# Medians: the machine is shared, and a load spike moves the mean more than the median.
median() { jq '.median.point_estimate' "$dir/$1/$2/new/estimates.json"; }
printf '%-20s %-22s %14s %14s %8s\n' group peer "chessref ns" "peer ns" ratio
for pair in perft_initial_d5:shakmaty perft_kiwipete_d4:shakmaty perft_initial_d5:shakmaty-leafwise \
            perft_kiwipete_d4:shakmaty-leafwise pgn_replay:shakmaty pgn_replay:shakmaty-no-end-check \
            san_replay:shakmaty; do
    group=${pair%%:*}
    peer=${pair#*:}
    if [ ! -f "$dir/$group/chessref-core/new/estimates.json" ] || [ ! -f "$dir/$group/$peer/new/estimates.json" ]; then
        echo "$group/$peer: no criterion results under $dir (run the bench first)" >&2
        continue
    fi
    ours=$(median "$group" chessref-core)
    theirs=$(median "$group" "$peer")
    # Same element count on both sides, so the throughput ratio is the inverse time ratio.
    awk -v g="$group" -v p="$peer" -v o="$ours" -v t="$theirs" \
        'BEGIN { printf "%-20s %-22s %14.0f %14.0f %8.2f\n", g, p, o, t, t / o }'
done
