//! The workloads both benchmark binaries measure, chessref-core and shakmaty side by side.

// Each benchmark binary compiles this module and uses a subset of it.
#![allow(dead_code)]

use std::io::Cursor;

use chessref_core::{PgnReader, State};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::fen::Fen;
use shakmaty::san::{San, SanPlus};
use shakmaty::{CastlingMode, Chess, Position};

pub const INITIAL: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
pub const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// Generated games for the replay benchmarks.
pub const GAMES: usize = 200;
pub const MAX_PLIES: usize = 200;

pub fn shakmaty_position(fen: &str) -> Chess {
    Fen::from_ascii(fen.as_bytes())
        .expect("FEN")
        .into_position(CastlingMode::Standard)
        .expect("position")
}

/// shakmaty perft without bulk counting: every move of the last ply is played.
pub fn shakmaty_perft_leafwise(pos: &Chess, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    pos.legal_moves()
        .iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            shakmaty_perft_leafwise(&child, depth - 1)
        })
        .sum()
}

/// Seeded random games from the initial position, as SAN tokens (shakmaty's
/// writer, with `+`/`#`), each until the game ends automatically or MAX_PLIES.
pub fn generate_games() -> Vec<Vec<String>> {
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    (0..GAMES)
        .map(|_| {
            let mut pos = Chess::default();
            let mut sans = Vec::new();
            while sans.len() < MAX_PLIES && !pos.is_game_over() && pos.halfmoves() < 150 {
                let moves = pos.legal_moves();
                let m = moves[rng.random_range(0..moves.len())];
                sans.push(SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string());
            }
            sans
        })
        .collect()
}

pub fn write_pgn(games: &[Vec<String>]) -> String {
    let mut text = String::new();
    for (i, sans) in games.iter().enumerate() {
        text.push_str(&format!(
            "[Event \"bench {}\"]\n[Site \"?\"]\n[Date \"2026.11.21\"]\n[Round \"{}\"]\n[White \"W\"]\n[Black \"B\"]\n[Result \"*\"]\n\n",
            i + 1,
            i + 1
        ));
        for (ply, san) in sans.iter().enumerate() {
            if ply % 2 == 0 {
                text.push_str(&format!("{}. ", ply / 2 + 1));
            }
            text.push_str(san);
            text.push(if ply % 16 == 15 { '\n' } else { ' ' });
        }
        text.push_str("*\n\n");
    }
    text
}

pub fn replay_ours(pgn: &[u8]) -> usize {
    let mut plies = 0;
    for game in PgnReader::new(Cursor::new(pgn)) {
        let game = game.expect("generated PGN reads");
        plies += game.replay().expect("generated PGN replays").plies();
    }
    plies
}

/// A minimal PGN movetext scanner for shakmaty (it has no PGN reader).
pub fn replay_shakmaty(pgn: &str, end_check: bool) -> usize {
    let mut plies = 0;
    let mut pos = Chess::default();
    for line in pgn.lines() {
        if line.starts_with('[') {
            continue;
        }
        for token in line.split_ascii_whitespace() {
            match token {
                "*" | "1-0" | "0-1" | "1/2-1/2" => {
                    pos = Chess::default();
                    continue;
                }
                t if t.ends_with('.') && t.as_bytes()[0].is_ascii_digit() => continue,
                _ => {}
            }
            if end_check {
                assert!(
                    !pos.is_game_over() && pos.halfmoves() < 150,
                    "move after the end"
                );
            }
            let san = SanPlus::from_ascii(token.as_bytes()).expect("SAN").san;
            let m = san.to_move(&pos).expect("legal");
            pos.play_unchecked(m);
            plies += 1;
        }
    }
    plies
}

/// What a user replaying SAN calls per move: `parse_san`, then `play` of the
/// `LegalMove` it returned (applied without a second legality check).
pub fn san_replay_ours(games: &[Vec<String>]) -> usize {
    let mut plies = 0;
    for sans in games {
        let mut state = State::initial();
        for san in sans {
            let mv = state.parse_san(san).expect("legal SAN");
            state = state.play(mv).expect("legal");
            plies += 1;
        }
    }
    plies
}

pub fn san_replay_shakmaty(games: &[Vec<String>]) -> usize {
    let mut plies = 0;
    for sans in games {
        let mut pos = Chess::default();
        for san in sans {
            let m = San::from_ascii(san.as_bytes())
                .expect("SAN")
                .to_move(&pos)
                .expect("legal");
            pos.play_unchecked(m);
            plies += 1;
        }
    }
    plies
}
