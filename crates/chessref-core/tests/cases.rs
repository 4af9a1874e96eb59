//! Hand-written cases for ENCODING.md: every rejection code 1 to 14 (section 6),
//! with the precedence when several apply; every invalid-state code 1 to 8
//! (section 7) from FEN and from edited bytes; the section 4 initial bytes and
//! the section 10 worked examples byte for byte; castling rights after rook
//! moves and corner captures; underpromotion; double check; pins; a knight
//! giving check; status (section 8).

// shakmaty's PositionError carries the whole position; that is its API, not ours.
#![allow(clippy::result_large_err)]

use std::collections::BTreeSet;

use chessref_core::{
    Color, FenError, InvalidState, Piece, RawMove, Rejection, Role, Square, State, StateError,
    Status,
};

/// Section 4, row by row.
const INITIAL_HEX: &str = concat!(
    "fcfefdfbfafdfefc0000000400000000",
    "ffffffffffffffff0000000000000000",
    "00000000000000000000000000000000",
    "00000000000000000100000000000000",
    "00000000000000000000000000000000",
    "00000000000000000000000000000000",
    "01010101010101010000000000000000",
    "04020305060302040000007400000000",
);

/// 0x88 index of a square name like `e4`.
fn sq(name: &str) -> u8 {
    let b = name.as_bytes();
    assert_eq!(b.len(), 2, "square name {name:?}");
    (b'8' - b[1]) * 16 + (b[0] - b'a')
}

/// A raw move from UCI-like text: `e2e4`, `b7b8` + explicit promotion byte.
fn raw(uci: &str, promotion: u8) -> RawMove {
    RawMove {
        from: sq(&uci[0..2]),
        to: sq(&uci[2..4]),
        promotion,
    }
}

fn state(fen: &str) -> State {
    State::from_fen(fen).unwrap_or_else(|e| panic!("test FEN {fen:?} rejected: {e}"))
}

/// Whether shakmaty 0.30.1 lists the move as legal (`None` for a move it cannot
/// express: off-board squares or a promotion byte outside 0, 2..=5). Cross-checks
/// the expectations written in this file.
fn shakmaty_says_legal(fen: &str, mv: RawMove) -> Option<bool> {
    use shakmaty::{CastlingMode, Chess, Position, fen::Fen};
    let on_board = |i: u8| i & 0x88 == 0;
    if !on_board(mv.from) || !on_board(mv.to) || ![0, 2, 3, 4, 5].contains(&mv.promotion) {
        return None;
    }
    let pos: Chess = Fen::from_ascii(fen.as_bytes())
        .expect("shakmaty reads the FEN")
        .into_position(CastlingMode::Standard)
        .or_else(|e| e.ignore_impossible_check())
        .or_else(|e| e.ignore_too_much_material())
        .unwrap_or_else(|e| panic!("shakmaty refuses {fen}: {e}"));
    let name = |i: u8| format!("{}{}", (b'a' + (i & 7)) as char, 8 - (i >> 4));
    let letter = ["", "", "n", "b", "r", "q"][usize::from(mv.promotion)];
    let uci = format!("{}{}{}", name(mv.from), name(mv.to), letter);
    Some(
        pos.legal_moves()
            .iter()
            .any(|m| m.to_uci(CastlingMode::Standard).to_string() == uci),
    )
}

/// Asserts `check` (and `play`, which must agree) give `expected` for the move.
#[track_caller]
fn assert_rejected(fen: &str, mv: RawMove, expected: Rejection) {
    assert_ne!(
        shakmaty_says_legal(fen, mv),
        Some(true),
        "test data: shakmaty says {mv:?} is legal in {fen}"
    );
    let s = state(fen);
    assert_eq!(s.check(mv), Err(expected), "check({mv:?}) in {fen}");
    assert_eq!(s.play(mv).err(), Some(expected), "play({mv:?}) in {fen}");
    assert_eq!(Rejection::from_code(expected.code()), Some(expected));
}

/// Asserts the move is legal, `check` returns it well-formed, `play` applies it
/// and `legal_moves` lists it.
#[track_caller]
fn assert_legal(fen: &str, mv: RawMove) -> State {
    assert_eq!(
        shakmaty_says_legal(fen, mv),
        Some(true),
        "test data: shakmaty says {mv:?} is illegal in {fen}"
    );
    let s = state(fen);
    let checked = s.check(mv).unwrap_or_else(|e| {
        panic!(
            "check({mv:?}) in {fen}: rejected with {} {}",
            e.code(),
            e.name()
        )
    });
    assert_eq!(
        RawMove::from(checked),
        mv,
        "check returns the move it accepted"
    );
    assert!(
        s.legal_moves().contains(&checked),
        "legal_moves lists {checked} in {fen}"
    );
    s.play(mv)
        .unwrap_or_else(|e| panic!("play({mv:?}) in {fen}: {e}"))
}

/// Plays UCI moves (all must be legal) from `fen`.
fn play_line(fen: &str, line: &[&str]) -> State {
    let mut s = state(fen);
    for uci in line {
        s = s
            .play(raw(uci, promotion_of(uci)))
            .unwrap_or_else(|e| panic!("{uci} in {}: {e}", s.fen()));
    }
    s
}

fn promotion_of(uci: &str) -> u8 {
    match uci.as_bytes().get(4) {
        None => 0,
        Some(b'n') => 2,
        Some(b'b') => 3,
        Some(b'r') => 4,
        Some(b'q') => 5,
        Some(other) => panic!("bad promotion letter {other}"),
    }
}

/// Bytes that differ, as `(index, before, after)`.
fn diff(before: &State, after: &State) -> Vec<(usize, u8, u8)> {
    before
        .as_bytes()
        .iter()
        .zip(after.as_bytes())
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(i, (a, b))| (i, *a, *b))
        .collect()
}

fn legal_set(s: &State) -> BTreeSet<String> {
    s.legal_moves().iter().map(|m| m.to_uci()).collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

const INITIAL: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

// ---------------------------------------------------------------- section 4, 10

#[test]
fn initial_state_is_section_4() {
    assert_eq!(State::initial().to_hex(), INITIAL_HEX);
    assert_eq!(State::from_hex(INITIAL_HEX).unwrap(), State::initial());
    assert_eq!(
        State::from_hex(&format!("0x{INITIAL_HEX}")).unwrap(),
        State::initial()
    );
    assert_eq!(state(INITIAL), State::initial());
    assert_eq!(State::initial().fen(), INITIAL);
    assert_eq!(
        State::from_bytes(State::initial().as_bytes()).unwrap(),
        State::initial()
    );
}

/// ENCODING.md section 10, shared with the server and WASM tests.
const WORKED_EXAMPLES: &str = include_str!("../../../tests/fixtures/encoding-examples.json");

#[test]
fn worked_examples_change_exactly_the_listed_bytes() {
    let fixture: serde_json::Value = serde_json::from_str(WORKED_EXAMPLES).unwrap();
    let examples = fixture["examples"].as_array().unwrap();
    assert_eq!(examples.len(), 4);
    for example in examples {
        let name = example["name"].as_str().unwrap();
        let mut s = state(example["fen"].as_str().unwrap());
        for step in example["moves"].as_array().unwrap() {
            let uci = step["uci"].as_str().unwrap();
            let mv = chessref_core::Move::from_uci(uci).unwrap();
            assert_eq!(
                s.san(mv).unwrap(),
                step["san"].as_str().unwrap(),
                "{name}: {uci}"
            );
            let next = s.play(mv).unwrap_or_else(|e| panic!("{name}: {uci}: {e}"));
            let expected: Vec<(usize, u8, u8)> =
                serde_json::from_value(step["changes"].clone()).unwrap();
            assert_eq!(diff(&s, &next), expected, "{name}: bytes changed by {uci}");
            s = next;
        }
        assert_eq!(s.fen(), example["finalFen"].as_str().unwrap(), "{name}");
    }
}

#[test]
fn corner_capture_then_castling_is_gone() {
    let after = state("r3k2r/8/8/8/8/8/6b1/R3K2R b KQkq - 0 1")
        .play(raw("g2h1", 0))
        .unwrap();
    // The king-side right went with the rook; the queen side is untouched.
    assert_eq!(
        after.check(raw("e1g1", 0)),
        Err(Rejection::CastlingNotAllowed)
    );
    assert!(after.check(raw("e1c1", 0)).is_ok());
}

// ---------------------------------------------------------------- section 6, codes 1..14

#[test]
fn code_01_off_board() {
    for mv in [
        RawMove {
            from: 8,
            to: sq("e4"),
            promotion: 0,
        }, // shadow board
        RawMove {
            from: sq("e2"),
            to: 128,
            promotion: 0,
        }, // past the array
        RawMove {
            from: sq("e2"),
            to: 127,
            promotion: 0,
        }, // shadow board, last byte
        RawMove {
            from: 0x88,
            to: sq("e4"),
            promotion: 0,
        }, // both high bits
        RawMove {
            from: 255,
            to: 255,
            promotion: 0,
        },
        RawMove {
            from: 8,
            to: 8,
            promotion: 0,
        }, // off board and same square: 1 first
        RawMove {
            from: 200,
            to: sq("e4"),
            promotion: 9,
        }, // off board and bad promotion: 1 first
        RawMove {
            from: sq("e4"),
            to: 0x7c,
            promotion: 0,
        }, // empty origin but off-board target: 1 first
    ] {
        assert_rejected(INITIAL, mv, Rejection::OffBoard);
    }
    assert_eq!(
        RawMove::from_packed(0x08_44_00),
        RawMove {
            from: 8,
            to: 0x44,
            promotion: 0
        }
    );
    assert_eq!(
        RawMove {
            from: 0x64,
            to: 0x44,
            promotion: 0
        }
        .packed(),
        0x64_44_00
    );
}

#[test]
fn code_02_same_square() {
    assert_rejected(INITIAL, raw("e2e2", 0), Rejection::SameSquare);
    assert_rejected(INITIAL, raw("e4e4", 0), Rejection::SameSquare); // before EMPTY_FROM
    assert_rejected(INITIAL, raw("e7e7", 0), Rejection::SameSquare); // before NOT_YOUR_PIECE
    assert_rejected(INITIAL, raw("e1e1", 0), Rejection::SameSquare);
}

#[test]
fn code_03_empty_from() {
    assert_rejected(INITIAL, raw("e3e4", 0), Rejection::EmptyFrom);
    assert_rejected(INITIAL, raw("e3e2", 0), Rejection::EmptyFrom); // before OWN_PIECE_ON_TARGET
    assert_rejected(INITIAL, raw("a5h4", 5), Rejection::EmptyFrom);
}

#[test]
fn code_04_not_your_piece() {
    assert_rejected(INITIAL, raw("e7e5", 0), Rejection::NotYourPiece);
    assert_rejected(INITIAL, raw("d8d1", 0), Rejection::NotYourPiece);
    let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1";
    assert_rejected(after_e4, raw("d2d4", 0), Rejection::NotYourPiece);
    assert_rejected(after_e4, raw("e4e5", 0), Rejection::NotYourPiece);
}

#[test]
fn code_05_own_piece_on_target() {
    assert_rejected(INITIAL, raw("d1e2", 0), Rejection::OwnPieceOnTarget);
    assert_rejected(INITIAL, raw("b1d2", 0), Rejection::OwnPieceOnTarget);
    assert_rejected(INITIAL, raw("a1b2", 0), Rejection::OwnPieceOnTarget); // before BAD_GEOMETRY
    assert_rejected(INITIAL, raw("e1g1", 0), Rejection::OwnPieceOnTarget); // castling pattern onto the knight
    assert_rejected(INITIAL, raw("e2d1", 0), Rejection::OwnPieceOnTarget);
}

#[test]
fn code_06_bad_geometry() {
    // Pieces on an open board.
    let open = "4k3/8/8/8/3Q4/8/8/R1B1K1N1 w - - 0 1";
    for mv in [
        "a1b3", "c1c4", "c1e4", "d4e6", "d4c7", "e1e3", "e1c3", "g1g2", "g1h4",
    ] {
        assert_rejected(open, raw(mv, 0), Rejection::BadGeometry);
    }
    for mv in ["a1a8", "c1h6", "d4h8", "d4a4", "e1d2", "g1f3"] {
        assert_legal(open, raw(mv, 0));
    }
    // Geometry comes before the blocked path.
    assert_rejected(INITIAL, raw("c1c3", 0), Rejection::BadGeometry);
    assert_rejected(INITIAL, raw("g1g3", 0), Rejection::BadGeometry);
    // Pawns: three steps, sideways, backwards, a double step off the initial rank, a wide diagonal.
    assert_rejected(INITIAL, raw("e2e5", 0), Rejection::BadGeometry);
    assert_rejected(INITIAL, raw("e2c3", 0), Rejection::BadGeometry);
    let pawn = "4k3/8/8/8/4P3/8/8/4K3 w - - 0 1";
    for mv in ["e4e3", "e4e6", "e4d3", "e4f4", "e4c6", "e4d6"] {
        assert_rejected(pawn, raw(mv, 0), Rejection::BadGeometry);
    }
    let black_pawn = "4k3/8/8/4p3/8/8/8/4K3 b - - 0 1";
    for mv in ["e5e6", "e5d6", "e5e3"] {
        assert_rejected(black_pawn, raw(mv, 0), Rejection::BadGeometry);
    }
    // Two king squares sideways is castling only for a king on e1/e8 going to g/c.
    assert_rejected(
        "4k3/8/8/8/8/8/8/R2K3R w - - 0 1",
        raw("d1f1", 0),
        Rejection::BadGeometry,
    );
    assert_rejected(
        "4k3/8/8/8/8/8/8/R2K3R w - - 0 1",
        raw("d1b1", 0),
        Rejection::BadGeometry,
    );
    assert_rejected(
        "4K3/8/8/8/8/8/8/k7 w - - 0 1",
        raw("e8g8", 0),
        Rejection::BadGeometry,
    );
    assert_rejected(
        "4K3/8/8/8/8/8/8/k7 w - - 0 1",
        raw("e8c8", 0),
        Rejection::BadGeometry,
    );
    assert_rejected(
        "8/8/8/8/8/8/8/K3k3 b - - 0 1",
        raw("e1g1", 0),
        Rejection::BadGeometry,
    );
    assert_rejected(
        "8/8/8/8/8/8/8/K3k3 b - - 0 1",
        raw("e1c1", 0),
        Rejection::BadGeometry,
    );
    assert_rejected(
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
        raw("e1h1", 0),
        Rejection::BadGeometry,
    );
}

#[test]
fn code_07_path_blocked() {
    assert_rejected(INITIAL, raw("a1a3", 0), Rejection::PathBlocked);
    assert_rejected(INITIAL, raw("f1h3", 0), Rejection::PathBlocked);
    assert_rejected(INITIAL, raw("d1d5", 0), Rejection::PathBlocked);
    assert_rejected(INITIAL, raw("d1h5", 0), Rejection::PathBlocked);
    // Pawn: the middle square of a double step, and stepping forward onto a piece (any colour).
    let blocked_middle = "4k3/8/8/8/8/4n3/4P3/4K3 w - - 0 1";
    assert_rejected(blocked_middle, raw("e2e4", 0), Rejection::PathBlocked);
    assert_rejected(blocked_middle, raw("e2e3", 0), Rejection::PathBlocked);
    let blocked_target = "4k3/8/8/8/4n3/8/4P3/4K3 w - - 0 1";
    assert_rejected(blocked_target, raw("e2e4", 0), Rejection::PathBlocked);
    assert_legal(blocked_target, raw("e2e3", 0));
    let black_blocked = "4k3/4p3/4N3/8/8/8/8/4K3 b - - 0 1";
    assert_rejected(black_blocked, raw("e7e6", 0), Rejection::PathBlocked);
    assert_rejected(black_blocked, raw("e7e5", 0), Rejection::PathBlocked);
    // Castling: every square between king and rook, including b1 which the king never crosses.
    assert_rejected(
        "r3k2r/8/8/8/8/8/8/R3KB1R w KQkq - 0 1",
        raw("e1g1", 0),
        Rejection::PathBlocked,
    );
    assert_rejected(
        "r3k2r/8/8/8/8/8/8/RN2K2R w KQkq - 0 1",
        raw("e1c1", 0),
        Rejection::PathBlocked,
    );
    assert_rejected(
        "r3k2r/8/8/8/8/8/8/R2QK2R w KQkq - 0 1",
        raw("e1c1", 0),
        Rejection::PathBlocked,
    );
    assert_rejected(
        "rN2k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
        raw("e8c8", 0),
        Rejection::PathBlocked,
    );
    assert_rejected(
        "r3kn1r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
        raw("e8g8", 0),
        Rejection::PathBlocked,
    );
    // Castling order is 9, 7, 10, 11: a lost right beats a blocked path, a blocked path beats check.
    assert_rejected(
        "r3k2r/8/8/8/8/8/8/R3KB1R w Qkq - 0 1",
        raw("e1g1", 0),
        Rejection::CastlingNotAllowed,
    );
    assert_rejected(
        "r3k2r/8/8/8/8/8/4r3/R3KB1R w KQkq - 0 1",
        raw("e1g1", 0),
        Rejection::PathBlocked,
    );
    // A blocked slider while in check: 7 before 14.
    assert_rejected(
        "4k3/8/8/8/8/7P/8/r3K2R w K - 0 1",
        raw("h1h5", 0),
        Rejection::PathBlocked,
    );
}

#[test]
fn code_08_no_capture_target() {
    assert_rejected(INITIAL, raw("e2d3", 0), Rejection::NoCaptureTarget);
    assert_rejected(INITIAL, raw("e2f3", 0), Rejection::NoCaptureTarget);
    let ep = "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3";
    assert_legal(ep, raw("d4e3", 0));
    assert_rejected(ep, raw("d4c3", 0), Rejection::NoCaptureTarget); // empty, not the en-passant square
    // The en-passant square only lasts one move.
    let later = play_line(ep, &["g8f6", "g1f3"]);
    assert_eq!(later.check(raw("d4e3", 0)), Err(Rejection::NoCaptureTarget));
    // A diagonal step forward onto an empty square by a black pawn.
    assert_rejected(
        "4k3/4p3/8/8/8/8/8/4K3 b - - 0 1",
        raw("e7d6", 0),
        Rejection::NoCaptureTarget,
    );
    // 8 before 14: in check (rook h1), a pawn steps diagonally onto an empty square.
    assert_rejected(
        "4k3/8/8/8/8/8/4P3/4K2r w - - 0 1",
        raw("e2d3", 0),
        Rejection::NoCaptureTarget,
    );
}

#[test]
fn code_09_castling_not_allowed() {
    // No right, no rook (a state cannot keep a right without its rook).
    let bare = "4k3/8/8/8/8/8/8/4K3 w - - 0 1";
    assert_rejected(bare, raw("e1g1", 0), Rejection::CastlingNotAllowed);
    assert_rejected(bare, raw("e1c1", 0), Rejection::CastlingNotAllowed);
    assert_rejected(
        "4k3/8/8/8/8/8/8/4K3 b - - 0 1",
        raw("e8g8", 0),
        Rejection::CastlingNotAllowed,
    );
    // Rook present, right lost.
    assert_rejected(
        "r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1",
        raw("e1g1", 0),
        Rejection::CastlingNotAllowed,
    );
    assert_rejected(
        "r3k2r/8/8/8/8/8/8/R3K2R w Kkq - 0 1",
        raw("e1c1", 0),
        Rejection::CastlingNotAllowed,
    );
    assert_rejected(
        "r3k2r/8/8/8/8/8/8/R3K2R b KQq - 0 1",
        raw("e8g8", 0),
        Rejection::CastlingNotAllowed,
    );
    assert_rejected(
        "r3k2r/8/8/8/8/8/8/R3K2R b KQk - 0 1",
        raw("e8c8", 0),
        Rejection::CastlingNotAllowed,
    );
    // The right goes when the rook leaves its corner, even if it comes back...
    let full = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    let s = play_line(full, &["h1h2", "a8a7", "h2h1", "a7a8"]);
    assert_eq!(s.fen(), "r3k2r/8/8/8/8/8/8/R3K2R w Qk - 4 3");
    assert_eq!(s.check(raw("e1g1", 0)), Err(Rejection::CastlingNotAllowed));
    assert!(s.check(raw("e1c1", 0)).is_ok());
    // ...and both go when the king moves.
    let s = play_line(full, &["e1f1", "e8d8", "f1e1", "d8e8"]);
    assert_eq!(s.fen(), "r3k2r/8/8/8/8/8/8/R3K2R w - - 4 3");
    assert_eq!(s.check(raw("e1g1", 0)), Err(Rejection::CastlingNotAllowed));
    assert_eq!(s.check(raw("e1c1", 0)), Err(Rejection::CastlingNotAllowed));
    // The rook captured on its corner (by a rook that then stands on the corner):
    // the right is gone, and 9 comes before 10 even though the king is in check.
    let s = play_line(full, &["a1a8"]);
    assert_eq!(s.fen(), "R3k2r/8/8/8/8/8/8/4K2R b Kk - 0 1");
    assert!(s.in_check());
    assert_eq!(s.check(raw("e8c8", 0)), Err(Rejection::CastlingNotAllowed));
    assert_eq!(s.check(raw("e8g8", 0)), Err(Rejection::CastlingInCheck));
    // Captured by a knight on the corner, then the knight leaves: rook missing, right gone.
    let s = play_line(
        "r3k2r/8/8/8/8/8/5n2/R3K2R b KQkq - 0 1",
        &["f2h1", "a1b1", "h1g3", "b1a1", "g3f5"],
    );
    assert_eq!(s.piece_at(Square::new(sq("h1")).unwrap()), None);
    assert_eq!(s.check(raw("e1g1", 0)), Err(Rejection::CastlingNotAllowed));
    assert_eq!(s.check(raw("e1c1", 0)), Err(Rejection::CastlingNotAllowed));
    // 9 before 11 (through check) and before 14 (into check).
    assert_rejected(
        "4kr2/8/8/8/8/8/8/R3K2R w Q - 0 1",
        raw("e1g1", 0),
        Rejection::CastlingNotAllowed,
    );
    assert_rejected(
        "4k1r1/8/8/8/8/8/8/R3K2R w Q - 0 1",
        raw("e1g1", 0),
        Rejection::CastlingNotAllowed,
    );
}

#[test]
fn code_10_castling_in_check() {
    let rook_check = "4k3/8/8/8/8/8/4r3/R3K2R w KQ - 0 1";
    assert_rejected(rook_check, raw("e1g1", 0), Rejection::CastlingInCheck);
    assert_rejected(rook_check, raw("e1c1", 0), Rejection::CastlingInCheck);
    let knight_check = "4k3/8/8/8/8/3n4/8/R3K2R w KQ - 0 1";
    assert_rejected(knight_check, raw("e1g1", 0), Rejection::CastlingInCheck);
    assert_rejected(knight_check, raw("e1c1", 0), Rejection::CastlingInCheck);
    // 10 before 11: the queen on e2 checks and also covers d1 and f1.
    let queen = "4k3/8/8/8/8/8/4q3/R3K2R w KQ - 0 1";
    assert_rejected(queen, raw("e1g1", 0), Rejection::CastlingInCheck);
    assert_rejected(queen, raw("e1c1", 0), Rejection::CastlingInCheck);
    // Black, checked by a bishop.
    assert_rejected(
        "r3k2r/8/8/1B6/8/8/8/4K3 b kq - 0 1",
        raw("e8g8", 0),
        Rejection::CastlingInCheck,
    );
}

#[test]
fn code_11_castling_through_check() {
    let f1 = "4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1";
    assert_rejected(f1, raw("e1g1", 0), Rejection::CastlingThroughCheck);
    assert_legal(f1, raw("e1c1", 0));
    let d1 = "3rk3/8/8/8/8/8/8/R3K2R w KQ - 0 1";
    assert_rejected(d1, raw("e1c1", 0), Rejection::CastlingThroughCheck);
    assert_legal(d1, raw("e1g1", 0));
    let d8 = "r3k2r/8/8/8/8/8/8/3RK3 b kq - 0 1";
    assert_rejected(d8, raw("e8c8", 0), Rejection::CastlingThroughCheck);
    assert_legal(d8, raw("e8g8", 0));
    // 11 before 14: f1 and g1 both attacked.
    assert_rejected(
        "4krr1/8/8/8/8/8/8/R3K2R w KQ - 0 1",
        raw("e1g1", 0),
        Rejection::CastlingThroughCheck,
    );
    // b1 attacked does not matter: the king never crosses it.
    assert_legal("1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", raw("e1c1", 0));
    assert_legal("r3k2r/8/8/8/8/8/8/1R2K3 b kq - 0 1", raw("e8c8", 0));
}

#[test]
fn code_12_promotion_required() {
    assert_rejected(
        "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1",
        raw("b7b8", 0),
        Rejection::PromotionRequired,
    );
    assert_rejected(
        "r3k3/1P6/8/8/8/8/8/4K3 w - - 0 1",
        raw("b7a8", 0),
        Rejection::PromotionRequired,
    );
    assert_rejected(
        "4k3/8/8/8/8/8/6p1/4K3 b - - 0 1",
        raw("g2g1", 0),
        Rejection::PromotionRequired,
    );
    assert_rejected(
        "4k3/8/8/8/8/8/6p1/4K2R b - - 0 1",
        raw("g2h1", 0),
        Rejection::PromotionRequired,
    );
    // 12 before 14: the pawn is pinned along the seventh rank.
    let pinned = "4k3/KP5r/8/8/8/8/8/8 w - - 0 1";
    assert_rejected(pinned, raw("b7b8", 0), Rejection::PromotionRequired);
    assert_rejected(pinned, raw("b7b8", 5), Rejection::KingLeftInCheck);
}

#[test]
fn code_13_invalid_promotion() {
    let promo = "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1";
    for bad in [1u8, 6, 7, 8, 0x10, 0x80, 0xfe, 0xff] {
        assert_rejected(promo, raw("b7b8", bad), Rejection::InvalidPromotion);
        assert_rejected(
            "4k3/8/8/8/8/8/6p1/4K3 b - - 0 1",
            raw("g2g1", bad),
            Rejection::InvalidPromotion,
        );
    }
    // A promotion byte on a move that does not promote.
    for p in [2u8, 3, 4, 5, 1, 6] {
        assert_rejected(INITIAL, raw("e2e4", p), Rejection::InvalidPromotion);
        assert_rejected(INITIAL, raw("g1f3", p), Rejection::InvalidPromotion);
        assert_rejected(
            "4k3/8/1P6/8/8/8/8/4K3 w - - 0 1",
            raw("b6b7", p),
            Rejection::InvalidPromotion,
        );
        assert_rejected(
            "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
            raw("e1g1", p),
            Rejection::InvalidPromotion,
        );
    }
    // Earlier codes first: 6 before 13, 7 before 13; 13 before 14 (pinned bishop).
    assert_rejected(INITIAL, raw("e2e5", 5), Rejection::BadGeometry);
    assert_rejected(INITIAL, raw("a1a3", 5), Rejection::PathBlocked);
    assert_rejected(
        "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1",
        raw("e2d3", 5),
        Rejection::InvalidPromotion,
    );
}

#[test]
fn underpromotion_to_each_piece() {
    let white = "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1";
    let black = "4k3/8/8/8/8/8/6p1/4K2R b - - 0 1";
    for (code, role) in [
        (2u8, Role::Knight),
        (3, Role::Bishop),
        (4, Role::Rook),
        (5, Role::Queen),
    ] {
        let after = assert_legal(white, raw("b7b8", code));
        assert_eq!(
            after.piece_at(Square::new(sq("b8")).unwrap()),
            Some(Piece {
                color: Color::White,
                role
            })
        );
        assert_eq!(after.as_bytes()[usize::from(sq("b8"))], code);
        assert_eq!(after.piece_at(Square::new(sq("b7")).unwrap()), None);
        assert_eq!(after.halfmove_clock(), 0);
        // Capture-promotion on the h1 corner by black.
        let after = assert_legal(black, raw("g2h1", code));
        assert_eq!(
            after.piece_at(Square::new(sq("h1")).unwrap()),
            Some(Piece {
                color: Color::Black,
                role
            })
        );
        assert_eq!(
            after.as_bytes()[usize::from(sq("h1"))],
            (code as i8).wrapping_neg() as u8
        );
    }
    // Every promotion is generated, and SAN writes it.
    let s = state(white);
    let moves = legal_set(&s);
    for m in ["b7b8n", "b7b8b", "b7b8r", "b7b8q"] {
        assert!(moves.contains(m), "{m} missing from {moves:?}");
    }
    let knight = s.check(raw("b7b8", 2)).unwrap();
    assert_eq!(s.san(knight).unwrap(), "b8=N");
    let rook = s.check(raw("b7b8", 4)).unwrap();
    assert_eq!(s.san(rook).unwrap(), "b8=R+");
}

#[test]
fn code_14_king_left_in_check() {
    // Pinned pieces.
    let pinned_bishop = "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1";
    assert_rejected(pinned_bishop, raw("e2d3", 0), Rejection::KingLeftInCheck);
    assert_rejected(pinned_bishop, raw("e2f1", 0), Rejection::KingLeftInCheck);
    let pinned_rook = "4k3/4r3/8/8/8/8/4R3/4K3 w - - 0 1";
    assert_legal(pinned_rook, raw("e2e5", 0));
    assert_legal(pinned_rook, raw("e2e7", 0));
    assert_rejected(pinned_rook, raw("e2d2", 0), Rejection::KingLeftInCheck);
    let pinned_knight = "4k3/8/8/b7/8/8/3N4/4K3 w - - 0 1";
    assert_rejected(pinned_knight, raw("d2f3", 0), Rejection::KingLeftInCheck);
    let diag_pinned_pawn = "4k3/8/8/8/7b/8/5P2/4K3 w - - 0 1";
    assert_rejected(diag_pinned_pawn, raw("f2f3", 0), Rejection::KingLeftInCheck);
    assert_rejected(diag_pinned_pawn, raw("f2f4", 0), Rejection::KingLeftInCheck);
    // King stepping into check; check not answered.
    let rook_near = "4k3/8/8/8/8/8/3r4/4K3 w - - 0 1";
    assert_rejected(rook_near, raw("e1e2", 0), Rejection::KingLeftInCheck);
    assert_rejected(rook_near, raw("e1d1", 0), Rejection::KingLeftInCheck);
    assert_legal(rook_near, raw("e1f1", 0));
    assert_legal(rook_near, raw("e1d2", 0));
    let checked = "4k3/8/8/8/8/8/8/r3K2R w K - 0 1";
    assert_rejected(checked, raw("h1h2", 0), Rejection::KingLeftInCheck);
    assert_rejected(checked, raw("e1f1", 0), Rejection::KingLeftInCheck); // still on the rank
    assert_legal(checked, raw("e1e2", 0));
    // Kings may not touch.
    assert_rejected(
        "8/8/8/8/8/4k3/8/4K3 w - - 0 1",
        raw("e1e2", 0),
        Rejection::KingLeftInCheck,
    );
    // En passant that uncovers a check along the rank (white and black).
    let ep_rank = "8/8/8/KPp4r/8/8/8/7k w - c6 0 2";
    assert_rejected(ep_rank, raw("b5c6", 0), Rejection::KingLeftInCheck);
    assert_legal(ep_rank, raw("b5b6", 0));
    let ep_rank_black = "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1";
    assert_rejected(ep_rank_black, raw("e4d3", 0), Rejection::KingLeftInCheck);
    assert_legal(ep_rank_black, raw("e4e3", 0));
    // En passant that removes the checking pawn is legal.
    assert_legal("8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1", raw("e4d3", 0));
    // Castling onto an attacked square.
    assert_rejected(
        "4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1",
        raw("e1g1", 0),
        Rejection::KingLeftInCheck,
    );
    assert_rejected(
        "2r1k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
        raw("e1c1", 0),
        Rejection::KingLeftInCheck,
    );
    assert_rejected(
        "r3k2r/8/8/8/8/8/8/2R1K3 b kq - 0 1",
        raw("e8c8", 0),
        Rejection::KingLeftInCheck,
    );
}

#[test]
fn double_check_allows_only_king_moves() {
    let fen = "4r1k1/8/8/8/3Q4/3n4/8/4K3 w - - 0 1";
    let s = state(fen);
    assert!(s.in_check());
    assert_rejected(fen, raw("d4d3", 0), Rejection::KingLeftInCheck); // takes the knight, rook still checks
    assert_rejected(fen, raw("d4e4", 0), Rejection::KingLeftInCheck); // blocks the rook, knight still checks
    assert_rejected(fen, raw("d4e5", 0), Rejection::KingLeftInCheck);
    assert_rejected(fen, raw("e1e2", 0), Rejection::KingLeftInCheck);
    assert_rejected(fen, raw("e1f2", 0), Rejection::KingLeftInCheck);
    assert_eq!(legal_set(&s), set(&["e1d1", "e1d2", "e1f1"]));
    assert_eq!(s.status(), Status::Ongoing);
}

#[test]
fn knight_check_is_answered_by_capture_or_king_move() {
    let fen = "4k3/8/8/8/8/R4n2/8/4K3 w - - 0 1";
    let s = state(fen);
    assert!(s.in_check());
    assert_rejected(fen, raw("a3a4", 0), Rejection::KingLeftInCheck);
    assert_rejected(fen, raw("e1d2", 0), Rejection::KingLeftInCheck);
    assert_rejected(fen, raw("e1g1", 0), Rejection::CastlingNotAllowed);
    assert_eq!(
        legal_set(&s),
        set(&["a3f3", "e1d1", "e1e2", "e1f1", "e1f2"])
    );
}

// ---------------------------------------------------------------- section 7, codes 1..8

fn bytes_of(fen: &str) -> [u8; 128] {
    *state(fen).as_bytes()
}

#[track_caller]
fn assert_invalid(bytes: &[u8; 128], expected: InvalidState) {
    assert_eq!(State::from_bytes(bytes), Err(StateError::Invalid(expected)));
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(State::from_hex(&hex), Err(StateError::Invalid(expected)));
    assert_eq!(InvalidState::from_code(expected.code()), Some(expected));
}

#[track_caller]
fn assert_invalid_fen(fen: &str, expected: InvalidState) {
    assert_eq!(
        State::from_fen(fen),
        Err(FenError::Invalid(expected)),
        "{fen}"
    );
}

fn edited(base: [u8; 128], edits: &[(usize, u8)]) -> [u8; 128] {
    let mut b = base;
    for &(i, v) in edits {
        b[i] = v;
    }
    b
}

#[test]
fn invalid_01_bad_piece_code() {
    let init = *State::initial().as_bytes();
    for v in [7u8, 0x7f, 0x80, 0xf9] {
        assert_invalid(&edited(init, &[(64, v)]), InvalidState::BadPieceCode);
    }
    // 1 before 2 (a non-zero unused shadow byte too) and before 3 (the king replaced).
    assert_invalid(
        &edited(init, &[(64, 7), (12, 1)]),
        InvalidState::BadPieceCode,
    );
    assert_invalid(&edited(init, &[(4, 0xf0)]), InvalidState::BadPieceCode);
}

#[test]
fn invalid_02_bad_flag() {
    let init = *State::initial().as_bytes();
    for edit in [
        (12usize, 1u8), // unused shadow byte
        (15, 1),
        (127, 0xff),
        (24, 1),
        (56, 0), // CURRENT_PLAYER neither 1 nor 0xff
        (56, 2),
        (62, 1), // castling byte neither 0 nor 0xff
        (79, 0x80),
        (9, 128), // MOVE_COUNT_LOW 0..127
        (8, 128), // MOVE_COUNT_HIGH 0..127
    ] {
        assert_invalid(&edited(init, &[edit]), InvalidState::BadFlag);
    }
    // The largest move count is fine.
    assert!(State::from_bytes(&edited(init, &[(8, 127), (9, 127)])).is_ok());
    // 2 before 3.
    assert_invalid(&edited(init, &[(12, 1), (4, 0)]), InvalidState::BadFlag);
}

#[test]
fn invalid_03_king_count() {
    assert_invalid_fen("8/8/8/8/8/8/8/4K3 w - - 0 1", InvalidState::KingCount);
    assert_invalid_fen("4k3/8/8/8/8/8/8/3KK3 w - - 0 1", InvalidState::KingCount);
    assert_invalid_fen("3kk3/8/8/8/8/8/8/4K3 w - - 0 1", InvalidState::KingCount);
    let init = *State::initial().as_bytes();
    assert_invalid(&edited(init, &[(4, 0)]), InvalidState::KingCount);
    assert_invalid(&edited(init, &[(64, 6)]), InvalidState::KingCount);
    // 3 before 5.
    assert_invalid(
        &edited(init, &[(64, 0xfa), (0, 1)]),
        InvalidState::KingCount,
    );
}

#[test]
fn invalid_04_king_pos_mismatch() {
    let init = *State::initial().as_bytes();
    assert_invalid(&edited(init, &[(123, 0x75)]), InvalidState::KingPosMismatch);
    assert_invalid(&edited(init, &[(11, 0x05)]), InvalidState::KingPosMismatch);
    assert_invalid(
        &edited(init, &[(11, 0x74), (123, 0x04)]),
        InvalidState::KingPosMismatch,
    );
    // The king moved without its byte: 4 before 7 (e1 now empty with rights kept).
    assert_invalid(
        &edited(init, &[(116, 0), (68, 6)]),
        InvalidState::KingPosMismatch,
    );
}

#[test]
fn invalid_05_pawn_on_back_rank() {
    assert_invalid_fen(
        "P3k3/8/8/8/8/8/8/4K3 w - - 0 1",
        InvalidState::PawnOnBackRank,
    );
    assert_invalid_fen(
        "4k3/8/8/8/8/8/8/p3K3 w - - 0 1",
        InvalidState::PawnOnBackRank,
    );
    assert_invalid_fen(
        "4k2p/8/8/8/8/8/8/4K3 w - - 0 1",
        InvalidState::PawnOnBackRank,
    );
    let bare = bytes_of("4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    assert_invalid(&edited(bare, &[(0, 1)]), InvalidState::PawnOnBackRank);
    assert_invalid(&edited(bare, &[(119, 0xff)]), InvalidState::PawnOnBackRank);
    // 5 before 7: the a8 rook replaced by a pawn while black keeps its queen-side right.
    assert_invalid(
        &edited(*State::initial().as_bytes(), &[(0, 0xff)]),
        InvalidState::PawnOnBackRank,
    );
}

#[test]
fn invalid_06_opponent_in_check() {
    assert_invalid_fen(
        "4k3/4R3/8/8/8/8/8/4K3 w - - 0 1",
        InvalidState::OpponentInCheck,
    );
    assert_invalid_fen(
        "4k3/8/8/8/8/3n4/8/4K3 b - - 0 1",
        InvalidState::OpponentInCheck,
    );
    assert_invalid_fen(
        "8/8/8/8/8/8/3k4/4K3 w - - 0 1",
        InvalidState::OpponentInCheck,
    ); // kings touching
    let bare = bytes_of("4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    assert_invalid(&edited(bare, &[(20, 4)]), InvalidState::OpponentInCheck);
    // 6 before 7.
    assert_invalid_fen(
        "4k3/4R3/8/8/8/8/8/4K3 w K - 0 1",
        InvalidState::OpponentInCheck,
    );
}

#[test]
fn invalid_07_bad_castling() {
    assert_invalid_fen("4k3/8/8/8/8/8/8/4K3 w K - 0 1", InvalidState::BadCastling);
    assert_invalid_fen("4k3/8/8/8/8/8/8/4K3 w q - 0 1", InvalidState::BadCastling);
    assert_invalid_fen(
        "r3k2r/8/8/8/8/8/8/R4K1R w KQkq - 0 1",
        InvalidState::BadCastling,
    ); // king off e1
    assert_invalid_fen("4k1nR/8/8/8/8/8/8/4K3 w k - 0 1", InvalidState::BadCastling); // a white rook on h8
    assert!(State::from_fen("4k2r/8/8/8/8/8/8/4K3 w k - 0 1").is_ok());
    let init = *State::initial().as_bytes();
    assert_invalid(&edited(init, &[(112, 0)]), InvalidState::BadCastling);
    assert_invalid(&edited(init, &[(7, 0)]), InvalidState::BadCastling);
    assert_invalid(&edited(init, &[(119, 2)]), InvalidState::BadCastling);
    // Dropping the right makes it valid again.
    assert!(State::from_bytes(&edited(init, &[(112, 0), (78, 0xff)])).is_ok());
    // 7 before 8.
    assert_invalid(
        &edited(init, &[(112, 0), (77, 0x54)]),
        InvalidState::BadCastling,
    );
}

#[test]
fn invalid_08_bad_en_passant() {
    // No pawn beyond the square; the wrong side to move; the square or the one behind occupied.
    assert_invalid_fen("4k3/8/8/8/8/8/8/4K3 b - e3 0 1", InvalidState::BadEnPassant);
    assert_invalid_fen(
        "4k3/8/8/8/4P3/8/8/4K3 w - e3 0 1",
        InvalidState::BadEnPassant,
    );
    assert_invalid_fen(
        "4k3/8/8/8/4P3/4n3/8/4K3 b - e3 0 1",
        InvalidState::BadEnPassant,
    );
    assert_invalid_fen(
        "4k3/8/8/8/4P3/8/4N3/4K3 b - e3 0 1",
        InvalidState::BadEnPassant,
    );
    assert_invalid_fen(
        "4k3/8/8/4p3/8/8/8/4K3 b - e6 0 1",
        InvalidState::BadEnPassant,
    );
    assert!(State::from_fen("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1").is_ok());
    assert!(State::from_fen("4k3/8/8/4p3/8/8/8/4K3 w - e6 0 1").is_ok());
    // Rank 4 as an en-passant square is refused (whatever the error's kind).
    assert!(State::from_fen("4k3/8/8/8/4P3/8/8/4K3 b - e4 0 1").is_err());
    // Bytes: both set; white's byte off rank 3; byte set in the initial position.
    let ep = bytes_of("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3");
    assert!(State::from_bytes(&ep).is_ok());
    assert_invalid(&edited(ep, &[(61, 0x23)]), InvalidState::BadEnPassant);
    assert_invalid(
        &edited(*State::initial().as_bytes(), &[(77, 0x54)]),
        InvalidState::BadEnPassant,
    );
    assert_invalid(
        &edited(*State::initial().as_bytes(), &[(61, 0x24)]),
        InvalidState::BadEnPassant,
    );
    // Black's byte set while black is to move (white just moved).
    let after_c5 = bytes_of("rnbqkbnr/pp1ppppp/8/2p5/8/8/PPPPPPPP/RNBQKBNR w KQkq c6 0 2");
    assert_eq!(after_c5[61], 0x22);
    assert_invalid(&edited(after_c5, &[(56, 0xff)]), InvalidState::BadEnPassant);
}

#[test]
fn bad_lengths_and_hex() {
    assert_eq!(
        State::from_bytes(&[0u8; 127]),
        Err(StateError::BadLength(127))
    );
    assert_eq!(
        State::from_bytes(&[0u8; 129]),
        Err(StateError::BadLength(129))
    );
    assert_eq!(State::from_bytes(&[]), Err(StateError::BadLength(0)));
    assert!(matches!(
        State::from_hex("zz"),
        Err(StateError::BadHex(_) | StateError::BadLength(_))
    ));
    assert!(matches!(
        State::from_hex(&INITIAL_HEX[..254]),
        Err(StateError::BadHex(_) | StateError::BadLength(_))
    ));
    assert!(matches!(
        State::from_hex(&format!("{}g", &INITIAL_HEX[..255])),
        Err(StateError::BadHex(_))
    ));
    assert!(State::from_hex("").is_err());
    assert!(State::from_hex("0x").is_err());
}

// ---------------------------------------------------------------- section 8

#[test]
fn statuses() {
    let cases = [
        (
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            Status::Checkmate,
        ),
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", Status::Stalemate),
        (
            "8/8/4k3/8/8/3BK3/8/8 b - - 0 1",
            Status::InsufficientMaterial,
        ),
        (
            "8/8/4k3/8/8/3NK3/8/8 b - - 0 1",
            Status::InsufficientMaterial,
        ),
        ("8/8/4kn2/8/8/3NK3/8/8 b - - 0 1", Status::Ongoing),
        (
            "8/8/4k1b1/8/8/3BK3/8/8 b - - 0 1",
            Status::InsufficientMaterial,
        ), // g6 and d3 both light
        ("8/8/4kb2/8/8/3BK3/8/8 b - - 0 1", Status::Ongoing), // f6 dark, d3 light
        (
            "8/8/4k3/8/8/3RK3/8/8 b - - 150 120",
            Status::SeventyFiveMoves,
        ),
        ("8/8/4k3/8/8/3RK3/8/8 b - - 149 120", Status::Ongoing),
        // Checkmate wins over the 75-move rule.
        ("7k/6Q1/6K1/8/8/8/8/8 b - - 200 150", Status::Checkmate),
    ];
    for (fen, expected) in cases {
        let s = state(fen);
        assert_eq!(s.status(), expected, "{fen}");
        assert_eq!(Status::from_code(expected.code()), Some(expected));
    }
    let s = state("8/8/4kq2/8/8/3NK3/8/8 b - - 0 1");
    assert!(s.has_insufficient_material(Color::White));
    assert!(!s.has_insufficient_material(Color::Black));
    let s = state("8/8/4kr2/8/8/3NK3/8/8 b - - 0 1");
    assert!(!s.has_insufficient_material(Color::White)); // a knight can mate against a rook (self-block)
}

#[test]
fn counters_saturate_and_wrap() {
    // MOVE_COUNT_LOW wraps into HIGH at 128.
    let s = state("4k3/8/8/8/8/8/8/R3K3 b - - 10 64");
    assert_eq!(s.ply(), 127);
    assert_eq!((s.as_bytes()[8], s.as_bytes()[9]), (0, 127));
    let next = s.play(raw("e8e7", 0)).unwrap();
    assert_eq!(next.ply(), 128);
    assert_eq!((next.as_bytes()[8], next.as_bytes()[9]), (1, 0));
    assert_eq!(next.halfmove_clock(), 11);
    // The halfmove clock saturates at 255.
    let s = state("4k3/8/8/8/8/8/8/R3K3 w - - 255 200");
    assert_eq!(s.play(raw("a1a2", 0)).unwrap().halfmove_clock(), 255);
    // The move count saturates at 16383 plies.
    let s = state("4k3/8/8/8/8/8/8/R3K3 b - - 0 8192");
    assert_eq!(s.ply(), 16383);
    let next = s.play(raw("e8e7", 0)).unwrap();
    assert_eq!(next.ply(), 16383);
    assert_eq!((next.as_bytes()[8], next.as_bytes()[9]), (127, 127));
    assert!(matches!(
        State::from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 8193"),
        Err(FenError::MoveCountTooLarge(_))
    ));
}

// ---------------------------------------------------------------- names and codes

#[test]
fn codes_and_names_are_encoding_md() {
    let rejections = [
        "OFF_BOARD",
        "SAME_SQUARE",
        "EMPTY_FROM",
        "NOT_YOUR_PIECE",
        "OWN_PIECE_ON_TARGET",
        "BAD_GEOMETRY",
        "PATH_BLOCKED",
        "NO_CAPTURE_TARGET",
        "CASTLING_NOT_ALLOWED",
        "CASTLING_IN_CHECK",
        "CASTLING_THROUGH_CHECK",
        "PROMOTION_REQUIRED",
        "INVALID_PROMOTION",
        "KING_LEFT_IN_CHECK",
    ];
    for (i, name) in rejections.iter().enumerate() {
        let code = i as u8 + 1;
        let r = Rejection::from_code(code).unwrap_or_else(|| panic!("no rejection {code}"));
        assert_eq!((r.code(), r.name()), (code, *name));
        assert!(!r.to_string().is_empty());
    }
    assert_eq!(Rejection::from_code(0), None);
    assert_eq!(Rejection::from_code(15), None);
    let invalid = [
        "BAD_PIECE_CODE",
        "BAD_FLAG",
        "KING_COUNT",
        "KING_POS_MISMATCH",
        "PAWN_ON_BACK_RANK",
        "OPPONENT_IN_CHECK",
        "BAD_CASTLING",
        "BAD_EN_PASSANT",
    ];
    for (i, name) in invalid.iter().enumerate() {
        let code = i as u8 + 1;
        let v =
            InvalidState::from_code(code).unwrap_or_else(|| panic!("no invalid-state code {code}"));
        assert_eq!((v.code(), v.name()), (code, *name));
    }
    assert_eq!(InvalidState::from_code(0), None);
    assert_eq!(InvalidState::from_code(9), None);
    let statuses = [
        "ONGOING",
        "CHECKMATE",
        "STALEMATE",
        "INSUFFICIENT_MATERIAL",
        "SEVENTY_FIVE_MOVES",
    ];
    for (i, name) in statuses.iter().enumerate() {
        let status = Status::from_code(i as u8).unwrap_or_else(|| panic!("no status {i}"));
        assert_eq!((status.code(), status.name()), (i as u8, *name));
        assert_eq!(status.is_over(), i != 0);
    }
    assert_eq!(Status::from_code(5), None);
}
