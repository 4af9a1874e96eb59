//! Positions to compare on: the standard perft positions, the perft suites
//! of `../shared/data` when present, and seeded random games biased toward
//! castling, en passant, promotions and checks.

use std::{collections::HashSet, path::PathBuf};

use chessref_core::{Move, Role, State};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The chessprogramming-wiki perft positions (public facts) plus a few
/// starts rich in promotions, castling and en passant.
pub const START_FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "r3k2r/1b4bq/8/8/8/8/7B/R3K2R w KQkq - 0 1",
    "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1",
    "8/1P2k3/8/8/8/8/2p1K3/8 w - - 0 1",
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    // Castling in check, through check, into check, for both sides.
    "r3k2r/8/8/8/4r3/8/8/R3K2R w KQkq - 0 1",
    "r3k2r/8/8/8/8/5r2/8/R3K2R w KQkq - 0 1",
    "r3k2r/8/8/8/8/3r2r1/8/R3K2R w KQkq - 0 1",
    "r3k2r/8/8/4R3/8/8/8/R3K2R b KQkq - 0 1",
    "r3k2r/8/2R2R2/8/8/8/8/R3K2R b KQkq - 0 1",
    "r3k2r/8/8/8/8/5n2/8/R3K2R w KQkq - 0 1",
    "r3k2r/8/3N4/8/8/8/8/R3K2R b KQkq - 0 1",
    "r3k2r/8/8/8/1b6/8/8/R3K2R w KQkq - 0 1",
    "r3k2r/pppq1ppp/2n2n2/1B1pp1B1/1b1PP1b1/2N2N2/PPPQ1PPP/R3K2R w KQkq - 0 1",
    // Pawns one step from promotion on both sides.
    "4k3/PPP5/8/8/8/8/5ppp/K7 w - - 0 1",
    "1n2k3/P1P2P2/8/8/8/8/p5p1/1N2K3 b - - 0 1",
];

/// Where `../shared/data` lies relative to this crate (repo root's sibling).
pub fn shared_data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data")
}

/// The FENs of every perft suite in `../shared/data/perft`, or `None` when
/// the folder is absent (a fresh clone).
pub fn shared_perft_fens() -> Option<Vec<String>> {
    let dir = shared_data_dir().join("perft");
    let entries = std::fs::read_dir(&dir).ok()?;
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    let mut fens = Vec::new();
    for file in files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
    {
        let text = std::fs::read_to_string(file).ok()?;
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(fen) = line.split(';').next() {
                fens.push(fen.trim().to_string());
            }
        }
    }
    Some(fens)
}

/// How interesting a move is for the suite: rare rules get big weights.
fn weight(state: &State, mv: Move) -> u32 {
    let piece = state.piece_at(mv.from).map(|p| p.role);
    let file_delta = (mv.from.file() as i8 - mv.to.file() as i8).abs();
    let capture = state.piece_at(mv.to).is_some();
    let mut w = 1;
    if piece == Some(Role::King) && file_delta == 2 {
        w += 40;
    }
    if piece == Some(Role::Pawn) && file_delta == 1 && !capture {
        w += 40; // en passant
    }
    if mv.promotion.is_some() {
        w += 20;
    }
    if piece == Some(Role::Pawn) && (mv.from.rank() as i8 - mv.to.rank() as i8).abs() == 2 {
        w += 4; // double steps create en-passant chances
    }
    if capture {
        w += 2;
    }
    if state.play(mv).is_ok_and(|next| next.in_check()) {
        w += 8;
    }
    w
}

/// Positions of seeded random games from [`START_FENS`], biased toward
/// castling, en passant, promotions and checks; distinct, at most `count`.
pub fn random_game_positions(seed: u64, count: usize, max_plies: usize) -> Vec<State> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let starts: Vec<State> = START_FENS
        .iter()
        .map(|f| State::from_fen(f).expect("start FEN"))
        .collect();
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(count);
    let mut game = 0usize;
    while out.len() < count {
        let mut state = starts[game % starts.len()];
        game += 1;
        // Short and long games alike: openings of every start, and endgames.
        let plies = rng.random_range(max_plies / 6..=max_plies);
        for _ in 0..plies {
            if seen.insert(*state.as_bytes()) {
                out.push(state);
                if out.len() == count {
                    break;
                }
            }
            if state.status().is_over() {
                break;
            }
            let moves = state.legal_moves();
            let weights: Vec<u32> = moves.iter().map(|&m| weight(&state, m)).collect();
            let total: u32 = weights.iter().sum();
            let mut pick = rng.random_range(0..total);
            let mut chosen = moves[0];
            for (&m, &w) in moves.iter().zip(&weights) {
                if pick < w {
                    chosen = m;
                    break;
                }
                pick -= w;
            }
            state = state.play(chosen).expect("a legal move plays");
        }
    }
    out
}
