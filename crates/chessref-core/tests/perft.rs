//! Perft on the chessprogramming-wiki positions (initial, Kiwipete, positions
//! 3 to 6, and position 4 mirrored); node counts are public facts
//! (<https://www.chessprogramming.org/Perft_Results>).
//!
//! Also 14 "tricky" positions (illegal en passant, castling giving check,
//! promotions out of and into check, stalemate traps), each count recomputed
//! with shakmaty.
//!
//! The shallow depths (at most ~700,000 nodes each) always run. The deep ones
//! (every depth up to the last below 200 million nodes: about 760 million nodes
//! in all) are ignored in a debug build, where they would take hours, and run
//! when compiled with optimizations: `.ci/run` runs
//! `cargo test --release -p chessref-core --test perft`, so CI always runs them.

use chessref_core::{State, perft, perft_divide};

const INITIAL: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
const POS3: &str = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";
const POS4: &str = "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";
const POS4_MIRRORED: &str = "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1";
const POS5: &str = "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8";
const POS6: &str = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10";

/// Counts per depth, from depth 1.
const INITIAL_COUNTS: &[u64] = &[20, 400, 8_902, 197_281, 4_865_609, 119_060_324];
const KIWIPETE_COUNTS: &[u64] = &[48, 2_039, 97_862, 4_085_603, 193_690_690];
const POS3_COUNTS: &[u64] = &[14, 191, 2_812, 43_238, 674_624, 11_030_083, 178_633_661];
const POS4_COUNTS: &[u64] = &[6, 264, 9_467, 422_333, 15_833_292];
const POS5_COUNTS: &[u64] = &[44, 1_486, 62_379, 2_103_487, 89_941_194];
const POS6_COUNTS: &[u64] = &[46, 2_079, 89_890, 3_894_594, 164_075_551];

fn state(fen: &str) -> State {
    State::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

/// Checks depths `from..=to` (1-based) of `counts`.
fn check_depths(name: &str, fen: &str, counts: &[u64], from: u32, to: u32) {
    let s = state(fen);
    for depth in from..=to {
        let expected = counts[depth as usize - 1];
        let got = perft(&s, depth);
        assert_eq!(got, expected, "perft({name}, {depth}) for {fen}");
        println!("perft {name} depth {depth}: {got}");
    }
}

#[test]
fn shallow_initial() {
    check_depths("initial", INITIAL, INITIAL_COUNTS, 1, 4);
}

#[test]
fn shallow_kiwipete() {
    check_depths("kiwipete", KIWIPETE, KIWIPETE_COUNTS, 1, 3);
}

#[test]
fn shallow_pos3() {
    check_depths("pos3", POS3, POS3_COUNTS, 1, 5);
}

#[test]
fn shallow_pos4_and_mirror() {
    check_depths("pos4", POS4, POS4_COUNTS, 1, 3);
    check_depths("pos4-mirrored", POS4_MIRRORED, POS4_COUNTS, 1, 3);
}

#[test]
fn shallow_pos5() {
    check_depths("pos5", POS5, POS5_COUNTS, 1, 3);
}

#[test]
fn shallow_pos6() {
    check_depths("pos6", POS6, POS6_COUNTS, 1, 3);
}

#[test]
fn depth_zero_is_one_node() {
    assert_eq!(perft(&State::initial(), 0), 1);
}

#[test]
fn divide_sums_to_perft() {
    let s = state(KIWIPETE);
    let divide = perft_divide(&s, 2);
    assert_eq!(divide.len(), 48);
    assert_eq!(divide.iter().map(|(_, n)| n).sum::<u64>(), 2_039);
    let legal = s.legal_moves();
    for (mv, n) in &divide {
        assert!(legal.contains(mv), "divide lists {mv}, not a legal move");
        let child = s.play(*mv).expect("legal");
        assert_eq!(*n, perft(&child, 1), "divide count of {mv}");
    }
    // Known divide entries of the initial position at depth 3.
    let divide = perft_divide(&State::initial(), 3);
    let count = |uci: &str| {
        divide
            .iter()
            .find(|(m, _)| m.to_uci() == uci)
            .map(|(_, n)| *n)
    };
    assert_eq!(count("e2e4"), Some(600));
    assert_eq!(count("g1f3"), Some(440));
    assert_eq!(count("a2a3"), Some(380));
    assert_eq!(divide.iter().map(|(_, n)| n).sum::<u64>(), 8_902);
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "deep perft: run in release (cargo test --release -p chessref-core --test perft); .ci/run does"
)]
fn deep_initial() {
    check_depths("initial", INITIAL, INITIAL_COUNTS, 5, 6);
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "deep perft: run in release (cargo test --release -p chessref-core --test perft); .ci/run does"
)]
fn deep_kiwipete() {
    check_depths("kiwipete", KIWIPETE, KIWIPETE_COUNTS, 4, 5);
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "deep perft: run in release (cargo test --release -p chessref-core --test perft); .ci/run does"
)]
fn deep_pos3() {
    check_depths("pos3", POS3, POS3_COUNTS, 6, 7);
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "deep perft: run in release (cargo test --release -p chessref-core --test perft); .ci/run does"
)]
fn deep_pos4_and_mirror() {
    check_depths("pos4", POS4, POS4_COUNTS, 4, 5);
    check_depths("pos4-mirrored", POS4_MIRRORED, POS4_COUNTS, 4, 5);
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "deep perft: run in release (cargo test --release -p chessref-core --test perft); .ci/run does"
)]
fn deep_pos5() {
    check_depths("pos5", POS5, POS5_COUNTS, 4, 5);
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "deep perft: run in release (cargo test --release -p chessref-core --test perft); .ci/run does"
)]
fn deep_pos6() {
    check_depths("pos6", POS6, POS6_COUNTS, 4, 5);
}

/// Positions built to catch specific move-generator bugs (the perft suite
/// collected by Martin Sedlak on TalkChess, counts widely republished). Each
/// count is also recomputed with shakmaty 0.30.1, so a typo here cannot pass.
const TRICKY: &[(&str, &str, u32, u64)] = &[
    (
        "illegal en passant 1",
        "3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1",
        6,
        1_134_888,
    ),
    (
        "illegal en passant 2",
        "8/8/4k3/8/2p5/8/B2P2K1/8 w - - 0 1",
        6,
        1_015_133,
    ),
    (
        "en passant gives check",
        "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1",
        6,
        1_440_467,
    ),
    (
        "short castling gives check",
        "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
        6,
        661_072,
    ),
    (
        "long castling gives check",
        "3k4/8/8/8/8/8/8/R3K3 w Q - 0 1",
        6,
        803_711,
    ),
    (
        "castling rights",
        "r3k2r/1b4bq/8/8/8/8/7B/R3K2R w KQkq - 0 1",
        4,
        1_274_206,
    ),
    (
        "castling prevented",
        "r3k2r/8/3Q4/8/8/5q2/8/R3K2R b KQkq - 0 1",
        4,
        1_720_476,
    ),
    (
        "promote out of check",
        "2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1",
        6,
        3_821_001,
    ),
    (
        "discovered check",
        "8/8/1P2K3/8/2n5/1q6/8/5k2 b - - 0 1",
        5,
        1_004_658,
    ),
    (
        "promote to give check",
        "4k3/1P6/8/8/8/8/K7/8 w - - 0 1",
        6,
        217_342,
    ),
    (
        "underpromote to check",
        "8/P1k5/K7/8/8/8/8/8 w - - 0 1",
        6,
        92_683,
    ),
    ("self stalemate", "K1k5/8/P7/8/8/8/8/8 w - - 0 1", 6, 2_217),
    (
        "stalemate and checkmate 1",
        "8/k1P5/8/1K6/8/8/8/8 w - - 0 1",
        7,
        567_584,
    ),
    (
        "stalemate and checkmate 2",
        "8/8/2k5/5q2/5n2/8/5K2/8 b - - 0 1",
        4,
        23_527,
    ),
];

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "tricky perft (~12 million nodes): run in release (cargo test --release -p chessref-core --test perft); .ci/run does"
)]
fn tricky_positions() {
    use shakmaty::{CastlingMode, Chess, fen::Fen};
    for &(name, fen, depth, expected) in TRICKY {
        let theirs: Chess = Fen::from_ascii(fen.as_bytes())
            .expect("FEN")
            .into_position(CastlingMode::Standard)
            .expect("position");
        assert_eq!(
            shakmaty::perft(&theirs, depth),
            expected,
            "shakmaty disagrees with the published count: {name}"
        );
        assert_eq!(
            perft(&state(fen), depth),
            expected,
            "perft({name}, {depth}) for {fen}"
        );
    }
}

/// The same positions one ply shallower, always on (a few hundred thousand nodes).
#[test]
fn tricky_positions_shallow() {
    use shakmaty::{CastlingMode, Chess, fen::Fen};
    for &(name, fen, depth, _) in TRICKY {
        let theirs: Chess = Fen::from_ascii(fen.as_bytes())
            .expect("FEN")
            .into_position(CastlingMode::Standard)
            .expect("position");
        let depth = depth - 2;
        assert_eq!(
            perft(&state(fen), depth),
            shakmaty::perft(&theirs, depth),
            "perft({name}, {depth}) for {fen}"
        );
    }
}
