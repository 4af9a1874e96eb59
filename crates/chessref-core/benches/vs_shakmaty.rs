//! chessref-core against shakmaty 0.30.1, measured in the same run.
//!
//! ```sh
//! cargo bench -p chessref-core --bench vs_shakmaty   # about 3 minutes
//! sh crates/chessref-core/benches/ratios.sh          # chessref/shakmaty throughput ratios
//! cargo bench -p chessref-core --bench ratios        # the same ratios measured interleaved (~30 s)
//! ```
//!
//! On a shared machine prefer the `ratios` bench for the ratios: it alternates
//! the two sides run by run, so a change of load does not favour either.
//!
//! Groups (each has a `chessref-core` and a `shakmaty` entry; criterion prints
//! elements per second, and `benches/ratios.sh` prints chessref/shakmaty):
//!
//! - `perft_initial_d5`, `perft_kiwipete_d4`: nodes per second of
//!   `chessref_core::perft` against `shakmaty::perft`. Both count in bulk at the
//!   last ply (the leaf count of depth 1 is the length of the legal move list;
//!   no move of the last ply is played). `shakmaty-leafwise` is shakmaty
//!   playing every last-ply move too, for reference.
//! - `pgn_replay`: plies per second reading PGN text of seeded random games and
//!   replaying it with the referee's rules. chessref-core: `PgnReader` (tags,
//!   move numbers, comments, results) and `PgnGame::replay` (SAN resolved on our
//!   generator, `check`, `play`, history and automatic-end status after every
//!   ply). shakmaty has no PGN reader, so its side is a minimal hand-written
//!   tokenizer over the same text (tag lines skipped, move numbers and results
//!   dropped) plus `SanPlus::from_ascii`, `San::to_move` (validation against its
//!   legal moves), `play_unchecked`, and the same automatic-end check before
//!   each ply (`is_game_over` or 150 halfmoves). `shakmaty-no-end-check` skips
//!   that check, for reference.
//! - `san_replay`: the same games as pre-split SAN tokens, parse + validate +
//!   apply only, through the public per-move API: `State::parse_san` (which
//!   returns a `LegalMove`) + `State::play` against `San::from_ascii` +
//!   `to_move` + `play_unchecked`; no end check on either side.

use std::hint::black_box;
use std::time::Duration;

use chessref_core::{State, perft};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

mod workloads;
use workloads::*;

fn bench_perft(c: &mut Criterion) {
    for (name, fen, depth, nodes) in [
        ("initial", INITIAL, 5, 4_865_609u64),
        ("kiwipete", KIWIPETE, 4, 4_085_603),
    ] {
        let ours = State::from_fen(fen).expect("FEN");
        let theirs = shakmaty_position(fen);
        assert_eq!(
            perft(&ours, depth),
            nodes,
            "chessref-core perft({name}, {depth})"
        );
        assert_eq!(
            shakmaty::perft(&theirs, depth),
            nodes,
            "shakmaty perft({name}, {depth})"
        );
        let mut group = c.benchmark_group(format!("perft_{name}_d{depth}"));
        group.throughput(Throughput::Elements(nodes));
        group.sample_size(10);
        group.bench_function("chessref-core", |b| {
            b.iter(|| perft(black_box(&ours), depth))
        });
        group.bench_function("shakmaty", |b| {
            b.iter(|| shakmaty::perft(black_box(&theirs), depth))
        });
        group.bench_function("shakmaty-leafwise", |b| {
            b.iter(|| shakmaty_perft_leafwise(black_box(&theirs), depth))
        });
        group.finish();
    }
}

fn bench_replay(c: &mut Criterion) {
    let games = generate_games();
    let total: usize = games.iter().map(Vec::len).sum();
    let pgn = write_pgn(&games);
    assert_eq!(replay_ours(pgn.as_bytes()), total);
    assert_eq!(replay_shakmaty(&pgn, true), total);
    assert_eq!(san_replay_ours(&games), total);
    assert_eq!(san_replay_shakmaty(&games), total);
    println!(
        "replay benchmarks: {GAMES} games, {total} plies, {} bytes of PGN",
        pgn.len()
    );

    let mut group = c.benchmark_group("pgn_replay");
    group.throughput(Throughput::Elements(total as u64));
    group.bench_function("chessref-core", |b| {
        b.iter(|| replay_ours(black_box(pgn.as_bytes())))
    });
    group.bench_function("shakmaty", |b| {
        b.iter(|| replay_shakmaty(black_box(&pgn), true))
    });
    group.bench_function("shakmaty-no-end-check", |b| {
        b.iter(|| replay_shakmaty(black_box(&pgn), false))
    });
    group.finish();

    let mut group = c.benchmark_group("san_replay");
    group.throughput(Throughput::Elements(total as u64));
    group.bench_function("chessref-core", |b| {
        b.iter(|| san_replay_ours(black_box(&games)))
    });
    group.bench_function("shakmaty", |b| {
        b.iter(|| san_replay_shakmaty(black_box(&games)))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4));
    targets = bench_perft, bench_replay
}
criterion_main!(benches);
