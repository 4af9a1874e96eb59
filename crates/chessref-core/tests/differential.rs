//! Differential test against shakmaty 0.30.1 (a dev-dependency only: it is GPL).
//!
//! Seeded random games, biased toward captures, promotions, castling and en
//! passant, are played in lockstep on a chessref [`State`] and a shakmaty
//! [`Chess`] position from a set of start positions (the standard perft
//! positions and a few edge-case ones). For every position reached:
//!
//! - the legal move sets are identical (shakmaty's moves written as standard
//!   UCI, castling as the king's two-square move);
//! - for every `(from, to)` with a piece of the side to move on `from` (all 64
//!   targets; pawn moves to the last rank with each promotion and with none;
//!   other moves with none and with a queen promotion; promotion bytes 1 and 6
//!   on the last rank), `State::check` accepts iff shakmaty lists the move as
//!   legal, `play` agrees with `check`, and a rejection has the code an
//!   independent model of section 6 (geometry from coordinates, occupancy,
//!   rights and attacks from shakmaty's board) gives;
//! - status (checkmate, stalemate, insufficient material, 75 moves), check,
//!   per-side insufficient material;
//! - FEN both ways: our FEN equals shakmaty's FEN written with
//!   `EnPassantMode::Always` (the en-passant square after every double step),
//!   shakmaty parses ours into an equal position, we parse shakmaty's into the
//!   same 128 bytes;
//! - the repetition key ignores the en-passant byte exactly when shakmaty says
//!   there is no legal en-passant capture (ENCODING.md section 9);
//! - every legal move played by both gives the same next position; our SAN of
//!   it equals shakmaty's (disambiguation, `+`/`#`, castling) and we parse
//!   shakmaty's SAN back to the same move;
//! - the repetition key is keccak256 of the section 9 bytes;
//! - perft to depth 2 (3 for every 40th position) equals shakmaty's, which
//!   exercises the make/unmake path behind `perft` rather than `play`.
//!
//! A second test draws random piece placements (most unreachable in a game:
//! many queens, triple checks, pawns everywhere): our validity verdict must
//! match shakmaty's (impossible checks and too much material count as valid,
//! as for the referee), and every valid one is compared as above.
//!
//! Runs 20,000 game positions (and 5,000 placements) when compiled with optimizations (CI runs it with
//! `--release`) and 10,000 (1,000) in a debug build; `CHESSREF_DIFF_POSITIONS` overrides
//! the number of game positions. The counts are printed (`--nocapture` shows them).

// shakmaty's PositionError carries the whole position; that is its API, not ours.
#![allow(clippy::result_large_err)]

use std::collections::BTreeSet;

use alloy_primitives::keccak256;
use chessref_core::{Color, Move, RawMove, Role, Square, State, Status, perft};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

/// Fixed seed: the test is deterministic.
const SEED: u64 = 0x0c4e_55ef_2026_1121;

/// Random games stop after this many plies so that many start positions get
/// their turn; every third game may run longer, into the 75-move rule.
fn max_plies(game: usize) -> usize {
    if game.is_multiple_of(3) { 400 } else { 100 }
}

/// Start positions: the chessprogramming-wiki perft positions plus edge cases.
const START_FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    // Promotions on both sides, with captures onto the promotion rank.
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    // En passant pinned along the rank (the capture would expose the king).
    "8/8/8/KPp4r/8/8/8/7k w - c6 0 2",
    // En passant available, with castling rights on both sides.
    "r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 2",
    // Rook endgame 5 plies from the 75-move rule.
    "8/8/4k3/8/8/3RK3/8/8 w - - 145 100",
    // Minor-piece endings: insufficient-material borders.
    "8/8/4k3/8/2b5/8/3BK3/8 w - - 0 1",
    "8/8/4kn2/8/8/8/3QK3/8 w - - 0 1",
    "8/2p5/4k3/8/8/8/3NK3/8 w - - 0 1",
    // Queen against king: mates and stalemates.
    "k7/8/1Q6/8/8/8/8/6K1 w - - 0 1",
    "7k/5K2/8/6Q1/8/8/8/8 w - - 0 1",
    "8/8/8/8/8/2k5/2p5/2K5 w - - 0 1",
];

/// How many positions to compare: all 20,000 in an optimized build.
fn positions_wanted() -> usize {
    if let Ok(text) = std::env::var("CHESSREF_DIFF_POSITIONS") {
        return text
            .parse()
            .expect("CHESSREF_DIFF_POSITIONS must be a number");
    }
    if cfg!(debug_assertions) {
        10_000
    } else {
        20_000
    }
}

/// UCI text of a raw move on on-board squares (independent of the crate's own writer).
fn uci_of(from: u8, to: u8, promotion: u8) -> String {
    let name = |index: u8| format!("{}{}", (b'a' + (index & 7)) as char, 8 - (index >> 4));
    let suffix = match promotion {
        0 => "",
        2 => "n",
        3 => "b",
        4 => "r",
        5 => "q",
        other => panic!("no UCI letter for promotion {other}"),
    };
    format!("{}{}{}", name(from), name(to), suffix)
}

fn shakmaty_uci(m: shakmaty::Move) -> String {
    m.to_uci(CastlingMode::Standard).to_string()
}

fn shakmaty_fen(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Always).to_string()
}

fn to_shakmaty_color(c: Color) -> shakmaty::Color {
    match c {
        Color::White => shakmaty::Color::White,
        Color::Black => shakmaty::Color::Black,
    }
}

/// The status ENCODING.md section 8 prescribes, computed from shakmaty.
fn expected_status(pos: &Chess) -> Status {
    if pos.is_checkmate() {
        Status::Checkmate
    } else if pos.is_stalemate() {
        Status::Stalemate
    } else if pos.is_insufficient_material() {
        Status::InsufficientMaterial
    } else if pos.halfmoves() >= 150 {
        Status::SeventyFiveMoves
    } else {
        Status::Ongoing
    }
}

/// shakmaty's square for a 0x88 index on the board.
fn shak_square(index: u8) -> shakmaty::Square {
    shakmaty::Square::from_coords(
        shakmaty::File::new(u32::from(index & 7)),
        shakmaty::Rank::new(u32::from(7 - (index >> 4))),
    )
}

/// An independent model of ENCODING.md section 6 for a move whose origin holds a
/// piece of the side to move (codes 1 to 4 are settled by then): geometry from
/// coordinates, occupancy, rights and attacks from shakmaty's board, and for
/// code 14 shakmaty's own legality. Returns 0 for a legal move.
fn expected_code(pos: &Chess, legal: bool, from: u8, to: u8, promotion: u8) -> u8 {
    use shakmaty::{CastlingSide, Role as R, attacks};
    let board = pos.board();
    let us = pos.turn();
    let (f, t) = (shak_square(from), shak_square(to));
    if from == to {
        return 2;
    }
    if board.color_at(t) == Some(us) {
        return 5;
    }
    let role = board.role_at(f).expect("origin holds a piece");
    let df = i32::from(to & 7) - i32::from(from & 7);
    // Ranks grow toward rank 8; white moves up.
    let dr = i32::from(from >> 4) - i32::from(to >> 4);
    let forward = if us == shakmaty::Color::White { 1 } else { -1 };
    let home_rank = if us == shakmaty::Color::White { 1 } else { 6 };
    let king_home = if us == shakmaty::Color::White {
        shakmaty::Square::E1
    } else {
        shakmaty::Square::E8
    };
    let castling_side =
        (role == R::King && f == king_home && dr == 0 && df.abs() == 2).then_some(if df > 0 {
            CastlingSide::KingSide
        } else {
            CastlingSide::QueenSide
        });
    let geometry_ok = match role {
        R::Knight => (df.abs(), dr.abs()) == (1, 2) || (df.abs(), dr.abs()) == (2, 1),
        R::Bishop => df.abs() == dr.abs(),
        R::Rook => df == 0 || dr == 0,
        R::Queen => df.abs() == dr.abs() || df == 0 || dr == 0,
        R::King => df.abs().max(dr.abs()) == 1 || castling_side.is_some(),
        R::Pawn => {
            (df == 0 && dr == forward)
                || (df == 0 && dr == 2 * forward && f.rank().to_u32() == home_rank)
                || (df.abs() == 1 && dr == forward)
        }
    };
    if !geometry_ok {
        return 6;
    }
    let occupied = board.occupied();
    if let Some(side) = castling_side {
        let rook_corner = match (us, side) {
            (shakmaty::Color::White, CastlingSide::KingSide) => shakmaty::Square::H1,
            (shakmaty::Color::White, CastlingSide::QueenSide) => shakmaty::Square::A1,
            (shakmaty::Color::Black, CastlingSide::KingSide) => shakmaty::Square::H8,
            (shakmaty::Color::Black, CastlingSide::QueenSide) => shakmaty::Square::A8,
        };
        if !pos.castles().has(us, side) || board.piece_at(rook_corner) != Some(R::Rook.of(us)) {
            return 9;
        }
        if (attacks::between(f, rook_corner) & occupied).any() {
            return 7;
        }
        if pos.is_check() {
            return 10;
        }
        let crossed = attacks::between(f, t).first().expect("one square between");
        if board.attacks_to(crossed, !us, occupied).any() {
            return 11;
        }
    } else {
        let target_empty = board.piece_at(t).is_none();
        match role {
            R::Bishop | R::Rook | R::Queen if (attacks::between(f, t) & occupied).any() => {
                return 7;
            }
            R::Pawn if df == 0 && (!target_empty || (attacks::between(f, t) & occupied).any()) => {
                return 7;
            }
            R::Pawn if df != 0 && target_empty && pos.maybe_ep_square() != Some(t) => return 8,
            _ => {}
        }
    }
    let promotes = role == R::Pawn && (to >> 4 == 0 || to >> 4 == 7);
    if promotes && promotion == 0 {
        return 12;
    }
    if ![0, 2, 3, 4, 5].contains(&promotion) || (!promotes && promotion != 0) {
        return 13;
    }
    if legal { 0 } else { 14 }
}

/// Counts of what was compared, printed at the end.
#[derive(Default, Debug)]
struct Counts {
    games: usize,
    positions: usize,
    legal_moves: usize,
    check_calls: usize,
    played_moves: usize,
    en_passant_positions: usize,
    en_passant_moves: usize,
    castling_moves: usize,
    promotion_moves: usize,
    checks: usize,
    by_status: [usize; 5],
    insufficient_sides: usize,
    perft_nodes: u64,
    /// Rejections seen, by section 6 code.
    by_code: [usize; 15],
}

/// Mismatches found; the first ones are kept verbatim for the failure message.
#[derive(Default)]
struct Mismatches {
    total: usize,
    shown: Vec<String>,
}

impl Mismatches {
    fn push(&mut self, what: String) {
        self.total += 1;
        if self.shown.len() < 40 {
            self.shown.push(what);
        }
    }
}

/// Compares one position in every respect listed in the module documentation.
fn compare_position(state: &State, pos: &Chess, counts: &mut Counts, bad: &mut Mismatches) {
    counts.positions += 1;
    let fen = shakmaty_fen(pos);

    // FEN, both ways.
    let ours = state.fen();
    if ours != fen {
        bad.push(format!("FEN text: ours {ours:?}, shakmaty {fen:?}"));
    }
    let reread = Fen::from_ascii(ours.as_bytes()).map(|f| {
        f.into_position::<Chess>(CastlingMode::Standard)
            .or_else(|e| e.ignore_impossible_check())
            .or_else(|e| e.ignore_too_much_material())
    });
    match reread {
        Ok(Ok(parsed)) if parsed == *pos => {}
        Ok(Ok(_)) => bad.push(format!(
            "{fen}: shakmaty reads our FEN {ours:?} as a different position"
        )),
        other => bad.push(format!(
            "{fen}: shakmaty cannot read our FEN {ours:?}: {other:?}"
        )),
    }
    match State::from_fen(&fen) {
        Ok(parsed) if parsed == *state => {}
        Ok(parsed) => bad.push(format!(
            "{fen}: our FEN import gives {} (hex {}), play gave hex {}",
            parsed.fen(),
            parsed.to_hex(),
            state.to_hex()
        )),
        Err(e) => bad.push(format!("{fen}: our FEN import rejects shakmaty's FEN: {e}")),
    }
    if State::from_hex(&state.to_hex()).as_ref() != Ok(state)
        || State::from_bytes(state.as_bytes()).as_ref() != Ok(state)
    {
        bad.push(format!(
            "{fen}: hex or byte round trip fails for {}",
            state.to_hex()
        ));
    }
    if to_shakmaty_color(state.turn()) != pos.turn() {
        bad.push(format!("{fen}: side to move differs"));
    }
    let expected_ply =
        2 * (pos.fullmoves().get() - 1) + u32::from(pos.turn() == shakmaty::Color::Black);
    if u32::from(state.ply()) != expected_ply.min(16383) {
        bad.push(format!(
            "{fen}: ply {} expected {expected_ply}",
            state.ply()
        ));
    }
    if u32::from(state.halfmove_clock()) != pos.halfmoves().min(255) {
        bad.push(format!(
            "{fen}: halfmove clock {} expected {}",
            state.halfmove_clock(),
            pos.halfmoves()
        ));
    }

    // Legal move sets.
    let theirs: BTreeSet<String> = pos.legal_moves().iter().map(|&m| shakmaty_uci(m)).collect();
    let our_moves = state.legal_moves();
    let ours_set: BTreeSet<String> = our_moves
        .iter()
        .map(|m| {
            uci_of(
                m.from.index(),
                m.to.index(),
                m.promotion.map_or(0, Role::code),
            )
        })
        .collect();
    if ours_set.len() != our_moves.len() {
        bad.push(format!(
            "{fen}: legal_moves has duplicates ({} moves, {} distinct)",
            our_moves.len(),
            ours_set.len()
        ));
    }
    if ours_set != theirs {
        let missing: Vec<_> = theirs.difference(&ours_set).collect();
        let extra: Vec<_> = ours_set.difference(&theirs).collect();
        bad.push(format!(
            "{fen}: legal moves differ: missing {missing:?}, extra {extra:?}"
        ));
    }
    counts.legal_moves += theirs.len();

    // check() on every (from, to) pair with a piece of the mover on `from`.
    let mover = state.turn();
    for from in (0u8..128).filter(|i| i & 0x88 == 0) {
        let from_sq = Square::new(from).expect("on board");
        let Some(piece) = state.piece_at(from_sq) else {
            continue;
        };
        if piece.color != mover {
            continue;
        }
        for to in (0u8..128).filter(|i| i & 0x88 == 0) {
            let last_rank = if mover == Color::White { 0 } else { 7 };
            let promotions: &[u8] = if piece.role == Role::Pawn && to >> 4 == last_rank {
                &[0, 2, 3, 4, 5, 1, 6]
            } else {
                &[0, 5]
            };
            for &promotion in promotions {
                counts.check_calls += 1;
                let raw = RawMove {
                    from,
                    to,
                    promotion,
                };
                let uci = if promotion <= 5 && promotion != 1 {
                    uci_of(from, to, promotion)
                } else {
                    format!("{}+promotion {promotion}", uci_of(from, to, 0))
                };
                let legal = promotion != 1 && promotion <= 5 && theirs.contains(&uci);
                let verdict = state.check(raw);
                let expected = expected_code(pos, legal, from, to, promotion);
                match (&verdict, legal) {
                    (Ok(mv), true) => {
                        let back = uci_of(
                            mv.from.index(),
                            mv.to.index(),
                            mv.promotion.map_or(0, Role::code),
                        );
                        if back != uci {
                            bad.push(format!("{fen}: check({uci}) accepted but returned {back}"));
                        }
                    }
                    (Ok(_), false) => {
                        bad.push(format!("{fen}: check accepts {uci}, shakmaty says illegal"))
                    }
                    (Err(code), true) => bad.push(format!(
                        "{fen}: check rejects {uci} with {} ({}), shakmaty says legal",
                        code.code(),
                        code.name()
                    )),
                    (Err(code), false) => {
                        counts.by_code[usize::from(code.code())] += 1;
                        if code.code() != expected {
                            bad.push(format!("{fen}: check({uci}) gave code {} ({}), the section 6 model says {expected}", code.code(), code.name()));
                        }
                    }
                }
                // play() must agree with check(); legal moves are compared below.
                if verdict.is_err() {
                    let played = state.play(raw);
                    if played.as_ref().err() != verdict.as_ref().err() {
                        bad.push(format!(
                            "{fen}: play({uci}) = {:?} but check = {verdict:?}",
                            played.map(|s| s.fen())
                        ));
                    }
                }
            }
        }
    }

    // Status, check, insufficient material.
    let status = state.status();
    let expected = expected_status(pos);
    if status != expected {
        bad.push(format!("{fen}: status {status:?}, expected {expected:?}"));
    }
    counts.by_status[status as usize] += 1;
    if state.in_check() != pos.is_check() {
        bad.push(format!(
            "{fen}: in_check {} but shakmaty {}",
            state.in_check(),
            pos.is_check()
        ));
    }
    if pos.is_check() {
        counts.checks += 1;
    }
    for color in [Color::White, Color::Black] {
        let ours = state.has_insufficient_material(color);
        let theirs = pos.has_insufficient_material(to_shakmaty_color(color));
        if ours != theirs {
            bad.push(format!(
                "{fen}: insufficient material for {color:?}: ours {ours}, shakmaty {theirs}"
            ));
        }
        counts.insufficient_sides += usize::from(theirs);
    }
    for color in [Color::White, Color::Black] {
        let king = state.king(color);
        let expected = pos
            .board()
            .king_of(to_shakmaty_color(color))
            .map(|sq| sq.to_string());
        if Some(king.to_string()) != expected {
            bad.push(format!(
                "{fen}: king({color:?}) = {king}, expected {expected:?}"
            ));
        }
    }

    // Repetition key (section 9): keccak256 of the bytes with 8, 9, 10 zeroed and
    // the en-passant byte zeroed unless shakmaty sees a legal en-passant capture.
    let mut keyed = *state.as_bytes();
    keyed[8] = 0;
    keyed[9] = 0;
    keyed[10] = 0;
    if pos.legal_ep_square().is_none() {
        keyed[61] = 0;
        keyed[77] = 0;
    }
    if state.repetition_key() != keccak256(keyed) {
        bad.push(format!(
            "{fen}: repetition key differs from section 9 (legal ep square {:?})",
            pos.legal_ep_square()
        ));
    }
    if pos.maybe_ep_square().is_some() {
        counts.en_passant_positions += 1;
        let mut bytes = *state.as_bytes();
        bytes[61] = 0;
        bytes[77] = 0;
        match State::from_bytes(&bytes) {
            Ok(cleared) => {
                let same_key = cleared.repetition_key() == state.repetition_key();
                let no_legal_ep = pos.legal_ep_square().is_none();
                if same_key != no_legal_ep {
                    bad.push(format!("{fen}: repetition key ignores the en-passant byte: {same_key}; shakmaty legal ep square: {:?}", pos.legal_ep_square()));
                }
            }
            Err(e) => bad.push(format!(
                "{fen}: clearing the en-passant byte gives an invalid state: {e}"
            )),
        }
    }

    // perft (the make/unmake path, not `play`) to depth 2, and 3 for every 40th position.
    let depth = if counts.positions.is_multiple_of(40) {
        3
    } else {
        2
    };
    let (ours, theirs) = (perft(state, depth), shakmaty::perft(pos, depth));
    if ours != theirs {
        bad.push(format!(
            "{fen}: perft({depth}) ours {ours}, shakmaty {theirs}"
        ));
    }
    counts.perft_nodes += theirs;

    // Every legal move played by both sides gives the same position, and SAN agrees both ways.
    for m in pos.legal_moves() {
        let uci = shakmaty_uci(m);
        counts.played_moves += 1;
        counts.en_passant_moves += usize::from(m.is_en_passant());
        counts.castling_moves += usize::from(m.is_castle());
        counts.promotion_moves += usize::from(m.is_promotion());
        let mut next = pos.clone();
        next.play_unchecked(m);
        let mv = Move::from_uci(&uci).expect("shakmaty writes valid UCI");
        let their_san = SanPlus::from_move(pos.clone(), m).to_string();
        match state.san(mv) {
            Ok(san) if san == their_san => {}
            other => bad.push(format!(
                "{fen}: SAN of {uci}: ours {other:?}, shakmaty {their_san:?}"
            )),
        }
        match state.parse_san(&their_san) {
            Ok(parsed) if parsed == mv => {}
            other => bad.push(format!(
                "{fen}: parse_san({their_san:?}) = {other:?}, expected {uci}"
            )),
        }
        match state.play(mv) {
            Ok(after) => {
                let expected = shakmaty_fen(&next);
                // All 128 bytes (king bytes included), not only what FEN shows.
                let expected_bytes = State::from_fen(&expected);
                if after.fen() != expected || expected_bytes.as_ref() != Ok(&after) {
                    bad.push(format!(
                        "{fen}: after {uci} ours {} (hex {}), shakmaty {expected}",
                        after.fen(),
                        after.to_hex()
                    ));
                }
            }
            Err(e) => bad.push(format!(
                "{fen}: play({uci}) rejected with {} ({})",
                e.code(),
                e.name()
            )),
        }
    }
}

/// Picks a move, weighting the special ones up so that they are well covered:
/// en passant, castling, promotions, captures, double steps (they create
/// en-passant squares) and checks (they lead to mates and stalemates).
fn pick_move(pos: &Chess, rng: &mut ChaCha8Rng) -> Option<shakmaty::Move> {
    let moves = pos.legal_moves();
    let weight = |m: &shakmaty::Move| -> u32 {
        let base = if m.is_en_passant() {
            40
        } else if m.is_castle() {
            25
        } else if m.is_promotion() {
            15
        } else if m.is_capture() {
            6
        } else if m.role() == shakmaty::Role::Pawn
            && m.from().is_some_and(|f| f.distance(m.to()) == 2)
        {
            4
        } else {
            1
        };
        let mut child = pos.clone();
        child.play_unchecked(*m);
        if child.is_check() { base * 4 } else { base }
    };
    let weights: Vec<u32> = moves.iter().map(weight).collect();
    let total: u32 = weights.iter().sum();
    if total == 0 {
        return None;
    }
    let mut ticket = rng.random_range(0..total);
    for (m, w) in moves.iter().zip(weights) {
        if ticket < w {
            return Some(*m);
        }
        ticket -= w;
    }
    unreachable!("ticket below the total weight")
}

#[test]
fn random_games_agree_with_shakmaty() {
    let wanted = positions_wanted();
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let mut counts = Counts::default();
    let mut bad = Mismatches::default();

    let mut start_index = 0;
    while counts.positions < wanted {
        let start_fen = START_FENS[start_index % START_FENS.len()];
        start_index += 1;
        counts.games += 1;
        let mut state = State::from_fen(start_fen).unwrap_or_else(|e| panic!("{start_fen}: {e}"));
        let mut pos: Chess = Fen::from_ascii(start_fen.as_bytes())
            .expect("valid FEN")
            .into_position(CastlingMode::Standard)
            .expect("valid position");

        for _ in 0..max_plies(counts.games) {
            if counts.positions >= wanted {
                break;
            }
            compare_position(&state, &pos, &mut counts, &mut bad);
            if expected_status(&pos) != Status::Ongoing {
                break;
            }
            let Some(m) = pick_move(&pos, &mut rng) else {
                break;
            };
            let uci = shakmaty_uci(m);
            match state.play(Move::from_uci(&uci).expect("valid UCI")) {
                Ok(next) => state = next,
                Err(e) => {
                    bad.push(format!(
                        "{}: game move {uci} rejected with {}; game abandoned",
                        shakmaty_fen(&pos),
                        e.code()
                    ));
                    break;
                }
            }
            pos.play_unchecked(m);
        }
    }

    println!("differential vs shakmaty 0.30.1: {counts:#?}");
    println!(
        "compared {} positions from {} seeded games (seed {SEED:#x}): {} legal moves, {} check() calls, {} moves played both ways, {} perft nodes",
        counts.positions,
        counts.games,
        counts.legal_moves,
        counts.check_calls,
        counts.played_moves,
        counts.perft_nodes
    );
    assert!(
        counts.positions >= wanted,
        "only {} positions compared",
        counts.positions
    );
    assert!(
        counts.en_passant_moves > 0
            && counts.castling_moves > 0
            && counts.promotion_moves > 0
            && counts.by_status.iter().all(|&n| n > 0)
            && counts.by_code[5..=14].iter().all(|&n| n > 0),
        "biasing failed: {counts:?}"
    );
    assert!(
        bad.total == 0,
        "{} mismatches with shakmaty; first ones:\n{}",
        bad.total,
        bad.shown.join("\n")
    );
}

/// A few hand-picked FENs whose peculiarities random games rarely reach.
#[test]
fn special_positions_agree_with_shakmaty() {
    let fens = [
        // Checkmate, stalemate, 75-move rule, insufficient material.
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
        "8/8/4k3/8/8/3RK3/8/8 b - - 150 120",
        "8/8/4k3/8/8/3RK3/8/8 b - - 149 120",
        "8/8/4k3/8/8/3BK3/8/8 b - - 0 1",
        "8/8/4kb2/8/8/3BK3/8/8 b - - 0 1",
        "8/8/4k1b1/8/8/3BK3/8/8 b - - 0 1",
        "8/8/4k3/8/8/3NK3/8/8 b - - 0 1",
        "8/8/4kq2/8/8/3NK3/8/8 b - - 0 1",
        "8/8/4kr2/8/8/3NK3/8/8 b - - 0 1",
        "8/8/4k3/8/8/2NNK3/8/8 b - - 0 1",
        "8/8/4kn2/8/8/3BK3/8/8 b - - 0 1",
        // Double check, en passant that resolves a check, en passant pinned diagonally.
        "4r1k1/8/8/8/3Q4/3n4/8/4K3 w - - 0 1",
        "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1",
        "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",
        "8/8/8/1k6/3Pp3/8/8/4KQ2 b - d3 0 1",
        // Castling with attacked b1 (allowed), attacked d1/f1 (not), rooks gone.
        "1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
        "3rk3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
    ];
    let mut counts = Counts::default();
    let mut bad = Mismatches::default();
    for fen in fens {
        let state = State::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        // Some of these checks cannot arise in a game (shakmaty calls them impossible);
        // the referee accepts them, so compare anyway.
        let pos: Chess = Fen::from_ascii(fen.as_bytes())
            .expect("FEN")
            .into_position(CastlingMode::Standard)
            .or_else(|e| e.ignore_impossible_check())
            .expect("position");
        compare_position(&state, &pos, &mut counts, &mut bad);
    }
    println!("special positions: {counts:?}");
    assert!(
        bad.total == 0,
        "{} mismatches:\n{}",
        bad.total,
        bad.shown.join("\n")
    );
}

/// A random piece placement as FEN (not necessarily a valid position): two
/// kings, up to 24 other pieces (pawns off the back ranks), random side to
/// move, every castling right whose king and rook stand at home with
/// probability 1/2, and an en-passant square when one fits, with probability 1/2.
fn random_placement_fen(rng: &mut ChaCha8Rng) -> String {
    let mut board = [' '; 64]; // index = rank * 8 + file, rank 0 = rank 1
    let mut empty: Vec<usize> = (0..64).collect();
    let place =
        |rng: &mut ChaCha8Rng, piece: char, board: &mut [char; 64], empty: &mut Vec<usize>| {
            let candidates: Vec<usize> = empty
                .iter()
                .copied()
                .filter(|&sq| !piece.eq_ignore_ascii_case(&'p') || (8..56).contains(&sq))
                .collect();
            let sq = candidates[rng.random_range(0..candidates.len())];
            empty.retain(|&e| e != sq);
            board[sq] = piece;
        };
    // Kings at home half of the time, so that castling rights are possible.
    for (king, home) in [('K', 4usize), ('k', 60)] {
        if rng.random_bool(0.5) && board[home] == ' ' {
            board[home] = king;
            empty.retain(|&e| e != home);
        } else {
            place(rng, king, &mut board, &mut empty);
        }
    }
    for (rook, corner) in [('R', 0usize), ('R', 7), ('r', 56), ('r', 63)] {
        if rng.random_bool(0.4) && board[corner] == ' ' {
            board[corner] = rook;
            empty.retain(|&e| e != corner);
        }
    }
    const PIECES: &[u8] = b"PPPPPPPPppppppppNNnnBBbbRRrrQq";
    for _ in 0..rng.random_range(0..24) {
        let piece = PIECES[rng.random_range(0..PIECES.len())] as char;
        place(rng, piece, &mut board, &mut empty);
    }
    let white = rng.random_bool(0.5);
    let mut castling = String::new();
    for (flag, king_sq, king, rook_sq, rook) in [
        ('K', 4, 'K', 7, 'R'),
        ('Q', 4, 'K', 0, 'R'),
        ('k', 60, 'k', 63, 'r'),
        ('q', 60, 'k', 56, 'r'),
    ] {
        if board[king_sq] == king && board[rook_sq] == rook && rng.random_bool(0.5) {
            castling.push(flag);
        }
    }
    // En passant: the side not to move just double-stepped a pawn.
    let (pawn, pushed_rank, passed_rank, from_rank) = if white {
        ('p', 4, 5, 6)
    } else {
        ('P', 3, 2, 1)
    };
    let ep_files: Vec<usize> = (0..8)
        .filter(|&f| {
            board[pushed_rank * 8 + f] == pawn
                && board[passed_rank * 8 + f] == ' '
                && board[from_rank * 8 + f] == ' '
        })
        .collect();
    let ep = if !ep_files.is_empty() && rng.random_bool(0.5) {
        let f = ep_files[rng.random_range(0..ep_files.len())];
        format!("{}{}", (b'a' + f as u8) as char, passed_rank + 1)
    } else {
        "-".to_owned()
    };
    let mut placement = String::new();
    for rank in (0..8).rev() {
        let mut gap = 0;
        for file in 0..8 {
            match board[rank * 8 + file] {
                ' ' => gap += 1,
                piece => {
                    if gap > 0 {
                        placement.push_str(&gap.to_string());
                        gap = 0;
                    }
                    placement.push(piece);
                }
            }
        }
        if gap > 0 {
            placement.push_str(&gap.to_string());
        }
        if rank > 0 {
            placement.push('/');
        }
    }
    let castling = if castling.is_empty() {
        "-".to_owned()
    } else {
        castling
    };
    let halfmove = if ep == "-" {
        rng.random_range(0..160)
    } else {
        0
    };
    format!(
        "{placement} {} {castling} {ep} {halfmove} {}",
        if white { 'w' } else { 'b' },
        rng.random_range(1..200)
    )
}

/// Random placements, most of them positions no game reaches: both sides must
/// agree on which are valid (shakmaty leniently: impossible checks and too much
/// material are valid for the referee), and the valid ones are compared like
/// game positions.
#[test]
fn random_placements_agree_with_shakmaty() {
    let wanted = if cfg!(debug_assertions) { 1_000 } else { 5_000 };
    let mut rng = ChaCha8Rng::seed_from_u64(SEED ^ 0xf00d);
    let mut counts = Counts::default();
    let mut bad = Mismatches::default();
    let (mut tried, mut refused) = (0usize, 0usize);
    while counts.positions < wanted {
        tried += 1;
        let fen = random_placement_fen(&mut rng);
        let ours = State::from_fen(&fen);
        let theirs = Fen::from_ascii(fen.as_bytes())
            .expect("well-formed FEN")
            .into_position::<Chess>(CastlingMode::Standard);
        let theirs = theirs
            .or_else(|e| e.ignore_impossible_check())
            .or_else(|e| e.ignore_too_much_material());
        match (ours, theirs) {
            (Ok(state), Ok(pos)) => compare_position(&state, &pos, &mut counts, &mut bad),
            (Err(_), Err(_)) => refused += 1,
            (Ok(_), Err(e)) => bad.push(format!(
                "{fen}: we accept it, shakmaty refuses: {:?}",
                e.kinds()
            )),
            (Err(e), Ok(_)) => bad.push(format!("{fen}: shakmaty accepts it, we refuse: {e}")),
        }
        if bad.total > 40 {
            break;
        }
    }
    println!("random placements: {tried} tried, {refused} refused by both, {counts:?}");
    assert!(
        bad.total == 0,
        "{} mismatches with shakmaty; first ones:\n{}",
        bad.total,
        bad.shown.join("\n")
    );
}
