//! Whole-game gas, side by side: the same games played on-chain move by move
//! (today's referee: create, join and one transaction per move) and off-chain with
//! signed moves, settled in one transaction (create, join, settle: docs/CHANNEL.md).
//! Real games from `../shared/data/pgn/lichess_2025-05_sample.pgn` when the data is
//! beside the repository, else seeded random games. Prints a table; gas is
//! deterministic, so there is nothing to time.
//!
//! ```sh
//! cargo bench -p chessref-evm --bench channel_gas [-- GAMES]
//! ```

use std::path::PathBuf;

use alloy_primitives::U256;
use chessref_core::{Move, PgnReader, State};
use chessref_evm::channel_sim::settle_known_game;
use chessref_evm::{Chain, GameSetup, Referee, RevmChain};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn games(count: usize) -> (String, Vec<(Vec<Move>, u8)>) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/pgn/lichess_2025-05_sample.pgn");
    if let Ok(file) = std::fs::File::open(&path) {
        let mut out = Vec::new();
        for game in PgnReader::new(std::io::BufReader::new(file)).flatten() {
            let Ok(replay) = game.replay_prefix() else {
                continue;
            };
            if replay.error.is_some() {
                continue;
            }
            let result = match game.result.as_deref() {
                Some("1-0") => 1,
                Some("0-1") => 2,
                _ => 3,
            };
            out.push((replay.game.moves().to_vec(), result));
            if out.len() == count {
                break;
            }
        }
        return (
            format!(
                "the first {} games of lichess_2025-05_sample.pgn",
                out.len()
            ),
            out,
        );
    }
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let out = (0..count)
        .map(|_| {
            let mut state = State::initial();
            let mut moves = Vec::new();
            while moves.len() < 120 && !state.status().is_over() {
                let legal = state.legal_moves();
                let mv = legal[rng.random_range(0..legal.len())];
                state = state.play(mv).expect("legal");
                moves.push(mv);
            }
            (moves, 3)
        })
        .collect();
    (
        format!("{count} seeded random games (no ../shared/data)"),
        out,
    )
}

fn main() {
    let count = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(40);
    let (source, games) = games(count);
    let mut referee = Referee::deploy(RevmChain::new()).expect("deploy");
    let accounts = referee.chain().accounts().to_vec();
    let (white, black) = (accounts[1], accounts[2]);
    let stake = U256::from(1_000_000u64);
    // Warm both players' credit slots (as the README's per-operation figures assume).
    settle_known_game(&mut referee, [white, black], &[], 3).expect("warm-up");
    let (mut on_total, mut off_total, mut plies_total) = (0u64, 0u64, 0usize);
    let mut ratios = Vec::new();
    println!(
        "| game | plies | on-chain per move (create + join + moves) | off-chain (create + join + settle) | off / on |"
    );
    println!("|---:|---:|---:|---:|---:|");
    for (i, (moves, result)) in games.iter().enumerate() {
        // On-chain: the ordinary game, every move a transaction.
        let created = referee
            .create_game(white, &GameSetup::eth(black, stake))
            .expect("create");
        let joined = referee.join_game(black, created.id, stake).expect("join");
        let mut position = chessref_evm::Position {
            state: created.state,
            history: created.history,
            clock: joined.clock,
        };
        let mut on = created.receipt.gas_used + joined.receipt.gas_used;
        let mut state = State::initial();
        for mv in moves {
            let mover = if state.turn() == chessref_core::Color::White {
                white
            } else {
                black
            };
            let packed = chessref_core::RawMove::from(*mv).packed();
            let moved = referee
                .play_move(mover, created.id, &position, packed)
                .expect("a legal move");
            on += moved.receipt.gas_used;
            position = moved.position;
            state = state.play(*mv).expect("legal");
        }
        if !state.status().is_over() {
            on += referee
                .resign(if *result == 1 { black } else { white }, created.id)
                .expect("resign")
                .receipt
                .gas_used;
        }
        let (off, _) =
            settle_known_game(&mut referee, [white, black], moves, *result).expect("settle");
        let ratio = off as f64 / on as f64;
        println!(
            "| {} | {} | {on} | {off} | {ratio:.3} |",
            i + 1,
            moves.len()
        );
        on_total += on;
        off_total += off;
        plies_total += moves.len();
        ratios.push(ratio);
    }
    ratios.sort_by(f64::total_cmp);
    println!();
    println!(
        "{source}: {} games, {plies_total} plies; total gas on-chain {on_total}, off-chain {off_total}; ratio of totals {:.3}, median ratio {:.3}",
        games.len(),
        off_total as f64 / on_total as f64,
        ratios.get(ratios.len() / 2).copied().unwrap_or(0.0)
    );
}
