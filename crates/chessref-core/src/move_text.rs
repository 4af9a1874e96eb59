//! The text form of a [`RawMove`]: what the CLI's `check` and the HTTP
//! `/v1/check` accept, parsed once here so both give the same verdict.
//!
//! Like shakmaty's `UciMove`, this is a syntactic form, not a legal move: the
//! squares become 0x88 indices and any promotion letter of `p n b r q k`
//! becomes its piece-type byte, so the contract's rules (not the parser)
//! reject `e7e8k` with INVALID_PROMOTION (code 13), exactly as the contract
//! does for the packed move with promotion byte 6. The packed `uint24` can
//! also be written as `0x` hex, which reaches every byte the contract can be
//! sent (off-board squares included).

use std::fmt;
use std::str::FromStr;

use crate::moves::RawMove;
use crate::square::{Role, Square};

/// Largest value of the contract's `uint24` move.
pub const MAX_PACKED: u32 = 0xFF_FFFF;

/// Text or a number that is not a move the contract can be sent.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RawMoveError {
    /// `0x` followed by something other than one to six hex digits.
    #[error("invalid move {0:?}: a packed move is 0x and at most 6 hex digits")]
    PackedHex(String),
    /// A number that is not a packed move: above `0xFFFFFF`, negative or fractional.
    #[error("invalid move {0:?}: a packed move is an integer in 0..=16777215 (uint24)")]
    PackedRange(String),
    /// Neither UCI squares (with an optional promotion letter) nor `0x` hex.
    #[error("invalid move {0:?}: expected UCI like e2e4 or e7e8q, or a packed 0x uint24")]
    Text(String),
}

impl RawMoveError {
    /// The input as given (trimmed text, or the number as text).
    pub fn input(&self) -> &str {
        match self {
            RawMoveError::PackedHex(text)
            | RawMoveError::PackedRange(text)
            | RawMoveError::Text(text) => text,
        }
    }

    /// What is wrong, without the input (for answers that carry the input apart).
    pub fn reason(&self) -> &'static str {
        match self {
            RawMoveError::PackedHex(_) => "a packed move is 0x and at most 6 hex digits",
            RawMoveError::PackedRange(_) => "a packed move is an integer in 0..=16777215 (uint24)",
            RawMoveError::Text(_) => "expected UCI like e2e4 or e7e8q, or a packed 0x uint24",
        }
    }
}

impl RawMove {
    /// The move of a packed `uint24`; refuses values above `0xFFFFFF` instead of
    /// dropping their high bits (as [`RawMove::from_packed`] does).
    pub fn from_uint24(packed: u64) -> Result<RawMove, RawMoveError> {
        match u32::try_from(packed) {
            Ok(p) if p <= MAX_PACKED => Ok(RawMove::from_packed(p)),
            _ => Err(RawMoveError::PackedRange(packed.to_string())),
        }
    }

    /// Parses the wire text of a move (surrounding whitespace ignored): UCI
    /// squares with an optional promotion letter `p n b r q k` in either case
    /// (`e2e4`, `e7e8q`, `e7e8k`), or the packed `uint24` as `0x` hex (`0x644400`).
    pub fn parse(text: &str) -> Result<RawMove, RawMoveError> {
        let text = text.trim();
        if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
            let digits =
                !hex.is_empty() && hex.len() <= 6 && hex.bytes().all(|b| b.is_ascii_hexdigit());
            return match u32::from_str_radix(hex, 16) {
                Ok(packed) if digits => Ok(RawMove::from_packed(packed)),
                _ => Err(RawMoveError::PackedHex(text.to_owned())),
            };
        }
        let bad = || RawMoveError::Text(text.to_owned());
        if !text.is_ascii() || !(4..=5).contains(&text.len()) {
            return Err(bad());
        }
        let from: Square = text[0..2].parse().map_err(|_| bad())?;
        let to: Square = text[2..4].parse().map_err(|_| bad())?;
        let promotion = match text.as_bytes().get(4) {
            None => 0,
            Some(&letter) => Role::from_char(char::from(letter.to_ascii_lowercase()))
                .ok_or_else(bad)?
                .code(),
        };
        Ok(RawMove {
            from: from.index(),
            to: to.index(),
            promotion,
        })
    }
}

impl FromStr for RawMove {
    type Err = RawMoveError;

    fn from_str(text: &str) -> Result<RawMove, RawMoveError> {
        RawMove::parse(text)
    }
}

/// UCI when both squares are on the board and the promotion byte names a
/// piece type (`e7e8k` included), else the packed `0x` hex: either way text
/// that [`RawMove::parse`] reads back to the same bytes.
impl fmt::Display for RawMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let promotion = match self.promotion {
            0 => Some(None),
            code => Role::from_code(code).map(Some),
        };
        match (Square::new(self.from), Square::new(self.to), promotion) {
            (Some(from), Some(to), Some(role)) => {
                write!(f, "{from}{to}")?;
                match role {
                    Some(role) => write!(f, "{}", role.char()),
                    None => Ok(()),
                }
            }
            _ => write!(f, "0x{:06x}", self.packed()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(from: u8, to: u8, promotion: u8) -> RawMove {
        RawMove {
            from,
            to,
            promotion,
        }
    }

    #[test]
    fn uci_squares_become_0x88_indices_with_any_piece_letter() {
        assert_eq!(RawMove::parse("e2e4"), Ok(raw(100, 68, 0)));
        assert_eq!(
            RawMove::parse(" E7E8Q "),
            Err(RawMoveError::Text("E7E8Q".into()))
        );
        assert_eq!(RawMove::parse("e7e8Q"), Ok(raw(20, 4, 5)));
        // The rules, not the parser, refuse a pawn or king promotion (code 13).
        assert_eq!(RawMove::parse("e7e8k"), Ok(raw(20, 4, 6)));
        assert_eq!(RawMove::parse("e7e8p"), Ok(raw(20, 4, 1)));
        for bad in ["", "e2", "e2e4qq", "e2e4x", "i2e4", "e9e4", "é2e4"] {
            assert_eq!(
                RawMove::parse(bad),
                Err(RawMoveError::Text(bad.into())),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn packed_hex_reaches_every_uint24() {
        assert_eq!(RawMove::parse("0x644400"), Ok(raw(100, 68, 0)));
        assert_eq!(RawMove::parse("0XFFFFFF"), Ok(raw(255, 255, 255)));
        assert_eq!(RawMove::parse("0x0"), Ok(raw(0, 0, 0)));
        for bad in ["0x", "0x1000000", "0x+12", "0xg", "0x 12"] {
            assert_eq!(
                RawMove::parse(bad),
                Err(RawMoveError::PackedHex(bad.trim().into())),
                "{bad:?}"
            );
        }
        assert_eq!(RawMove::from_uint24(0xFF_FFFF), Ok(raw(255, 255, 255)));
        assert_eq!(
            RawMove::from_uint24(1 << 24),
            Err(RawMoveError::PackedRange("16777216".into()))
        );
        assert_eq!(
            RawMove::from_uint24(u64::MAX).unwrap_err().to_string(),
            "invalid move \"18446744073709551615\": a packed move is an integer in 0..=16777215 (uint24)"
        );
    }

    #[test]
    fn display_reads_back_to_the_same_bytes() {
        for text in ["e2e4", "e7e8k", "b7b8n", "0x644800", "0xffffff", "0x140407"] {
            let mv = RawMove::parse(text).unwrap();
            assert_eq!(mv.to_string(), text);
            assert_eq!(mv.to_string().parse::<RawMove>(), Ok(mv));
        }
    }
}
