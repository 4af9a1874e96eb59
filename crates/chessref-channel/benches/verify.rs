//! Off-chain verification speed: whole signed transcripts (every signature recovered,
//! every delegation checked, every move judged by chessref-core), in moves per second.
//!
//! ```sh
//! cargo bench -p chessref-channel --bench verify
//! cargo bench -p chessref-channel --bench verify --no-default-features --features signer  # k256, as in WASM
//! ```
//!
//! Two workloads: twenty random games of up to 80 plies, and one long real game (87
//! plies, both players on session keys, every move with its receipt, a signed
//! resignation: `long_game.rs`, the transcript the WASM bench verifies).

mod long_game;

use std::hint::black_box;

use alloy_primitives::{B256, U256};
use alloy_signer_local::PrivateKeySigner;
use chessref_channel::client::{OffChainGame, Seat};
use chessref_channel::{ChannelDomain, ChannelGame, NoPins, Transcript};
use chessref_core::{State, Status};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn key(rng: &mut ChaCha8Rng) -> PrivateKeySigner {
    loop {
        if let Ok(k) = PrivateKeySigner::from_bytes(&B256::from(rng.random::<[u8; 32]>())) {
            return k;
        }
    }
}

/// When the games start (unix seconds).
const JOINED_AT: u64 = 1_800_000_000;

/// Twenty random games of up to 80 plies, both sides signing moves and receipts with
/// session keys.
fn transcripts() -> Vec<Transcript> {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let domain = ChannelDomain {
        chain_id: 1,
        verifying_contract: [7u8; 20].into(),
    };
    (1..=20u64)
        .map(|id| {
            let (w, b, ws, bs) = (key(&mut rng), key(&mut rng), key(&mut rng), key(&mut rng));
            let game = ChannelGame {
                game_id: U256::from(id),
                white: w.address(),
                black: b.address(),
                initial_time: 600,
                increment: 2,
                response_window: 300,
                start_state: None,
            };
            let expires = game.key_expiry(JOINED_AT, 80);
            let white = Seat::with_session(w, ws, &domain, &game, expires).expect("signing");
            let black = Seat::with_session(b, bs, &domain, &game, expires).expect("signing");
            let mut clock = JOINED_AT;
            let mut g = OffChainGame::new(domain, game, white, black).expect("standard start");
            for _ in 0..80 {
                let state = State::from_bytes(&g.last().state).expect("valid");
                if state.status() != Status::Ongoing {
                    break;
                }
                let legal = state.legal_moves();
                clock += rng.random_range(0..10);
                g.play(legal[rng.random_range(0..legal.len())], clock)
                    .expect("legal");
                g.receipt(clock + 1).expect("signing");
            }
            g.transcript()
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let all = transcripts();
    let plies: u64 = all.iter().map(|t| t.moves.len() as u64).sum();
    let mut group = c.benchmark_group("channel");
    group.throughput(Throughput::Elements(plies));
    group.bench_function("verify_transcripts", |b| {
        b.iter(|| {
            for t in &all {
                let report = t.verify(&NoPins, JOINED_AT + 3_600).expect("verifiable");
                assert!(report.error.is_none());
                black_box(report);
            }
        })
    });
    let (long, now) = long_game::transcript();
    group.throughput(Throughput::Elements(long.moves.len() as u64));
    group.bench_function("verify_long_game", |b| {
        b.iter(|| {
            let report = long.verify(&NoPins, now).expect("verifiable");
            assert!(report.error.is_none());
            black_box(report);
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
