//! Plain-Rust answers behind the bindings, so they are tested natively and
//! the JS layer only converts them. The wire forms (the move text, the
//! verdict, the move forms, the destinations) are chessref-core's, the same
//! that `chessref check` and the HTTP server use.

use chessref_core::{RawMove, RawMoveError, Square, State, Verdict};

/// What the contract says about a move given as text: UCI with any promotion
/// letter (`e7e8k` is INVALID_PROMOTION, code 13) or the packed `uint24` as
/// `0x` hex, read as `chessref check` and `POST /v1/check` read it.
pub fn check_text(state: &State, text: &str) -> Result<Verdict, RawMoveError> {
    Ok(Verdict::of(state, RawMove::parse(text)?))
}

/// What the contract says about a packed `uint24` move, any bytes (off-board included).
pub fn check_packed(state: &State, packed: u32) -> Result<Verdict, RawMoveError> {
    Ok(Verdict::of(state, RawMove::from_uint24(packed.into())?))
}

/// The 64 squares from a8 to h1 (FEN order), each a FEN piece letter or empty.
pub fn board(state: &State) -> Vec<String> {
    let mut squares = Vec::with_capacity(64);
    for rank in (0..8).rev() {
        for file in 0..8 {
            let piece = Square::from_coords(file, rank).and_then(|sq| state.piece_at(sq));
            squares.push(piece.map(|p| p.char().to_string()).unwrap_or_default());
        }
    }
    squares
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_follow_section_6() {
        let s = State::initial();
        assert_eq!(check_text(&s, "e2e4").map(Verdict::code), Ok(0));
        let v = check_packed(&s, (100 << 16) | (52 << 8)).expect("a uint24");
        assert_eq!((v.legal(), v.code(), v.name()), (false, 6, "BAD_GEOMETRY"));
        let v = check_packed(&s, (100 << 16) | (8 << 8)).expect("a uint24");
        assert_eq!((v.code(), v.name()), (1, "OFF_BOARD"));
        assert!(!v.message().is_empty());
        assert!(check_packed(&s, 1 << 24).is_err());
        assert!(check_text(&s, "e2").is_err());
    }

    #[test]
    fn a_king_promotion_is_invalid_promotion_like_everywhere() {
        let s = State::from_fen("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1").expect("fen");
        let v = check_text(&s, "b7b8k").expect("wire text");
        assert_eq!(
            (v.legal(), v.code(), v.name()),
            (false, 13, "INVALID_PROMOTION")
        );
        assert_eq!(check_text(&s, "0x110106"), Ok(v));
    }

    #[test]
    fn board_is_in_fen_order() {
        let b = board(&State::initial());
        assert_eq!(b.len(), 64);
        assert_eq!(
            (b[0].as_str(), b[4].as_str(), b[60].as_str(), b[63].as_str()),
            ("r", "k", "K", "R")
        );
        assert_eq!(b[32], "");
    }
}
