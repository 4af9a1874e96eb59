#!/usr/bin/env bash
# Corpus check over the real test data in ../shared/data (relative to the repo root):
# perft suites, rules cases, FEN cases and every PGN game (see that folder's README).
# The data lives outside the repository and is never copied in. Without it this
# script says so loudly and exits 0, except under CI (CI=true), where its absence
# is a failure.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
data="$(cd "$root/.." && pwd)/shared/data"

if [[ ! -d "$data" ]]; then
    echo "############################################################" >&2
    echo "## corpus check SKIPPED: no test data at $data" >&2
    echo "## (see the README: the shared data folder lives beside the repo)" >&2
    echo "############################################################" >&2
    if [[ "${CI:-}" == "true" ]]; then
        echo "corpus check: CI=true and the data is missing: failing" >&2
        exit 1
    fi
    exit 0
fi

cd "$root"
exec cargo run --release --quiet -p chessref-core --example corpus_check -- "$data"
