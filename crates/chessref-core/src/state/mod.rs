//! The 128-byte state of ENCODING.md and the rules over it, one module per
//! part of the spec:
//!
//! - `layout.rs`: sections 1 to 4 (layout, flags, initial position, byte and hex codec);
//! - `apply.rs`: sections 5 and 6 (checking a move, applying it, move text);
//! - `validate.rs`: section 7 (valid states);
//! - `status.rs`: section 8 (status and material);
//! - `repetition.rs`: section 9 (repetition key).
//!
//! This file holds the type itself and its text forms (FEN, SAN, the terminal board).

use std::fmt;
use std::str::FromStr;

use crate::error::{FenError, Rejection, SanError, StateError};
use crate::legal_move::LegalMove;
use crate::moves::Move;
use crate::square::{Color, Piece};

mod apply;
mod layout;
mod repetition;

pub use repetition::chain;
mod status;
mod validate;

pub(crate) use apply::{Played, to_move};
pub(crate) use layout::{MAX_PLY, idx};
pub use status::Status;
pub(crate) use validate::validate_bytes;

/// Exactly the 128 bytes of ENCODING.md (0x88 board plus shadow flags).
///
/// Always valid (section 7) when constructed through this API.
///
/// Aligned to 16 bytes: a state is copied whole and often (each move returns
/// a new one), and at an odd offset inside a larger value its copy was split
/// into byte-sized pieces that later whole-chunk reads had to wait for.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[repr(align(16))]
pub struct State(pub(crate) [u8; 128]);

impl State {
    /// Parses a FEN (section 5) into a validated state.
    ///
    /// Accepts the 6 standard fields or the first 4 (clocks then default to
    /// `0 1`). A fullmove number of 0 is read as 1; a halfmove clock above 255
    /// saturates at 255 as the byte does; a move count above 16383 plies is
    /// rejected. The castling and en-passant fields must describe the position
    /// (section 7), otherwise [`FenError::Invalid`] names the rule.
    pub fn from_fen(fen: &str) -> Result<State, FenError> {
        crate::fen::parse(fen)
    }

    /// The FEN of this state (section 5).
    pub fn fen(&self) -> String {
        crate::fen::format(self)
    }

    /// A board for terminals: ranks 8 to 1, files a to h, with the side to move.
    pub fn pretty(&self) -> String {
        let mut s = String::with_capacity(300);
        for row in 0..8u8 {
            s.push(char::from(b'8' - row));
            s.push(' ');
            for file in 0..8u8 {
                s.push(' ');
                s.push(
                    Piece::from_code(self.0[(row * 16 + file) as usize] as i8)
                        .map_or('.', Piece::char),
                );
            }
            s.push('\n');
        }
        s.push_str("   a b c d e f g h\n");
        s.push_str(match self.turn() {
            Color::White => "white to move",
            Color::Black => "black to move",
        });
        if self.in_check() {
            s.push_str(" (in check)");
        }
        s.push('\n');
        s
    }

    /// The SAN of a legal move (`Nf3`, `exd5`, `O-O`, `e8=Q+`, `Qh4#`).
    pub fn san(&self, mv: Move) -> Result<String, Rejection> {
        crate::san::format(self, mv)
    }

    /// Parses SAN against the legal moves (accepts `0-0`, `e8Q`, `+ # ! ?` suffixes).
    ///
    /// The move comes back as a [`LegalMove`], which carries the state after it:
    /// [`State::play`] of it on this state does not check it again.
    #[inline]
    pub fn parse_san(&self, san: &str) -> Result<LegalMove, SanError> {
        crate::san::parse(self, san)
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}

impl FromStr for State {
    type Err = FenError;

    /// FEN, or 256 hex digits (an optional `0x`); an invalid hex state is
    /// reported as [`FenError::Invalid`] with its section 7 code.
    fn from_str(s: &str) -> Result<State, FenError> {
        let t = s.trim();
        let digits = t
            .strip_prefix("0x")
            .or_else(|| t.strip_prefix("0X"))
            .unwrap_or(t);
        if digits.len() == 256 && digits.bytes().all(|c| c.is_ascii_hexdigit()) {
            return State::from_hex(digits).map_err(|e| match e {
                StateError::Invalid(code) => FenError::Invalid(code),
                // 256 hex digits always make 128 bytes.
                StateError::BadLength(_) | StateError::BadHex(_) => FenError::FieldCount(1),
            });
        }
        State::from_fen(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_and_fen_parse_through_from_str() {
        let hex = State::initial().to_hex();
        assert_eq!(hex.parse::<State>().unwrap(), State::initial());
        assert_eq!(
            State::initial().to_string().parse::<State>().unwrap(),
            State::initial()
        );
        assert!(State::initial().pretty().contains("r n b q k b n r"));
    }
}
