//! Replay through the compiled ChessReferee on the in-process revm chain, in
//! moves per second, with the per-ply comparison on (event state byte for
//! byte, status, ply, history, stored commitment; see `GameDriver::play`).
//!
//! ```sh
//! cargo bench -p chessref-evm --bench replay
//! ```
//!
//! Groups (criterion prints elements = plies per second):
//! - `replay_revm/random_games`: 24 seeded random games of up to 160 plies,
//!   each created, joined, played move by move and resigned; a fresh chain and
//!   referee per iteration (deployment included).
//! - `replay_revm/move_tx_only`: the bare move transactions of the same games
//!   without the Rust mirror, to show what the comparison costs.

use std::hint::black_box;
use std::time::Duration;

use alloy_primitives::{Address, U256};
use chessref_core::{Move, PgnGame, RawMove, State};
use chessref_evm::{Chain, GameSetup, Position, Referee, Replayer, RevmChain};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Seeded random games as PGN games (SAN), each resigned by black at its end.
fn random_games(
    count: usize,
    max_plies: usize,
    seed: u64,
) -> (Vec<PgnGame>, Vec<Vec<Move>>, usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (mut games, mut lines, mut plies) = (Vec::new(), Vec::new(), 0);
    for index in 1..=count {
        let mut state = State::initial();
        let (mut sans, mut moves) = (Vec::new(), Vec::new());
        while moves.len() < max_plies && !state.status().is_over() {
            let legal = state.legal_moves();
            let mv = legal[rng.random_range(0..legal.len())];
            sans.push(state.san(mv).expect("legal"));
            moves.push(mv);
            state = state.play(mv).expect("legal");
        }
        plies += moves.len();
        games.push(PgnGame {
            index,
            tags: Vec::new(),
            sans: sans.into(),
            result: Some("1-0".to_string()),
        });
        lines.push(moves);
    }
    (games, lines, plies)
}

fn bench(c: &mut Criterion) {
    let (games, lines, plies) = random_games(24, 160, 42);
    let mut group = c.benchmark_group("replay_revm");
    group.throughput(Throughput::Elements(plies as u64));
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("random_games", |b| {
        b.iter_batched(
            || Replayer::new(RevmChain::new()).expect("deploy"),
            |mut replayer| {
                for game in &games {
                    let report = replayer.replay(Ok(game.clone())).expect("replay");
                    assert!(report.mismatches.is_empty(), "{:?}", report.mismatches);
                }
                black_box(replayer.summary())
            },
            BatchSize::LargeInput,
        )
    });
    group.bench_function("move_tx_only", |b| {
        b.iter_batched(
            || Referee::deploy(RevmChain::new()).expect("deploy"),
            |mut referee| {
                let accounts = referee.chain().accounts().to_vec();
                let (white, black): (Address, Address) = (accounts[0], accounts[1]);
                for line in &lines {
                    let created = referee
                        .create_game(white, &GameSetup::eth(black, U256::ZERO))
                        .expect("create");
                    let joined = referee
                        .join_game(black, created.id, U256::ZERO)
                        .expect("join");
                    let mut position = Position {
                        state: created.state,
                        history: created.history,
                        clock: joined.clock,
                    };
                    for (i, &mv) in line.iter().enumerate() {
                        let player = if i % 2 == 0 { white } else { black };
                        position = referee
                            .play_move(player, created.id, &position, RawMove::from(mv).packed())
                            .expect("move")
                            .position;
                    }
                }
                black_box(referee)
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
