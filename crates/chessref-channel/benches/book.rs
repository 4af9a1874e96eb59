//! What one relayed message costs a [`Book`] (the relay's check of a frame, issue 30):
//! a move and its receipt accepted at ply 10 and at ply 300 of the same game, so that
//! a cost growing with the game shows as a ratio above 1.
//!
//! ```sh
//! cargo bench -p chessref-channel --bench book
//! ```
//!
//! One random game of 300 plies (white on its wallet, black on a session key, every
//! move with its receipt, as the relay bench plays). For each measured ply the book
//! holding every earlier frame is cloned (not timed) and the ply's move and receipt are
//! accepted into the clone (timed), many times; the median and p99 are printed.

use std::hint::black_box;
use std::time::{Duration, Instant};

use alloy_primitives::{Address, U256, keccak256};
use alloy_signer_local::PrivateKeySigner;
use chessref_channel::book::frames_of;
use chessref_channel::client::{OffChainGame, Seat};
use chessref_channel::{Accepted, Book, ChannelDomain, ChannelGame, Frame};
use chessref_core::{State, Status};

const T0: u64 = 1_800_000_000;
const PLIES: usize = 300;
const ROUNDS: usize = 400;

fn key(label: &str) -> PrivateKeySigner {
    PrivateKeySigner::from_bytes(&keccak256(label)).expect("a key")
}

/// A game of `PLIES` plies from seed `seed`, or `None` if it ends before.
fn game(seed: u64) -> Option<OffChainGame> {
    let domain = ChannelDomain {
        chain_id: 5,
        verifying_contract: Address::repeat_byte(9),
    };
    let (w, b) = (key("white"), key("black"));
    let terms = ChannelGame {
        game_id: U256::from(11),
        white: w.address(),
        black: b.address(),
        initial_time: 36_000,
        increment: 1,
        response_window: 600,
        start_state: None,
    };
    let expires = terms.key_expiry(T0, 400);
    let black =
        Seat::with_session(b, key("black session"), &domain, &terms, expires).expect("signing");
    let mut g = OffChainGame::new(domain, terms, Seat::wallet(w), black).expect("start");
    let mut seed = seed;
    for ply in 1..=PLIES as u64 {
        let state = State::from_bytes(&g.last().state).ok()?;
        if state.status() != Status::Ongoing {
            return None;
        }
        let mut moves = state.legal_moves();
        moves.sort_by_key(|m| m.to_uci());
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let mv = moves[(seed >> 33) as usize % moves.len()];
        g.play(mv, T0 + 2 * ply).expect("a legal move");
        g.receipt(T0 + 2 * ply + 1).expect("signing");
    }
    Some(g)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let g = (1..1_000)
        .find_map(game)
        .expect("a random game reaches 300 plies");
    let frames = frames_of(&g.transcript());
    // Frame 0 is black's delegation; then each ply's move and receipt.
    let now = |frame: &Frame| T0 + 2 * u64::from(frame.ply()) + 2;
    let mut book = Book::new(g.domain, g.game.clone());
    let mut at = Vec::new();
    for (i, frame) in frames.iter().enumerate() {
        if i % 2 == 1 {
            at.push(book.clone());
        }
        assert!(
            matches!(book.accept(frame.clone(), now(frame)), Ok(Accepted::New(_))),
            "frame {i} refused"
        );
    }
    let mut medians = Vec::new();
    for ply in [10usize, 300] {
        let (mv, receipt) = (&frames[2 * ply - 1], &frames[2 * ply]);
        let mut times = Vec::with_capacity(ROUNDS);
        for _ in 0..ROUNDS {
            let mut b = at[ply - 1].clone();
            let started = Instant::now();
            let one = b.accept(mv.clone(), now(mv));
            let two = b.accept(receipt.clone(), now(receipt));
            times.push(started.elapsed());
            assert!(matches!(
                (one, two),
                (Ok(Accepted::New(_)), Ok(Accepted::New(_)))
            ));
            black_box(b);
        }
        times.sort();
        let median = percentile(&times, 0.5);
        medians.push(median);
        println!(
            "book: a move and its receipt at ply {ply}: median {:.1} us, p99 {:.1} us (both messages)",
            median.as_secs_f64() * 1e6,
            percentile(&times, 0.99).as_secs_f64() * 1e6,
        );
    }
    println!(
        "book: ply 300 / ply 10 = {:.2}",
        medians[1].as_secs_f64() / medians[0].as_secs_f64()
    );
}
